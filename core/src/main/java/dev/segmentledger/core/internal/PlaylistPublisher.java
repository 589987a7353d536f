package dev.segmentledger.core.internal;

import dev.segmentledger.core.Backoff;
import dev.segmentledger.core.BroadcastStatus;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.internal.PrintableText;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.PlaylistRecord;
import dev.segmentledger.core.spi.PlaylistStore;
import dev.segmentledger.core.spi.Tracing;
import dev.segmentledger.core.spi.Tracing.Span;
import dev.segmentledger.core.spi.Sha256Checksum;
import dev.segmentledger.core.spi.SinkException;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.core.spi.UploadContent;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes playlists as part of the ledger: claims the playlists whose ledger state changed since
 * their last publication ({@link PlaylistStore#claimDue}), derives each text from the rows
 * ({@link PlaylistTexts}), records its entry count before the PUT ({@link PlaylistStore#recordIntent}),
 * PUTs it through the {@link SinkBreaker} to its contract key, and records the publication
 * ({@link PlaylistStore#recordPublished}). A failure is recorded with the ledger's backoff and retried
 * by a later round, on any node.
 *
 * <p><b>Never backwards.</b> A publication lists at least the recorded {@code publishedEntries} (a
 * position that became unconfirmed again is a gap), which is raised before each PUT, so a kill
 * between PUT and record cannot make the next publication shorter. Only the lease holder PUTs, and
 * only while at least half of its lease remains: this is the fencing assumption, that a playlist
 * PUT (the sink's timeouts and retries included) completes within half the lease duration, so that
 * no stale PUT lands after another node took the playlist over. Playlist leases are written and
 * judged by the nodes' own clocks (the ledger's clock, not the store's: {@link PlaylistStore#claimDue}
 * takes no duration), so this fencing also assumes the nodes' clocks agree to well within half the
 * lease; a node whose clock runs ahead may take a live playlist lease over. A publication never
 * lists fewer entries than recorded, so the cost is a doubled PUT, and possibly a stale playlist
 * until the next publication; {@code LedgerStats.clockSkew} shows the skew.
 *
 * <p>Rounds run on the caller's thread ({@link #round}); {@link PlaylistScheduler} runs them in the
 * background. Thread-safe; concurrent rounds never publish one playlist twice at once (the lease).
 */
final class PlaylistPublisher {
  private static final Logger log = LoggerFactory.getLogger(PlaylistPublisher.class);

  private final StateStore store;
  private final PlaylistStore playlists;
  private final ObjectSink sink;
  private final SinkBreaker breaker;
  private final Duration breakerDelay;
  private final Clock clock;
  private final String owner;
  private final Duration lease;
  private final Backoff backoff;
  private final Events events;
  private final int batch;
  private final Tracing tracing;
  private volatile long awaiting;

  PlaylistPublisher(StateStore store, ObjectSink sink, SinkBreaker breaker, Duration breakerDelay, Clock clock,
      String owner, Duration lease, Backoff backoff, Events events, int batch, Tracing tracing) {
    this.store = store;
    this.playlists = store.playlists();
    this.sink = sink;
    this.breaker = breaker;
    this.breakerDelay = breakerDelay;
    this.clock = clock;
    this.owner = owner;
    this.lease = lease;
    this.backoff = backoff;
    this.tracing = tracing;
    this.events = events;
    this.batch = batch;
  }

  /** The playlists awaiting publication in the store, as counted at the end of the last round. */
  long awaiting() {
    return awaiting;
  }

  /**
   * One round: claims up to a batch of due playlists and publishes each.
   *
   * @return the number of playlists published
   */
  int round() {
    Instant now = clock.instant();
    Instant until = now.plus(lease);
    List<PlaylistRecord> claimed = playlists.claimDue(owner, until, now, batch);
    Map<String, Snapshot> snapshots = new HashMap<>(); // the rows of each broadcast, read once per round
    int published = 0;
    for (PlaylistRecord record : claimed) {
      if (publish(record, until, snapshots)) {
        published++;
      }
    }
    awaiting = playlists.countAwaitingPublication();
    return published;
  }

  /** A broadcast's rows, and whether it is complete, as read after the round's claim. */
  private record Snapshot(List<LedgerItem> rows, boolean complete) {}

  private Snapshot snapshot(String broadcast) {
    List<LedgerItem> rows = store.findByBroadcast(broadcast);
    return new Snapshot(rows, BroadcastViews.status(broadcast, store.findBroadcast(broadcast), rows).phase()
        == BroadcastStatus.Phase.COMPLETE);
  }

  /** Publishes one claimed playlist, traced; every outcome is recorded on its record. */
  private boolean publish(PlaylistRecord record, Instant until, Map<String, Snapshot> snapshots) {
    Span span = tracing.root("segment-ledger.playlist.publish").tag("broadcast", record.broadcastId())
        .tag("rendition", record.rendition() == null ? "(multivariant)" : record.rendition());
    try {
      boolean published = publishTraced(record, until, snapshots);
      span.tag("published", String.valueOf(published)).end();
      return published;
    } catch (RuntimeException | Error e) {
      span.end(e);
      throw e;
    }
  }

  private boolean publishTraced(PlaylistRecord record, Instant until, Map<String, Snapshot> snapshots) {
    String broadcast = record.broadcastId();
    String rendition = record.rendition();
    String key = rendition == null ? ObjectKeys.multivariantPlaylistKey(broadcast)
        : ObjectKeys.mediaPlaylistKey(broadcast, rendition);
    try {
      Snapshot snapshot = snapshots.computeIfAbsent(broadcast, this::snapshot);
      List<LedgerItem> rows = snapshot.rows();
      boolean complete = record.publishedFinal() || snapshot.complete();
      PlaylistTexts.Text text = rendition == null ? PlaylistTexts.multivariant(rows, complete)
          : PlaylistTexts.media(broadcast, rendition, rows, complete, record.publishedEntries());
      if (text == null) { // nothing playable yet: this change is covered by having nothing to show
        playlists.recordPublished(broadcast, rendition, owner, until, record.wanted(), record.publishedChecksum(),
            clock.instant());
        return false;
      }
      if (!playlists.recordIntent(broadcast, rendition, owner, until, text.entries(), text.complete())) {
        log.debug("playlist {} was taken over before its PUT; left to its new holder", key);
        return false;
      }
      if (clock.instant().plus(lease.dividedBy(2)).isAfter(until)) {
        playlists.release(broadcast, rendition, owner, until, clock.instant());
        log.info("playlist {} not PUT: less than half its lease left; released for the next round", key);
        return false;
      }
      if (!breaker.tryAcquire()) {
        playlists.release(broadcast, rendition, owner, until, clock.instant().plus(breakerDelay));
        return false;
      }
      byte[] bytes = text.text().getBytes(StandardCharsets.UTF_8);
      StoredObjectInfo stored = put(key, bytes);
      String checksum = stored.checksum() != null ? stored.checksum() : sha256(bytes);
      if (!playlists.recordPublished(broadcast, rendition, owner, until, record.wanted(), checksum,
          clock.instant())) {
        log.warn("playlist {} was PUT but its lease had been taken over; the new holder publishes again", key);
        return false;
      }
      events.onPlaylistPublished(broadcast, rendition, text.entries(), text.complete());
      return true;
    } catch (SinkException e) {
      fail(record, until, key, e.getCause() == null ? e.getMessage() : e.getMessage() + ": " + e.getCause(),
          e.kind() == SinkException.Kind.CONFIGURATION);
    } catch (RuntimeException e) { // the store failed, or a sink broke its contract: retried later
      fail(record, until, key, String.valueOf(e), false);
    }
    return false;
  }

  /** The PUT through the breaker, counted as an item's PUT is ({@link Uploader}). */
  private StoredObjectInfo put(String key, byte[] bytes) {
    StoredObjectInfo stored = breaker.call(() -> sink.put(key, content(bytes), true));
    if (stored.sizeBytes() != bytes.length) {
      throw SinkException.retryable("sink reports " + stored.sizeBytes() + " bytes at " + key + ", PUT "
          + bytes.length, null);
    }
    return stored;
  }

  /** @param configuration a refusal of the sink's configuration: the breaker logs its cause once per opening */
  private void fail(PlaylistRecord record, Instant until, String key, String rawDetail, boolean configuration) {
    String detail = PrintableText.escape(rawDetail);
    Instant now = clock.instant();
    try {
      playlists.recordFailure(record.broadcastId(), record.rendition(), owner, until, detail,
          now.plus(backoff.delayAfter(record.attempts() + 1, ThreadLocalRandom.current())), now);
    } catch (RuntimeException e) {
      log.warn("could not record the failed publication of {}; its lease expires and it is retried", key, e);
    }
    if (configuration) {
      log.debug("playlist {} not published (attempt {}): {}", key, record.attempts() + 1, detail);
    } else {
      log.info("playlist {} not published (attempt {}): {}", key, record.attempts() + 1, detail);
    }
  }

  private static UploadContent content(byte[] bytes) {
    return new UploadContent() {
      @Override
      public long size() {
        return bytes.length;
      }

      @Override
      public InputStream openStream() {
        return new ByteArrayInputStream(bytes);
      }
    };
  }

  private static String sha256(byte[] bytes) {
    try {
      return Sha256Checksum.of(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }
}
