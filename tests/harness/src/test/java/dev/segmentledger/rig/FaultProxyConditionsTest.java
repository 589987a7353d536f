package dev.segmentledger.rig;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The lasting conditions of {@link FaultProxy} used by the outage scenarios and the upload benchmarks. */
class FaultProxyConditionsTest {
  /** The size of the reply to a GET of {@code /big}. */
  private static final int BIG = 128 * 1024;
  private HttpServer upstream;
  private final ExecutorService upstreamThreads = Executors.newCachedThreadPool();
  private final AtomicInteger served = new AtomicInteger();
  private FaultProxy proxy;

  @BeforeEach
  void start() throws IOException {
    upstream = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    upstream.createContext("/", exchange -> {
      exchange.getRequestBody().readAllBytes();
      served.incrementAndGet();
      if (exchange.getRequestURI().getPath().equals("/big")) {
        exchange.sendResponseHeaders(200, BIG);
        exchange.getResponseBody().write(new byte[BIG]);
      } else {
        exchange.sendResponseHeaders(200, -1);
      }
      exchange.close();
    });
    upstream.setExecutor(upstreamThreads); // requests served in parallel, as by an S3 server
    upstream.start();
    proxy = FaultProxy.start(URI.create("http://127.0.0.1:" + upstream.getAddress().getPort()));
  }

  @AfterEach
  void stop() throws IOException {
    proxy.close();
    upstream.stop(0);
    upstreamThreads.shutdownNow();
  }

  @Test
  void refusedConnectionsAreRefusedUntilAcceptedAgainOnTheSamePort() throws IOException {
    URI before = proxy.uri();
    proxy.refuseConnections();
    assertThrows(ConnectException.class, () -> send("GET", ""));
    proxy.acceptConnections();
    assertEquals(before, proxy.uri());
    assertEquals("200", send("GET", ""));
  }

  @Test
  void aBlackHoleAcceptsButNeverAnswersAndForwardsNothing() throws IOException {
    proxy.blackHole(true);
    assertThrows(SocketTimeoutException.class, () -> send("PUT", "abc"));
    assertEquals(0, served.get());
    proxy.blackHole(false);
    assertEquals("200", send("PUT", "abc"));
  }

  @Test
  void slowDownAnswersTheMatchingFractionWith503AndLetsTheRestPass() throws IOException {
    proxy.slowDown(1.0, r -> r.method().equals("PUT"));
    assertEquals("503", send("PUT", "abc"));
    assertEquals("200", send("GET", ""));
    assertEquals(1, served.get());
    proxy.slowDown(0.0, r -> true);
    assertEquals("200", send("PUT", "abc"));
  }

  @Test
  void aLostAcknowledgementReachesTheServerButTheClientGetsNoReply() throws IOException {
    proxy.loseAcknowledgements(1.0, FaultProxy.Request::isUpload);
    assertThrows(IOException.class, () -> send("PUT", "abc"));
    assertEquals(1, served.get());
    proxy.clearConditions();
    assertEquals("200", send("PUT", "abc"));
  }

  @Test
  void aDelayHoldsEveryRequestAndTheObserverSeesThemWithoutAList() throws IOException {
    AtomicInteger seen = new AtomicInteger();
    proxy.onRequest(r -> seen.incrementAndGet(), false).delay(Duration.ofMillis(300));
    long t0 = System.nanoTime();
    assertEquals("200", send("GET", ""));
    assertTrue(System.nanoTime() - t0 >= Duration.ofMillis(300).toNanos());
    proxy.clearConditions();
    assertEquals("200", send("GET", ""));
    assertEquals(2, seen.get());
    assertTrue(proxy.requests().isEmpty());
  }

  @Test
  void anInjectedErrorAnswersTheNextMatchingRequestOnceWithoutForwardingIt() throws IOException {
    proxy.injectError(400, "InvalidArgument", r -> r.method().equals("PUT"));
    assertEquals("200", send("GET", ""));
    assertEquals("400", send("PUT", "abc"));
    assertEquals(1, served.get(), "the refused PUT was not forwarded");
    assertEquals("200", send("PUT", "abc"));
    assertThrows(IllegalArgumentException.class, () -> proxy.injectError(200, "OK", r -> true));
  }

  @Test
  void aBandwidthCapPacesEachConnectionOnItsOwnInBothDirections() throws Exception {
    proxy.limitBandwidth(BIG); // 128 KiB/s: a body of 128 KiB takes a second
    long t0 = System.nanoTime();
    assertEquals("200", send("PUT", "x".repeat(BIG), "/bucket/key", Duration.ofSeconds(10)));
    assertTrue(millisSince(t0) >= 950, "a capped upload of a second's worth took " + millisSince(t0) + " ms");

    t0 = System.nanoTime();
    assertEquals("200", send("GET", "", "/big", Duration.ofSeconds(10)));
    assertTrue(millisSince(t0) >= 950, "a capped reply of a second's worth took " + millisSince(t0) + " ms");

    // Two connections at once: each has the cap to itself, so they end together after about a second
    // (one shared cap would take two).
    ExecutorService clients = Executors.newFixedThreadPool(2);
    try {
      t0 = System.nanoTime();
      List<Future<String>> both = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        both.add(clients.submit(() -> send("PUT", "x".repeat(BIG), "/bucket/key", Duration.ofSeconds(10))));
      }
      for (Future<String> f : both) {
        assertEquals("200", f.get());
      }
      long parallel = millisSince(t0);
      assertTrue(parallel >= 950 && parallel < 1_800, "two capped uploads at once took " + parallel + " ms");
    } finally {
      clients.shutdownNow();
    }

    proxy.clearConditions();
    t0 = System.nanoTime();
    assertEquals("200", send("PUT", "x".repeat(BIG), "/bucket/key", Duration.ofSeconds(10)));
    assertTrue(millisSince(t0) < 950, "uncapped again, yet the upload took " + millisSince(t0) + " ms");
    assertEquals(5, served.get());
    assertThrows(IllegalArgumentException.class, () -> proxy.limitBandwidth(-1));
  }

  @Test
  void fractionsOutsideZeroToOneAreRejected() {
    assertThrows(IllegalArgumentException.class, () -> proxy.slowDown(1.5, r -> true));
    assertThrows(IllegalArgumentException.class, () -> proxy.loseAcknowledgements(-0.1, r -> true));
  }

  private static long millisSince(long nanos) {
    return (System.nanoTime() - nanos) / 1_000_000;
  }

  /** One request on a fresh connection; returns the reply's status code. */
  private String send(String method, String body) throws IOException {
    return send(method, body, "/bucket/key", Duration.ofSeconds(1));
  }

  /** One request to {@code path} on a fresh connection, read until closed; returns the reply's status code. */
  private String send(String method, String body, String path, Duration timeout) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), proxy.uri().getPort()), 2_000);
      s.setSoTimeout((int) timeout.toMillis());
      s.getOutputStream().write((method + " " + path + " HTTP/1.1\r\nHost: x\r\nContent-Length: " + body.length()
          + "\r\n\r\n" + body).getBytes(ISO_8859_1));
      s.getOutputStream().flush();
      byte[] reply = s.getInputStream().readAllBytes();
      String text = new String(reply, ISO_8859_1);
      if (!text.startsWith("HTTP/1.1 ")) {
        throw new IOException("no reply: '" + text + "'");
      }
      return text.substring(9, 12);
    }
  }
}
