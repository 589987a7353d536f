package dev.segmentledger.examples;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.BroadcastStatus;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerBuilder;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.core.LedgerStats;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.Repackager;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.ffmpeg.FfmpegRepackager;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.s3.S3ObjectSink;
import dev.segmentledger.testkit.FakeRepackager;
import dev.segmentledger.testkit.LedgerEvents;
import dev.segmentledger.testkit.crash.CrashHooks;
import dev.segmentledger.testkit.crash.CrashMode;
import dev.segmentledger.testkit.crash.CrashPoint;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.jdbi.v3.core.Jdbi;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The recorder's uploader process: registers every closed chunk of a broadcast with a ledger on
 * PostgreSQL and S3, ends the broadcast, and waits until it is complete. Prints one line per
 * accept, store and confirm event, and the counters at the end. With {@code --crash-after-stored=N}
 * it stops dead at the N-th original stored but not yet confirmed, for the demo to SIGKILL it.
 */
public final class Uploader {
  static final String EVENT = "EVENT ";
  static final String COMPLETE = "BROADCAST-COMPLETE";

  private Uploader() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = Args.parse(args);
    String user = a.getOrDefault("jdbc-user", "");
    Jdbi jdbi = user.isEmpty() ? Jdbi.create(a.get("jdbc-url"))
        : Jdbi.create(a.get("jdbc-url"), user, a.getOrDefault("jdbc-password", ""));
    String endpoint = a.getOrDefault("s3-endpoint", "");
    S3Client s3 = S3Clients.create(endpoint.isEmpty() ? null : URI.create(endpoint), a.get("region"),
        Boolean.parseBoolean(a.get("embedded-s3")));
    Path root = Path.of(a.get("root"));
    String broadcast = a.get("broadcast");
    Repackager repackager = Boolean.parseBoolean(a.get("ffmpeg")) ? FfmpegRepackager.builder().build()
        : new FakeRepackager();
    StateStore store = JdbiStateStore.create(jdbi).migrate();
    ObjectSink sink = S3ObjectSink.builder().client(s3).bucket(a.get("bucket")).build();
    int crashAfter = Integer.parseInt(a.getOrDefault("crash-after-stored", "0"));

    LedgerEvents events = new LedgerEvents();
    EventPrinter printer = new EventPrinter();
    LedgerBuilder builder = Ledger.builder()
        .stateStore(store)
        .objectSink(sink)
        .allowedRoot(root)
        .repackager(repackager, root.resolve("playback"))
        .sweepInterval(Duration.ofMillis(200))
        // The same node id across restarts: a restarted uploader takes back at once the uploads
        // it held when it was killed, instead of waiting for their leases to expire.
        .nodeId("demo-uploader")
        .listener(printer)
        .listener(events);
    if (crashAfter > 0) {
      CrashHooks hooks = new CrashHooks(CrashPoint.AFTER_PUT_BEFORE_CONFIRM, Axis.ORIGINAL, crashAfter,
          CrashMode.SIGKILL_FROM_PARENT);
      builder.listener(hooks.listener());
    }
    try (Ledger ledger = builder.build()) {
      ledger.start();
      if (ledger.broadcastStatus(broadcast).phase() == BroadcastStatus.Phase.LIVE) {
        // Registering again after a restart is idempotent; once the broadcast has ended the
        // ledger refuses new registrations and recovers what it has.
        List<Path> chunks = chunks(root.resolve("rec").resolve(broadcast));
        for (int i = 0; i < chunks.size(); i++) {
          ledger.register(ItemId.original(broadcast, "720p", i), chunks.get(i));
        }
        ledger.endBroadcast(broadcast);
      } else {
        System.out.println("broadcast " + broadcast + " has ended: recovering its unconfirmed rows");
      }
      events.awaitUntil("the broadcast is complete",
          () -> ledger.broadcastStatus(broadcast).phase() == BroadcastStatus.Phase.COMPLETE, Duration.ofMinutes(5));
      // Its playlists are final (VOD, ENDLIST) only once published after completion: wait for both.
      events.awaitUntil("the final playlists are published",
          () -> printer.finalMedia && printer.finalMultivariant, Duration.ofMinutes(5));
      LedgerStats stats = ledger.stats();
      for (Axis axis : Axis.values()) {
        LedgerStats.AxisStats s = stats.axis(axis);
        System.out.printf("STATS %s accepted=%d stored=%d confirmed=%d failed=%d%n", axis, s.accepted(), s.stored(),
            s.confirmed(), s.failed());
      }
    }
    System.out.println(COMPLETE);
    s3.close();
  }

  private static List<Path> chunks(Path dir) throws Exception {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".ts")).sorted().toList();
    }
  }

  /** Progress: one line per event, which the demo counts per axis. */
  private static final class EventPrinter implements LedgerListener {
    volatile boolean finalMedia;
    volatile boolean finalMultivariant;

    @Override
    public void onPlaylistPublished(String broadcastId, String rendition, int entries, boolean complete) {
      System.out.println("PLAYLIST " + broadcastId + "/" + (rendition == null ? "(multivariant)" : rendition) + " "
          + entries + " entries" + (complete ? ", final" : ""));
      if (complete) {
        if (rendition == null) {
          finalMultivariant = true;
        } else {
          finalMedia = true;
        }
      }
    }

    @Override
    public void onAccepted(LedgerItem item) {
      print("accepted", item);
    }

    @Override
    public void onStored(LedgerItem item, StoredObjectInfo object) {
      print("stored", item);
    }

    @Override
    public void onConfirmed(LedgerItem item) {
      print("confirmed", item);
    }

    @Override
    public void onFailed(LedgerItem item, Reason reason, String detail, boolean terminal) {
      System.out.println("FAILED " + item.id() + " " + reason + (terminal ? " (terminal)" : " (will retry)"));
    }

    private static void print(String event, LedgerItem item) {
      System.out.println(EVENT + event + " " + item.id().axis() + " " + item.id());
    }
  }
}
