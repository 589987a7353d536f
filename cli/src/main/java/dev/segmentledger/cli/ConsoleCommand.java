package dev.segmentledger.cli;

import dev.segmentledger.console.LedgerConsole;
import dev.segmentledger.console.MediaSource;
import dev.segmentledger.core.Printable;
import dev.segmentledger.jdbi.JdbiStateStore;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * {@code console}: serves the operations console ({@link LedgerConsole}) over HTTP with the JDK's
 * own server, for hosts without Spring. Every request needs the access token: {@code
 * $SEGMENT_LEDGER_CONSOLE_TOKEN}, never printed, or one made up and printed at start ({@link
 * ConsoleToken}); it binds to the loopback address unless told otherwise.
 * Runs until the process is stopped.
 */
@Command(name = "console", description = "Serve the operations console on http://BIND:PORT/ until stopped (Ctrl-C). "
    + "Open the URL it prints: the access token in it is required (a cookie keeps it for the session). A token "
    + "in $SEGMENT_LEDGER_CONSOLE_TOKEN is never printed: add ?token=<it> to the URL yourself.")
final class ConsoleCommand extends LedgerCommand {
  @Option(names = "--bind", paramLabel = "ADDRESS", defaultValue = "127.0.0.1",
      description = "The address to listen on (default ${DEFAULT-VALUE}; 0.0.0.0 for every interface: put TLS in "
          + "front of it).")
  String bind;

  @Option(names = "--port", paramLabel = "PORT", defaultValue = "8090",
      description = "The port (default ${DEFAULT-VALUE}; 0 for any free port).")
  int port;

  @Option(names = "--reopen-enabled", description = "Let the console re-open terminal rows (after a confirmation "
      + "page) and repair in reconcile steps. Off by default.")
  boolean reopenEnabled;

  @Option(names = "--media-base-url", paramLabel = "URL", description = "Where the player reads playlists and "
      + "segments, through this console: the bucket's HTTP address (public-read, a CDN, an anonymous port).")
  URI mediaBaseUrl;

  @Option(names = "--hls-js", paramLabel = "FILE", description = "hls.min.js (npm package hls.js) for the player, "
      + "served by this console.")
  Path hlsJs;

  @Option(names = "--hls-js-url", paramLabel = "URL", description = "Where the browser loads hls.js from instead "
      + "(an https URL of yours or a CDN's).")
  String hlsJsUrl;

  @ArgGroup(exclusive = false, multiplicity = "0..1", heading = "The bucket, for reconcile steps (optional):%n")
  S3Options s3;

  @Override
  public Integer call() throws Exception {
    if (port < 0 || port > 65_535) {
      throw new IllegalArgumentException("--port must be from 0 to 65535, got " + port);
    }
    ConsoleToken token = ConsoleToken.from(System.getenv(ConsoleToken.VARIABLE));
    if (hlsJs != null && !java.nio.file.Files.isRegularFile(hlsJs)) {
      throw new CliFailure("--hls-js: no such file: " + Printable.escape(hlsJs));
    }
    JdbiStateStore store = database.open();
    S3Client client = s3 == null ? null : s3.client();
    LedgerConsole.Builder builder = LedgerConsole.builder().store(store).clock(root.clock).streamedBodies(true)
        .reopenEnabled(reopenEnabled).hlsJs(hlsJs).hlsJsUrl(hlsJsUrl);
    if (client != null) {
      builder.sink(s3.sink(client));
    }
    if (mediaBaseUrl != null) {
      builder.media(MediaSource.http(mediaBaseUrl));
    }
    ConsoleServer server = ConsoleServer.start(builder.build(), new InetSocketAddress(bind, port),
        token.value());
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.stop();
      if (client != null) {
        client.close();
      }
      stopped.countDown();
    }, "segment-ledger-console-stop"));
    out().println(token.startLine(server.url(), reopenEnabled));
    out().flush();
    stopped.await();
    return SegmentLedgerCli.EXIT_OK;
  }
}
