package dev.segmentledger.it.browser;

import dev.segmentledger.core.BroadcastStatus;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.ffmpeg.Cli;
import dev.segmentledger.ffmpeg.FfmpegRepackager;
import dev.segmentledger.testkit.LedgerEvents;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A started ledger that repackages with ffmpeg and publishes its own playlists, as the browser
 * tests that play what the ledger published run it: fast sweeps, two workers, every publication
 * printed. It keeps which final playlists it published, so that a test can wait for a broadcast's
 * end to reach the bucket. Closing it closes the ledger.
 */
final class PublishingLedger implements AutoCloseable {
  private static final String MULTIVARIANT = "master";

  private final LedgerEvents events = new LedgerEvents();
  private final Set<String> finals = ConcurrentHashMap.newKeySet();
  private final Ledger ledger;

  /** Builds and starts the ledger on {@code store} and {@code sink}, reading files under {@code root}. */
  PublishingLedger(StateStore store, ObjectSink sink, Path root) {
    ledger = Ledger.builder()
        .stateStore(store)
        .objectSink(sink)
        .allowedRoot(root)
        .repackager(repackager(), root.resolve("playback"))
        .sweepInterval(Duration.ofMillis(100))
        .workers(2)
        .listener(events)
        .listener(new LedgerListener() {
          @Override
          public void onPlaylistPublished(String broadcastId, String rendition, int entries, boolean complete) {
            System.out.printf("playlist published: %s %s, %d entries%s%n", broadcastId,
                rendition == null ? "(multivariant)" : rendition, entries, complete ? ", final" : "");
            if (complete) {
              finals.add(rendition == null ? MULTIVARIANT : rendition);
            }
          }
        })
        .build();
    ledger.start();
  }

  /** The repackager the ledger uses (ffmpeg and ffprobe from {@link Cli}, 60 s per call). */
  static FfmpegRepackager repackager() {
    return FfmpegRepackager.builder().ffmpeg(Cli.FFMPEG).ffprobe(Cli.FFPROBE).timeout(Duration.ofSeconds(60)).build();
  }

  Ledger ledger() {
    return ledger;
  }

  /** The ledger's events, for a test to wait on. */
  LedgerEvents events() {
    return events;
  }

  /**
   * Waits until {@code broadcastId} is complete and its final playlists are published: the media
   * playlist of {@code rendition} and the multivariant playlist.
   */
  void awaitFinalPlaylists(String broadcastId, String rendition, Duration timeout) throws InterruptedException {
    events.awaitUntil("the broadcast is complete and its final playlists are published",
        () -> ledger.broadcastStatus(broadcastId).phase() == BroadcastStatus.Phase.COMPLETE
            && finals.containsAll(Set.of(MULTIVARIANT, rendition)), timeout);
  }

  @Override
  public void close() {
    ledger.close();
  }
}
