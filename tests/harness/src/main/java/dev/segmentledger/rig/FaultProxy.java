package dev.segmentledger.rig;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A loopback HTTP/1.1 relay that injects faults between a client (an S3 SDK) and a server (an S3
 * protocol server such as S3Proxy), for testing how a sink handles failures on the wire.
 *
 * <p>Every request is relayed on its own upstream connection with {@code Connection: close}, and
 * the client connection is closed after the reply; {@code Expect: 100-continue} is answered by the
 * relay itself. Requests must carry {@code Content-Length} (chunked request bodies are refused
 * with a 501). A fault scheduled with {@link #inject} (or an error reply with {@link #injectError})
 * applies once, to the next request that matches its predicate; all other requests pass through
 * untouched. {@link #denyAccess} refuses
 * every matching request with {@code 403 AccessDenied} until {@link #allowAccess}, as a bucket
 * policy would. {@link #requests()} lists
 * every request seen, so a test can assert that a PUT was (or was not) sent.
 *
 * <p><b>Lasting conditions</b> (for outage scenarios; each stays until changed or
 * {@link #clearConditions}): {@link #refuseConnections} closes the listening port (connects are
 * refused) until {@link #acceptConnections} opens it again on the same port; {@link #blackHole}
 * accepts connections and never answers; {@link #slowDown} answers a fraction of the matching
 * requests with {@code 503 SlowDown}; {@link #delay} holds every request before relaying it;
 * {@link #loseAcknowledgements} relays a fraction of the matching requests and then resets the
 * client connection instead of relaying the reply; {@link #limitBandwidth} paces every connection,
 * each on its own, to a number of bytes per second in both directions (a link where one connection
 * is the limit, not the server). {@link #onRequest} observes every request (for counting without
 * keeping a list).
 *
 * <p>Thread-safe. Not for production: plain HTTP only, no TLS, loopback only.
 */
public final class FaultProxy implements AutoCloseable {
  /** The request line and headers of one request, as the relay saw it. */
  public record Request(String method, String target, long contentLength) {
    /** Whether this request writes an object body: a PUT with a body (object or part). */
    public boolean isUpload() {
      return method.equals("PUT") && contentLength > 0;
    }

    @Override
    public String toString() {
      return method + " " + target + " (" + contentLength + " bytes)";
    }
  }

  /** What the relay does to a request it was told to fault. */
  public enum Fault {
    /** Reads the request, never forwards it, replies {@code 500 InternalError}. */
    INTERNAL_ERROR,
    /** Reads the request, never forwards it, replies {@code 503 SlowDown}. */
    SLOW_DOWN,
    /** Reads the request, never forwards it, never replies: the client's read timeout must fire. */
    STALL,
    /** Reads half of the request body, never forwards it, then resets the connection. */
    RESET_MID_BODY,
    /**
     * Forwards the request and waits for the server's complete reply, then resets the client
     * connection instead of relaying it: the server acted, the client cannot know.
     */
    LOST_ACKNOWLEDGEMENT
  }

  /** A scheduled fault, or (with {@code fault} null) a scheduled error reply of {@code status} and {@code code}. */
  private record Scheduled(Fault fault, int status, String code, Predicate<Request> when) {}

  private final InetSocketAddress upstream;
  private final int port;
  private volatile ServerSocket server;
  /** The thread accepting on {@link #server}; the port is only really closed once it has returned. */
  private volatile Future<?> acceptor;
  private volatile boolean blackHole;
  private volatile Condition slowDown = Condition.NONE;
  private volatile Condition lostAcknowledgement = Condition.NONE;
  private volatile long delayNanos;
  private volatile long bytesPerSecond;
  private volatile Consumer<Request> observer = r -> { };
  private volatile boolean keepRequests = true;
  private final ExecutorService connections = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "fault-proxy");
    t.setDaemon(true);
    return t;
  });
  private final List<Scheduled> scheduled = new ArrayList<>();
  private final List<Request> requests = new CopyOnWriteArrayList<>();
  private volatile Predicate<Request> denied = r -> false;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();

  private FaultProxy(InetSocketAddress upstream) throws IOException {
    this.upstream = upstream;
    ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.server = socket;
    this.port = socket.getLocalPort();
    this.acceptor = connections.submit(() -> acceptLoop(socket));
  }

  /** A lasting fault applied to a fraction of the requests that match. */
  private record Condition(double fraction, Predicate<Request> when) {
    static final Condition NONE = new Condition(0, r -> false);

    boolean hits(Request request) {
      return fraction > 0 && when.test(request) && ThreadLocalRandom.current().nextDouble() < fraction;
    }
  }

  /** Starts a relay on a free loopback port in front of {@code upstream}. */
  public static FaultProxy start(URI upstream) throws IOException {
    return new FaultProxy(new InetSocketAddress(upstream.getHost(), upstream.getPort()));
  }

  /** The address clients should use instead of the upstream's. */
  public URI uri() {
    return URI.create("http://" + InetAddress.getLoopbackAddress().getHostAddress() + ":" + port);
  }

  /**
   * Closes the listening port: new connections are refused (as by a server that is down) until
   * {@link #acceptConnections()}. Connections already open finish normally.
   */
  public synchronized FaultProxy refuseConnections() throws IOException {
    server.close();
    // A thread blocked in accept() keeps the listening socket alive in the kernel until it returns,
    // and may accept one more connection meanwhile: wait for it, so refusal holds on return.
    try {
      acceptor.get(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      throw new IOException("the accepting thread did not stop", e);
    }
    return this;
  }

  /** Listens again on the same port after {@link #refuseConnections()}; does nothing if listening. */
  public synchronized FaultProxy acceptConnections() throws IOException {
    if (!server.isClosed()) {
      return this;
    }
    ServerSocket socket = new ServerSocket();
    socket.setReuseAddress(true);
    socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
    server = socket;
    acceptor = connections.submit(() -> acceptLoop(socket));
    return this;
  }

  /**
   * While on, every new connection is accepted and read but never answered nor forwarded, until the
   * client gives up (its timeout fires). Connections held when it is switched off stay unanswered.
   */
  public FaultProxy blackHole(boolean on) {
    blackHole = on;
    return this;
  }

  /** Answers {@code fraction} (0 to 1) of the requests matching {@code when} with {@code 503 SlowDown}. */
  public FaultProxy slowDown(double fraction, Predicate<Request> when) {
    slowDown = new Condition(checkFraction(fraction), Objects.requireNonNull(when, "when"));
    return this;
  }

  /** Holds every request for {@code delay} before relaying it (after reading its head). */
  public FaultProxy delay(Duration delay) {
    delayNanos = delay.toNanos();
    return this;
  }

  /**
   * Paces each connection relayed from now on to at most {@code bytesPerSecond} in each direction,
   * the request body to the server and the reply to the client, every connection on its own (two
   * connections move twice as much as one); {@code 0} removes the cap. A request is relayed on its
   * own connection, so this caps each request, as a link whose per-connection throughput is the limit
   * (a long path, a per-flow shaper) would.
   */
  public FaultProxy limitBandwidth(long bytesPerSecond) {
    if (bytesPerSecond < 0) {
      throw new IllegalArgumentException("bytesPerSecond must be >= 0 (0: no cap), got " + bytesPerSecond);
    }
    this.bytesPerSecond = bytesPerSecond;
    return this;
  }

  /**
   * Relays {@code fraction} (0 to 1) of the requests matching {@code when} and then resets the
   * client connection instead of relaying the reply: the server acted, the client cannot know.
   */
  public FaultProxy loseAcknowledgements(double fraction, Predicate<Request> when) {
    lostAcknowledgement = new Condition(checkFraction(fraction), Objects.requireNonNull(when, "when"));
    return this;
  }

  /**
   * Ends every lasting condition: listening, no black hole, no SlowDown, no delay, no lost replies,
   * no bandwidth cap.
   */
  public synchronized FaultProxy clearConditions() throws IOException {
    blackHole = false;
    slowDown = Condition.NONE;
    lostAcknowledgement = Condition.NONE;
    delayNanos = 0;
    bytesPerSecond = 0;
    return acceptConnections();
  }

  /**
   * Calls {@code observer} with every request received (on the relay's thread; it must be fast and
   * thread-safe). With {@code keepList false}, {@link #requests()} stays empty from now on, so that
   * a long run does not keep every request in memory.
   */
  public FaultProxy onRequest(Consumer<Request> observer, boolean keepList) {
    this.observer = Objects.requireNonNull(observer, "observer");
    this.keepRequests = keepList;
    return this;
  }

  private static double checkFraction(double fraction) {
    if (!(fraction >= 0 && fraction <= 1)) {
      throw new IllegalArgumentException("fraction must be in [0, 1], got " + fraction);
    }
    return fraction;
  }

  /** Applies {@code fault} once, to the next request matching {@code when}. */
  public synchronized FaultProxy inject(Fault fault, Predicate<Request> when) {
    scheduled.add(new Scheduled(Objects.requireNonNull(fault, "fault"), 0, null, Objects.requireNonNull(when, "when")));
    return this;
  }

  /**
   * Answers the next request matching {@code when} with {@code status} and an S3 error document of
   * {@code code}, without forwarding it (its body is read and dropped), once: a refusal of one
   * request, such as {@code 400 InvalidArgument}, which the {@link Fault}s (all of them failures a
   * retry can pass) do not cover. Scheduled in the same queue as {@link #inject}.
   */
  public synchronized FaultProxy injectError(int status, String code, Predicate<Request> when) {
    if (status < 400 || status > 599) {
      throw new IllegalArgumentException("an error status is 4xx or 5xx, got " + status);
    }
    scheduled.add(new Scheduled(null, status, Objects.requireNonNull(code, "code"), Objects.requireNonNull(when, "when")));
    return this;
  }

  /**
   * From now on answers every request matching {@code when} with {@code 403 AccessDenied} (an S3
   * error document) without forwarding it, as a bucket or IAM policy refusing the caller would,
   * until {@link #allowAccess()}. Scheduled faults of {@link #inject} apply only to requests this
   * lets through.
   */
  public FaultProxy denyAccess(Predicate<Request> when) {
    denied = Objects.requireNonNull(when, "when");
    return this;
  }

  /** Ends {@link #denyAccess}: requests pass again. */
  public FaultProxy allowAccess() {
    denied = r -> false;
    return this;
  }

  /** Every request received so far, in arrival order. */
  public List<Request> requests() {
    return List.copyOf(requests);
  }

  /** Forgets the requests seen so far (not the scheduled faults). */
  public void clearRequests() {
    requests.clear();
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (Socket socket : open) {
      socket.close();
    }
    connections.shutdownNow();
  }

  private void acceptLoop(ServerSocket server) {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        if (server.isClosed()) { // accepted while closing: refused after all
          client.close();
          return;
        }
        open.add(client);
        connections.execute(() -> serve(client));
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private synchronized Scheduled scheduledFor(Request request) {
    for (int i = 0; i < scheduled.size(); i++) {
      if (scheduled.get(i).when().test(request)) {
        return scheduled.remove(i);
      }
    }
    return null;
  }

  private void serve(Socket client) {
    try (client) {
      InputStream fromClient = client.getInputStream();
      OutputStream toClient = client.getOutputStream();
      if (blackHole) {
        fromClient.transferTo(OutputStream.nullOutputStream()); // until the client gives up
        return;
      }
      List<String> head = readHead(fromClient);
      if (head.isEmpty()) {
        return;
      }
      String[] line = head.get(0).split(" ");
      long length = 0;
      boolean expectContinue = false;
      boolean chunked = false;
      List<String> forwarded = new ArrayList<>();
      forwarded.add(head.get(0));
      for (String header : head.subList(1, head.size())) {
        String name = header.substring(0, Math.max(0, header.indexOf(':'))).trim().toLowerCase(Locale.ROOT);
        String value = header.substring(header.indexOf(':') + 1).trim();
        switch (name) {
          case "content-length" -> length = Long.parseLong(value);
          case "expect" -> expectContinue = value.equalsIgnoreCase("100-continue");
          case "transfer-encoding" -> chunked = true;
          default -> { }
        }
        if (!name.equals("expect") && !name.equals("connection")) {
          forwarded.add(header);
        }
      }
      forwarded.add("Connection: close");
      Request request = new Request(line[0], line.length > 1 ? line[1] : "", length);
      if (keepRequests) {
        requests.add(request);
      }
      observer.accept(request);
      if (chunked) {
        reply(toClient, 501, "NotImplemented", "FaultProxy needs Content-Length");
        return;
      }
      if (expectContinue) {
        toClient.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(ISO_8859_1));
        toClient.flush();
      }
      if (denied.test(request)) {
        fromClient.skipNBytes(length);
        reply(toClient, 403, "AccessDenied", "Access Denied (a policy injected by FaultProxy)");
        return;
      }
      long delay = delayNanos;
      if (delay > 0) {
        TimeUnit.NANOSECONDS.sleep(delay);
      }
      Scheduled next = scheduledFor(request);
      if (next != null && next.fault() == null) {
        fromClient.skipNBytes(length);
        reply(toClient, next.status(), next.code(), "injected by FaultProxy");
        return;
      }
      Fault fault = next == null ? null : next.fault();
      if (fault == null && slowDown.hits(request)) {
        fault = Fault.SLOW_DOWN;
      } else if (fault == null && lostAcknowledgement.hits(request)) {
        fault = Fault.LOST_ACKNOWLEDGEMENT;
      }
      if (fault == null) {
        relay(forwarded, fromClient, length, toClient);
        return;
      }
      switch (fault) {
        case INTERNAL_ERROR -> {
          fromClient.skipNBytes(length);
          reply(toClient, 500, "InternalError", "injected by FaultProxy");
        }
        case SLOW_DOWN -> {
          fromClient.skipNBytes(length);
          reply(toClient, 503, "SlowDown", "injected by FaultProxy");
        }
        case STALL -> {
          fromClient.skipNBytes(length);
          fromClient.transferTo(OutputStream.nullOutputStream()); // until the client gives up
        }
        case RESET_MID_BODY -> {
          fromClient.skipNBytes(length / 2);
          reset(client);
        }
        case LOST_ACKNOWLEDGEMENT -> {
          relay(forwarded, fromClient, length, OutputStream.nullOutputStream());
          reset(client);
        }
      }
    } catch (IOException e) {
      // The client went away or was reset on purpose; nothing to report to anyone.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // closing
    } finally {
      open.remove(client);
    }
  }

  private void relay(List<String> head, InputStream fromClient, long length, OutputStream toClient)
      throws IOException, InterruptedException {
    long cap = bytesPerSecond;
    try (Socket server = new Socket(upstream.getAddress(), upstream.getPort())) {
      open.add(server);
      OutputStream toServer = server.getOutputStream();
      toServer.write((String.join("\r\n", head) + "\r\n\r\n").getBytes(ISO_8859_1));
      copy(fromClient, toServer, length, new BandwidthPace(cap));
      toServer.flush();
      copy(server.getInputStream(), toClient, -1, new BandwidthPace(cap));
      toClient.flush();
    }
  }

  /** Copies {@code length} bytes ({@code -1}: until the end of {@code in}), paced by {@code pace}. */
  private static void copy(InputStream in, OutputStream out, long length, BandwidthPace pace)
      throws IOException, InterruptedException {
    byte[] buffer = new byte[pace.blockSize()];
    long remaining = length < 0 ? Long.MAX_VALUE : length;
    while (remaining > 0) {
      int n = in.read(buffer, 0, (int) Math.min(buffer.length, remaining));
      if (n < 0) {
        if (length < 0) {
          return;
        }
        throw new IOException("client sent " + (length - remaining) + " of " + length + " body bytes");
      }
      out.write(buffer, 0, n);
      remaining -= n;
      pace.sent(n);
    }
  }

  private static void reply(OutputStream out, int status, String code, String message) throws IOException {
    byte[] body = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>" + code + "</Code><Message>" + message
        + "</Message><RequestId>fault-proxy</RequestId></Error>").getBytes(ISO_8859_1);
    String head = "HTTP/1.1 " + status + " " + code + "\r\nContent-Type: application/xml\r\nContent-Length: "
        + body.length + "\r\nConnection: close\r\n\r\n";
    out.write(head.getBytes(ISO_8859_1));
    out.write(body);
    out.flush();
  }

  private static void reset(Socket socket) throws IOException {
    socket.setSoLinger(true, 0);
    socket.close();
  }

  private static List<String> readHead(InputStream in) throws IOException {
    List<String> lines = new ArrayList<>();
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int previous = -1;
    int b;
    while ((b = in.read()) >= 0) {
      if (b == '\n' && previous == '\r') {
        String text = line.toString(ISO_8859_1);
        String stripped = text.substring(0, text.length() - 1);
        if (stripped.isEmpty()) {
          return lines;
        }
        lines.add(stripped);
        line.reset();
      } else {
        line.write(b);
      }
      previous = b;
      if (line.size() > 64 * 1024) {
        throw new IOException("request head too long");
      }
    }
    return List.of();
  }
}
