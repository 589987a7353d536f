package dev.segmentledger.core.internal;

import dev.segmentledger.core.Backoff;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.SinkException;
import dev.segmentledger.core.internal.PlaylistPlans.Plan;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.PlaylistPart;
import dev.segmentledger.core.spi.PlaylistRecord;
import dev.segmentledger.core.spi.PlaylistStore;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.core.spi.Tracing;
import dev.segmentledger.core.spi.Tracing.Span;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes playlists as part of the ledger: claims the playlists whose ledger state changed since
 * their last publication, or whose full playlist is due ({@link PlaylistStore#claimDue}), decides
 * what to PUT ({@link PlaylistPlans}: a media playlist's live window, and its full playlist at most
 * once per interval while live; both multivariant playlists), derives each text from the sealed
 * parts and the rows after them ({@link MediaPlaylistReader}, never every row of the broadcast),
 * records its entry count before the PUTs ({@link PlaylistStore#recordIntent}), PUTs them through
 * the {@link SinkBreaker} to their contract keys, raises the recorded peak bandwidth, seals the parts
 * the publication may seal, and records the publication ({@link PlaylistStore#recordPublished},
 * or {@link PlaylistStore#recordLivePublished} when the full playlist stays behind). A failure is
 * recorded with the ledger's backoff and retried by a later round, on any node.
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
 * until the next publication; {@code LedgerStats.clockSkew} shows the skew. Where the sink and the
 * store allow it, the bucket enforces the order even when that assumption fails: each object is
 * written only over the version last recorded as published ({@link PlaylistWrites}); a refused
 * publication overwrites nothing, records the versions found ({@link PlaylistStore#recordRefused},
 * with the reason {@value PlaylistWrites#REFUSED}) and is derived again from the ledger by a later round.
 *
 * <p>A round runs on the caller's thread ({@link #round()}), or spreads its publications over an
 * executor ({@link #round(Executor)}); {@link PlaylistScheduler} runs rounds in the background.
 * Thread-safe; concurrent rounds and publications never publish one playlist twice at once (the lease).
 */
final class PlaylistPublisher {
  private static final Logger log = LoggerFactory.getLogger(PlaylistPublisher.class);

  private final PlaylistStore playlists;
  private final SinkBreaker breaker;
  private final Duration breakerDelay;
  private final Clock clock;
  private final String owner;
  private final Duration lease;
  private final Backoff backoff;
  private final Events events;
  private final int batch;
  private final Tracing tracing;
  private final PlaylistPlans plans;
  private final PlaylistWrites writes;
  private volatile long awaiting;

  /**
   * @param windowSegments the fewest entries of a live window
   * @param fullInterval the shortest time between two PUTs of a live full playlist (zero: every publication)
   */
  PlaylistPublisher(StateStore store, ObjectSink sink, SinkBreaker breaker, Duration breakerDelay, Clock clock,
      String owner, Duration lease, Backoff backoff, Events events, int batch, Tracing tracing, int windowSegments,
      Duration fullInterval) {
    this.plans = new PlaylistPlans(store, windowSegments, fullInterval);
    this.playlists = store.playlists();
    this.writes = new PlaylistWrites(sink, breaker, playlists.recordsEtags());
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
   * One round on the caller's thread ({@link #round(Executor)} with a direct executor).
   *
   * @return the number of playlists published
   */
  int round() {
    return round(Runnable::run).published();
  }

  /**
   * What a round did.
   *
   * @param claimed the playlists it claimed
   * @param published of those, the ones it published
   * @param full whether it claimed a whole batch, so that more playlists may be due now
   */
  record RoundResult(int claimed, int published, boolean full) {}

  /**
   * One round: claims up to a batch of due playlists and publishes them on {@code executor}, each
   * publication a task of its own (a playlist's work is serial; different playlists' PUTs overlap):
   * the media playlists first, then, once those ended, the multivariant ones (a media publication may
   * raise the peak bandwidth a multivariant one announces). Returns once every publication ended;
   * a publication's failure (an Error included) is thrown once every other one of its phase ended,
   * and an interrupt of the waiting thread ends the wait with a {@link CancellationException}.
   */
  RoundResult round(Executor executor) {
    Instant now = clock.instant();
    Instant until = now.plus(lease);
    List<PlaylistRecord> claimed = playlists.claimDue(owner, until, now, batch);
    int published = publishAll(claimed.stream().filter(r -> !r.multivariant()).toList(), until, executor)
        + publishAll(claimed.stream().filter(PlaylistRecord::multivariant).toList(), until, executor);
    awaiting = playlists.countAwaitingPublication();
    return new RoundResult(claimed.size(), published, claimed.size() >= batch);
  }

  private int publishAll(List<PlaylistRecord> records, Instant until, Executor executor) {
    List<CompletableFuture<Boolean>> publications = new ArrayList<>(records.size());
    for (PlaylistRecord record : records) {
      publications.add(CompletableFuture.supplyAsync(() -> publish(record, until), executor));
    }
    try { // every publication of the phase ends (or the wait is interrupted) before any failure is thrown
      CompletableFuture.allOf(publications.toArray(new CompletableFuture<?>[0])).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CancellationException("interrupted while " + records.size()
          + " playlist publications were in flight; their leases expire");
    } catch (ExecutionException e) {
      // one failed; every one has ended: counted and rethrown below
    }
    int published = 0;
    Throwable first = null;
    for (CompletableFuture<Boolean> publication : publications) {
      try {
        published += publication.join() ? 1 : 0;
      } catch (CompletionException e) {
        first = first == null ? e.getCause() : first;
      }
    }
    if (first instanceof Error error) {
      throw error;
    }
    if (first != null) {
      throw first instanceof RuntimeException runtime ? runtime : new CompletionException(first);
    }
    return published;
  }

  /** Publishes one claimed playlist, traced; every outcome is recorded on its record. */
  private boolean publish(PlaylistRecord record, Instant until) {
    Span span = tracing.root("segment-ledger.playlist.publish").tag("broadcast", record.broadcastId())
        .tag("rendition", record.rendition() == null ? "(multivariant)" : record.rendition());
    try {
      boolean published = publishTraced(record, until);
      span.tag("published", String.valueOf(published)).end();
      return published;
    } catch (RuntimeException | Error e) {
      span.end(e);
      throw e;
    }
  }

  private boolean publishTraced(PlaylistRecord record, Instant until) {
    String broadcast = record.broadcastId();
    String rendition = record.rendition();
    String key = rendition == null ? ObjectKeys.multivariantPlaylistKey(broadcast)
        : ObjectKeys.mediaPlaylistKey(broadcast, rendition);
    try {
      Plan plan = plans.plan(record, clock.instant());
      if (plan == null) { // nothing playable yet: this change is covered by having nothing to show
        playlists.recordPublished(broadcast, rendition, owner, until, record.wanted(), record.publishedChecksum(),
            clock.instant());
        return false;
      }
      if (!playlists.recordIntent(broadcast, rendition, owner, until, plan.entries(), plan.complete())) {
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
      PlaylistWrites.Written written = writes.write(record, plan);
      if (written.refused()) {
        refused(record, until, written);
        return false;
      }
      // The peak before the seal: once sealed, a part's rows are no longer read, and a failure between
      // the two would otherwise lose their bit rate (the parts' peaks are folded in as well).
      if (plan.peakBandwidth() > record.peakBandwidth()) {
        playlists.raisePeakBandwidth(broadcast, rendition, owner, until, plan.peakBandwidth(), clock.instant());
      }
      for (PlaylistPart part : plan.seal()) { // while the lease is held
        playlists.sealPart(part);
      }
      boolean recorded = plan.full()
          ? playlists.recordPublished(broadcast, rendition, owner, until, plan.coveredWanted(), written.checksum(),
              written.liveEtag(), written.fullEtag(), clock.instant())
          : playlists.recordLivePublished(broadcast, rendition, owner, until, plan.coveredWanted(), plan.fullDueAt(),
              written.liveEtag(), clock.instant());
      if (!recorded) {
        log.warn("playlist {} was PUT but its lease had been taken over; the new holder publishes again", key);
        return false;
      }
      events.onPlaylistPublished(broadcast, rendition, plan.entries(), plan.complete());
      return true;
    } catch (SinkException e) {
      fail(record, until, key, e.getCause() == null ? e.getMessage() : e.getMessage() + ": " + e.getCause(),
          e.failureKind() == SinkException.Kind.CONFIGURATION);
    } catch (RuntimeException e) { // the store failed, or a sink broke its contract: retried later
      fail(record, until, key, String.valueOf(e), false);
    }
    return false;
  }

  /**
   * The bucket refused a conditional write: the object is not the version this node last published.
   * Nothing is overwritten; the versions found are recorded, with the backoff of a failure, and a
   * later round (on any node) derives the playlist again from the ledger and writes over them.
   */
  private void refused(PlaylistRecord record, Instant until, PlaylistWrites.Written written) {
    String detail = PrintableText.escape(written.refusal());
    Instant now = clock.instant();
    if (!playlists.recordRefused(record.broadcastId(), record.rendition(), owner, until, written.liveEtag(),
        written.fullEtag(), detail, now.plus(backoff.delayAfter(record.attempts() + 1, ThreadLocalRandom.current())),
        now)) {
      log.debug("playlist {} was refused and its lease had been taken over; left to its new holder",
          written.refusedKey());
    }
    events.onPlaylistRefused(record.broadcastId(), record.rendition(), written.refusedKey(), detail);
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

}
