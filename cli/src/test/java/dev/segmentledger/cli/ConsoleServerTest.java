package dev.segmentledger.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.console.LedgerConsole;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.testkit.InMemoryStateStore;
import dev.segmentledger.testkit.SettableClock;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The command line's console server over plain HTTP: a POST is accepted only from the console's own
 * origin (or with no {@code Origin} at all, as from a script); {@code Origin: null}, which a
 * sandboxed frame or a redirected form sends, is refused like any other origin.
 */
class ConsoleServerTest {
  private static final String TOKEN = "console-server-test-token-0123";

  private final SettableClock clock = SettableClock.at(Instant.parse("2026-11-30T12:00:00Z"));
  private final InMemoryStateStore store = new InMemoryStateStore();
  private final HttpClient http = HttpClient.newHttpClient();
  private ConsoleServer server;
  private long rejected;

  @BeforeEach
  void start() throws IOException {
    LedgerItem row = store.register(NewItem.pending(ItemId.original("b1", "720p", 0), "/rec/0", 10,
        clock.instant())).item();
    store.markTerminal(row.rowId(), ItemState.PENDING, "node-a", ItemState.REJECTED, Reason.SINK_PERMANENT,
        "denied", clock.instant());
    rejected = row.rowId();
    LedgerConsole console = LedgerConsole.builder().store(store).clock(clock).reopenEnabled(true).build();
    server = ConsoleServer.start(console, new InetSocketAddress("127.0.0.1", 0), TOKEN);
  }

  @AfterEach
  void stop() {
    server.stop();
  }

  private HttpResponse<String> postReopen(String origin) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.url() + "reopen"))
        .header("Authorization", "Bearer " + TOKEN)
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString("row=" + rejected + "&state=REJECTED"));
    if (origin != null) {
      request.header("Origin", origin);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aPostWithTheNullOriginIsRefusedAndChangesNothing() throws Exception {
    HttpResponse<String> response = postReopen("null");
    assertEquals(403, response.statusCode(), response.body());
    assertTrue(response.body().contains("Origin"), response.body());
    assertEquals(ItemState.REJECTED, store.findByRowId(rejected).orElseThrow().state());
  }

  @Test
  void aPostFromAnotherOriginIsRefusedAndOneFromItsOwnOriginIsServed() throws Exception {
    assertEquals(403, postReopen("http://evil.example").statusCode());
    assertEquals(ItemState.REJECTED, store.findByRowId(rejected).orElseThrow().state());
    String own = server.url().substring(0, server.url().length() - 1);
    HttpResponse<String> response = postReopen(own);
    assertEquals(200, response.statusCode(), response.body());
    assertEquals(ItemState.PENDING, store.findByRowId(rejected).orElseThrow().state());
  }

  @Test
  void aPostWithoutAnOriginFromAScriptHoldingTheTokenIsServed() throws Exception {
    HttpResponse<String> response = postReopen(null);
    assertEquals(200, response.statusCode(), response.body());
    assertFalse(response.body().contains("refused"), response.body());
  }
}
