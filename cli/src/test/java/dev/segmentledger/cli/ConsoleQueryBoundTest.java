package dev.segmentledger.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.console.LedgerConsole;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.testkit.PostgresExtension;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every console read is bounded in time, over plain HTTP on PostgreSQL. A filter no row matches
 * ({@code state=CONFIRMED&minAttempts=1000000}) walks the whole primary key of a large ledger; here
 * an open transaction holding the table's ACCESS EXCLUSIVE lock stands in for that walk (a
 * statement timeout counts the wait for a lock as it counts a scan), so the read cannot end by
 * itself. The console must answer within about its bound, with a page that says what happened and
 * how to narrow the filter.
 */
class ConsoleQueryBoundTest {
  @RegisterExtension static final PostgresExtension PG = PostgresExtension.create();
  private static final String TOKEN = "console-query-bound-test-0123";
  private static JdbiStateStore store;

  private final HttpClient http = HttpClient.newHttpClient();
  private ConsoleServer server;

  @BeforeAll
  static void migrate() {
    store = JdbiStateStore.create(Jdbi.create(PG.dataSource())).migrate();
  }

  @BeforeEach
  void start() throws Exception {
    LedgerConsole console = LedgerConsole.builder().store(store).clock(Clock.systemUTC()).build();
    server = ConsoleServer.start(console, new InetSocketAddress("127.0.0.1", 0), TOKEN);
  }

  @AfterEach
  void stop() {
    server.stop();
  }

  private HttpResponse<String> get(String pathAndQuery) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(server.url() + pathAndQuery))
        .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(20)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aFilterThatOutlastsTheBoundIsAnsweredWithAPageThatSaysSo() throws Exception {
    HttpResponse<String> response;
    try (Connection walker = PG.dataSource().getConnection(); Statement statement = walker.createStatement()) {
      walker.setAutoCommit(false);
      statement.execute("LOCK TABLE segment_ledger_item IN ACCESS EXCLUSIVE MODE");
      response = get("rows?state=CONFIRMED&minAttempts=1000000"); // an HttpTimeoutException if unbounded
      walker.rollback();
    }
    assertEquals(503, response.statusCode(), response.body());
    assertTrue(response.body().contains("took longer than"), response.body());
    assertTrue(response.body().contains("narrow"), response.body());
    assertEquals(200, get("rows?state=CONFIRMED&minAttempts=1000000").statusCode(),
        "the same read, once nothing holds it up");
  }

  /** The overview's count of playlists and a broadcast's list of them are read within the bound too. */
  @Test
  void playlistReadsAreBoundedToo() throws Exception {
    HttpResponse<String> overview;
    HttpResponse<String> broadcast;
    store.endBroadcast("b1", Instant.now()); // a broadcast the console knows
    try (Connection walker = PG.dataSource().getConnection(); Statement statement = walker.createStatement()) {
      walker.setAutoCommit(false);
      statement.execute("LOCK TABLE segment_ledger_playlist IN ACCESS EXCLUSIVE MODE");
      overview = get(""); // an HttpTimeoutException if unbounded
      broadcast = get("broadcast?id=b1");
      walker.rollback();
    }
    assertEquals(503, overview.statusCode(), overview.body());
    assertTrue(overview.body().contains("took longer than"), overview.body());
    assertEquals(503, broadcast.statusCode(), broadcast.body());
    assertEquals(200, get("").statusCode(), "the same page, once nothing holds it up");
  }
}
