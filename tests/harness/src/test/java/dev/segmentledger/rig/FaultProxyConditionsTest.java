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
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The lasting conditions of {@link FaultProxy} used by the outage scenarios (issue 21). */
class FaultProxyConditionsTest {
  private HttpServer upstream;
  private final AtomicInteger served = new AtomicInteger();
  private FaultProxy proxy;

  @BeforeEach
  void start() throws IOException {
    upstream = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    upstream.createContext("/", exchange -> {
      exchange.getRequestBody().readAllBytes();
      served.incrementAndGet();
      exchange.sendResponseHeaders(200, -1);
      exchange.close();
    });
    upstream.start();
    proxy = FaultProxy.start(URI.create("http://127.0.0.1:" + upstream.getAddress().getPort()));
  }

  @AfterEach
  void stop() throws IOException {
    proxy.close();
    upstream.stop(0);
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
  void fractionsOutsideZeroToOneAreRejected() {
    assertThrows(IllegalArgumentException.class, () -> proxy.slowDown(1.5, r -> true));
    assertThrows(IllegalArgumentException.class, () -> proxy.loseAcknowledgements(-0.1, r -> true));
  }

  /** One request on a fresh connection; returns the reply's status code. */
  private String send(String method, String body) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), proxy.uri().getPort()), 2_000);
      s.setSoTimeout(1_000);
      s.getOutputStream().write((method + " /bucket/key HTTP/1.1\r\nHost: x\r\nContent-Length: " + body.length()
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
