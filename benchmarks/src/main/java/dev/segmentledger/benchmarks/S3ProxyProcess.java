package dev.segmentledger.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * {@link S3ProxyServer} in a child JVM ({@code java -cp <this class path>}), started and waited for
 * until its port accepts connections; {@link #close()} kills it. The ledger and rclone both talk
 * to it over loopback HTTP, as to a separate S3 endpoint.
 */
final class S3ProxyProcess implements AutoCloseable {
  static final String HEAP = "-Xmx1g";
  private final Process process;
  private final int port;

  private S3ProxyProcess(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  static S3ProxyProcess start(Path blobs, String accessKey, String secretKey) throws Exception {
    List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), HEAP,
        "-cp", System.getProperty("java.class.path"), S3ProxyServer.class.getName(), blobs.toString(), accessKey,
        secretKey);
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    CompletableFuture<Integer> listening = new CompletableFuture<>();
    Thread pump = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
          StandardCharsets.UTF_8))) {
        for (String line = in.readLine(); line != null; line = in.readLine()) {
          if (line.startsWith("LISTENING ")) {
            listening.complete(Integer.parseInt(line.substring(10).trim()));
          } else {
            System.out.println("[s3proxy] " + line);
          }
        }
      } catch (IOException | RuntimeException e) {
        // the server died; the wait below reports it
      }
      listening.completeExceptionally(new IllegalStateException("S3Proxy process exited before listening"));
    }, "s3proxy-output");
    pump.setDaemon(true);
    pump.start();
    int port;
    try {
      port = listening.get(2, TimeUnit.MINUTES);
      awaitPort(port);
    } catch (Exception e) {
      process.destroyForcibly();
      throw e;
    }
    return new S3ProxyProcess(process, port);
  }

  private static void awaitPort(int port) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
        return;
      } catch (IOException e) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("S3Proxy port " + port + " does not accept connections", e);
        }
        Thread.sleep(20);
      }
    }
  }

  URI endpoint() {
    return URI.create("http://127.0.0.1:" + port);
  }

  long pid() {
    return process.pid();
  }

  /** CPU time (user + system) the server process has used so far, in milliseconds; -1 if unknown. */
  long cpuMillis() {
    return process.info().totalCpuDuration().map(java.time.Duration::toMillis).orElse(-1L);
  }

  /** How the server runs, for the conditions. */
  static String description() {
    return "S3Proxy " + version() + " in its own JVM (" + HEAP + ", java -cp <suite class path> "
        + S3ProxyServer.class.getSimpleName() + "), jclouds filesystem blobstore on the same disk, SigV4, loopback"
        + " HTTP, logging at WARN";
  }

  /** The version of S3Proxy on the class path (its jar's manifest), which the server process runs. */
  static String version() {
    String version = org.gaul.s3proxy.S3Proxy.class.getPackage().getImplementationVersion();
    return version == null ? "(version unknown)" : version;
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }
}
