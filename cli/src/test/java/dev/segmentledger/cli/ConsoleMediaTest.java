package dev.segmentledger.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.segmentledger.console.LedgerConsole;
import dev.segmentledger.console.MediaSource;
import dev.segmentledger.testkit.InMemoryStateStore;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The console's media route over plain HTTP, through the command line's server, from a bucket
 * served over HTTP ({@link MediaSource#http}): an object is streamed through (its first bytes reach
 * the player while the bucket is still sending the rest, so a large object never sits whole in the
 * host's memory), only the keys a player reads are served (playlists, playback segments, init
 * segments; never an original), each with the type of its kind whatever the bucket says, and with a
 * Content-Security-Policy that lets nothing in it run.
 */
class ConsoleMediaTest {
  private static final String TOKEN = "console-media-test-token-0123";
  private static final String SEGMENT = "b1/720p/playback/0000000000.m4s";
  private static final int HALF = 1024 * 1024;

  private final HttpClient http = HttpClient.newHttpClient();
  private final CountDownLatch restAllowed = new CountDownLatch(1);
  private HttpServer bucket;
  private ConsoleServer server;

  /** A bucket that sends half of any object, then the rest only once the test allows it; as text/html. */
  @BeforeEach
  void start() throws Exception {
    bucket = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    bucket.createContext("/recordings/", exchange -> {
      try (exchange; OutputStream body = exchange.getResponseBody()) {
        exchange.getResponseHeaders().add("Content-Type", "text/html");
        exchange.sendResponseHeaders(200, 0); // chunked
        body.write(new byte[HALF]);
        body.flush();
        restAllowed.await(20, TimeUnit.SECONDS);
        body.write(new byte[HALF]);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    bucket.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    bucket.start();
    URI base = URI.create("http://127.0.0.1:" + bucket.getAddress().getPort() + "/recordings/");
    LedgerConsole console = LedgerConsole.builder().store(new InMemoryStateStore()).clock(Clock.systemUTC())
        .streamedBodies(true).media(MediaSource.http(base)).build();
    server = ConsoleServer.start(console, new InetSocketAddress("127.0.0.1", 0), TOKEN);
  }

  @AfterEach
  void stop() {
    restAllowed.countDown();
    server.stop();
    bucket.stop(0);
  }

  private CompletableFuture<HttpResponse<InputStream>> get(String key) {
    return http.sendAsync(HttpRequest.newBuilder(URI.create(server.url() + "media/" + key))
        .header("Authorization", "Bearer " + TOKEN).GET().build(), HttpResponse.BodyHandlers.ofInputStream());
  }

  @Test
  void aSegmentIsStreamedThroughWithTheTypeOfItsKindAndAPolicy() throws Exception {
    HttpResponse<InputStream> response = get(SEGMENT).get(10, TimeUnit.SECONDS); // before the bucket has finished
    assertEquals(200, response.statusCode());
    assertEquals("video/iso.segment", response.headers().firstValue("Content-Type").orElse(null),
        "the kind's type, never the bucket's text/html");
    assertEquals("nosniff", response.headers().firstValue("X-Content-Type-Options").orElse(null));
    String policy = response.headers().firstValue("Content-Security-Policy").orElse("");
    assertTrue(policy.contains("default-src 'none'") && policy.contains("sandbox"), policy);
    try (InputStream body = response.body()) {
      assertEquals(HALF, body.readNBytes(HALF).length, "the first half arrives while the bucket holds the rest");
      restAllowed.countDown();
      assertEquals(HALF, body.readAllBytes().length);
    }
  }

  @Test
  void anOriginalIsNotServedTheInitAndPlaylistsAre() throws Exception {
    restAllowed.countDown();
    assertEquals(404, get("b1/720p/original/0000000000.ts").get(10, TimeUnit.SECONDS).statusCode(),
        "no player reads an original: it may be a 1 GiB file");
    assertEquals(404, get("b1/720p/original/0000000000.mp4").get(10, TimeUnit.SECONDS).statusCode());
    HttpResponse<InputStream> init = get("b1/720p/init.mp4").get(10, TimeUnit.SECONDS);
    assertEquals(200, init.statusCode());
    assertEquals("video/mp4", init.headers().firstValue("Content-Type").orElse(null));
    init.body().close();
    HttpResponse<InputStream> playlist = get("b1/720p/media.m3u8").get(10, TimeUnit.SECONDS);
    assertEquals(200, playlist.statusCode());
    assertEquals("application/vnd.apple.mpegurl", playlist.headers().firstValue("Content-Type").orElse(null));
    assertTrue(playlist.headers().firstValue("Content-Security-Policy").isPresent());
    playlist.body().close();
  }
}
