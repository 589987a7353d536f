package dev.segmentledger.testkit;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.spi.PlaylistPart;
import dev.segmentledger.core.spi.PlaylistRecord;
import dev.segmentledger.core.spi.PlaylistStore;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * The {@link PlaylistStore} of an {@link InMemoryStateStore}: every method synchronizes on that
 * store, so that a change of rows and the increment of the playlists it alters are one atomic step.
 * Thread-safe.
 */
final class InMemoryPlaylists implements PlaylistStore {
  private static final String MULTIVARIANT = "";

  private final Object lock;
  private final Predicate<String> ended;
  private final Predicate<PlaylistPart> settled;
  /** By broadcast, then rendition ({@value #MULTIVARIANT} for the multivariant playlist). */
  private final TreeMap<String, TreeMap<String, PlaylistRecord>> records = new TreeMap<>();
  /** Sealed parts by broadcast, then rendition, then first sequence. */
  private final TreeMap<String, TreeMap<String, TreeMap<Long, PlaylistPart>>> parts = new TreeMap<>();

  /**
   * @param ended whether a broadcast has ended; called with {@code lock} held
   * @param settled whether every row a part covers is settled; called with {@code lock} held
   */
  InMemoryPlaylists(Object lock, Predicate<String> ended, Predicate<PlaylistPart> settled) {
    this.lock = lock;
    this.ended = ended;
    this.settled = settled;
  }

  /**
   * The ledger changed row {@code id}: increments the playlists that change with it (its media
   * playlist for a PLAYBACK or INIT row, the multivariant one for an INIT row only). Call with the
   * lock held.
   */
  void rowChanged(ItemId id, Instant at) {
    if (id.axis() != Axis.ORIGINAL) {
      bump(id.broadcastId(), id.rendition(), at);
    }
    if (id.axis() == Axis.INIT) {
      bump(id.broadcastId(), MULTIVARIANT, at);
    }
    if (ended.test(id.broadcastId())) {
      broadcastChanged(id.broadcastId(), at);
    }
  }

  /** Row {@code id} was re-opened: removes the parts that cover it, then as {@link #rowChanged}. Call with the lock held. */
  void rowReopened(ItemId id, Instant at) {
    if (id.axis() == Axis.PLAYBACK) {
      TreeMap<Long, PlaylistPart> of = partsOf(id.broadcastId(), id.rendition(), false);
      Map.Entry<Long, PlaylistPart> covering = of == null ? null : of.floorEntry(id.sequence());
      if (covering != null && covering.getValue().nextSequence() > id.sequence()) {
        of.tailMap(covering.getKey(), true).clear(); // it and every later part
      } else if (of != null) {
        of.tailMap(id.sequence(), false).clear();
      }
    }
    rowChanged(id, at);
  }

  /** The broadcast's rows are being purged: its parts go with them. Call with the lock held. */
  void broadcastPurged(String broadcastId) {
    parts.remove(broadcastId);
  }

  /** The broadcast ended or completed: increments each of its playlists once. Call with the lock held. */
  void broadcastChanged(String broadcastId, Instant at) {
    TreeMap<String, PlaylistRecord> of = records.get(broadcastId);
    if (of != null) {
      for (String rendition : List.copyOf(of.keySet())) {
        bump(broadcastId, rendition, at);
      }
    }
  }

  private void bump(String broadcastId, String rendition, Instant at) {
    TreeMap<String, PlaylistRecord> of = records.computeIfAbsent(broadcastId, b -> new TreeMap<>());
    PlaylistRecord r = of.get(rendition);
    of.put(rendition, r == null
        ? new PlaylistRecord(broadcastId, external(rendition), 1, 0, 0, false, null, null, null, 0, null, micros(at))
        : new PlaylistRecord(broadcastId, r.rendition(), r.wanted() + 1, r.published(), r.publishedEntries(),
            r.publishedFinal(), r.publishedChecksum(), r.leaseOwner(), r.leaseUntil(), r.attempts(), r.lastError(),
            micros(at), r.fullDueAt(), r.peakBandwidth(), r.liveEtag(), r.fullEtag()));
  }

  @Override
  public List<PlaylistRecord> claimDue(String owner, Instant leaseUntil, Instant now, int limit) {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(leaseUntil, "leaseUntil");
    Objects.requireNonNull(now, "now");
    StoreArguments.requirePositiveLimit(limit);
    synchronized (lock) {
      List<PlaylistRecord> due = records.values().stream().flatMap(m -> m.values().stream())
          .filter(r -> (r.awaitingPublication() || (r.fullDueAt() != null && !r.fullDueAt().isAfter(now)))
              && (r.leaseUntil() == null || !r.leaseUntil().isAfter(now)))
          .sorted(Comparator.comparing(PlaylistRecord::updatedAt))
          .limit(limit)
          .toList();
      List<PlaylistRecord> claimed = new ArrayList<>();
      for (PlaylistRecord r : due) {
        PlaylistRecord c = new PlaylistRecord(r.broadcastId(), r.rendition(), r.wanted(), r.published(),
            r.publishedEntries(), r.publishedFinal(), r.publishedChecksum(), owner, micros(leaseUntil), r.attempts(),
            r.lastError(), r.updatedAt(), r.fullDueAt(), r.peakBandwidth(), r.liveEtag(), r.fullEtag());
        put(c);
        claimed.add(c);
      }
      return claimed;
    }
  }

  @Override
  public boolean recordIntent(String broadcastId, String rendition, String owner, Instant heldUntil, int entries,
      boolean complete) {
    return update(broadcastId, rendition, owner, heldUntil, r -> new PlaylistRecord(r.broadcastId(), r.rendition(),
        r.wanted(), r.published(), Math.max(r.publishedEntries(), entries), r.publishedFinal() || complete,
        r.publishedChecksum(), r.leaseOwner(), r.leaseUntil(), r.attempts(), r.lastError(), r.updatedAt(),
        r.fullDueAt(), r.peakBandwidth()));
  }

  @Override
  public boolean recordPublished(String broadcastId, String rendition, String owner, Instant heldUntil,
      long coveredWanted, String checksum, Instant at) {
    Objects.requireNonNull(at, "at");
    return update(broadcastId, rendition, owner, heldUntil, r -> new PlaylistRecord(r.broadcastId(), r.rendition(),
        r.wanted(), Math.max(r.published(), coveredWanted), r.publishedEntries(), r.publishedFinal(), checksum, null,
        null, 0, null, micros(at), null, r.peakBandwidth()));
  }

  /** {@inheritDoc} {@code true}: the ETags are kept with the records. */
  @Override
  public boolean recordsEtags() {
    return true;
  }

  @Override
  public boolean recordPublished(String broadcastId, String rendition, String owner, Instant heldUntil,
      long coveredWanted, String checksum, String liveEtag, String fullEtag, Instant at) {
    Objects.requireNonNull(at, "at");
    return updateWithEtags(broadcastId, rendition, owner, heldUntil, r -> new PlaylistRecord(r.broadcastId(),
        r.rendition(), r.wanted(), Math.max(r.published(), coveredWanted), r.publishedEntries(), r.publishedFinal(),
        checksum, null, null, 0, null, micros(at), null, r.peakBandwidth(), liveEtag, fullEtag));
  }

  @Override
  public boolean recordLivePublished(String broadcastId, String rendition, String owner, Instant heldUntil,
      long coveredWanted, Instant fullDueAt, String liveEtag, Instant at) {
    synchronized (lock) {
      return recordLivePublished(broadcastId, rendition, owner, heldUntil, coveredWanted, fullDueAt, at)
          && updateEtags(broadcastId, rendition, liveEtag, null, true);
    }
  }

  @Override
  public boolean recordRefused(String broadcastId, String rendition, String owner, Instant heldUntil,
      String liveEtag, String fullEtag, String detail, Instant nextAttemptAt, Instant at) {
    synchronized (lock) {
      return recordFailure(broadcastId, rendition, owner, heldUntil, detail, nextAttemptAt, at)
          && updateEtags(broadcastId, rendition, liveEtag, fullEtag, false);
    }
  }

  /** Sets the ETags of a record just updated under the lock (the full one kept if {@code keepFull}). */
  private boolean updateEtags(String broadcastId, String rendition, String liveEtag, String fullEtag,
      boolean keepFull) {
    PlaylistRecord r = records.get(broadcastId).get(internal(rendition));
    put(r.withEtags(liveEtag, keepFull ? r.fullEtag() : fullEtag));
    return true;
  }

  @Override
  public boolean recordFailure(String broadcastId, String rendition, String owner, Instant heldUntil, String detail,
      Instant nextAttemptAt, Instant at) {
    Objects.requireNonNull(nextAttemptAt, "nextAttemptAt");
    Objects.requireNonNull(at, "at");
    return update(broadcastId, rendition, owner, heldUntil, r -> new PlaylistRecord(r.broadcastId(), r.rendition(),
        r.wanted(), r.published(), r.publishedEntries(), r.publishedFinal(), r.publishedChecksum(), null,
        micros(nextAttemptAt), r.attempts() + 1, detail, micros(at), r.fullDueAt(), r.peakBandwidth()));
  }

  @Override
  public boolean release(String broadcastId, String rendition, String owner, Instant heldUntil, Instant dueAt) {
    Objects.requireNonNull(dueAt, "dueAt");
    return update(broadcastId, rendition, owner, heldUntil, r -> new PlaylistRecord(r.broadcastId(), r.rendition(),
        r.wanted(), r.published(), r.publishedEntries(), r.publishedFinal(), r.publishedChecksum(), null,
        micros(dueAt), r.attempts(), r.lastError(), r.updatedAt(), r.fullDueAt(), r.peakBandwidth()));
  }

  @Override
  public void requestPublication(String broadcastId, String rendition, Instant at) {
    Objects.requireNonNull(broadcastId, "broadcastId");
    Objects.requireNonNull(at, "at");
    synchronized (lock) {
      bump(broadcastId, internal(rendition), at);
      if (rendition != null) { // its full playlist is due now, changed or not (a repair)
        TreeMap<String, PlaylistRecord> of = records.get(broadcastId);
        PlaylistRecord r = of.get(rendition);
        Instant due = r.fullDueAt() == null || micros(at).isBefore(r.fullDueAt()) ? micros(at) : r.fullDueAt();
        of.put(rendition, new PlaylistRecord(r.broadcastId(), r.rendition(), r.wanted(), r.published(),
            r.publishedEntries(), r.publishedFinal(), r.publishedChecksum(), r.leaseOwner(), r.leaseUntil(),
            r.attempts(), r.lastError(), r.updatedAt(), due, r.peakBandwidth(), r.liveEtag(), r.fullEtag()));
      }
    }
  }

  @Override
  public List<PlaylistRecord> find(String broadcastId) {
    Objects.requireNonNull(broadcastId, "broadcastId");
    synchronized (lock) {
      TreeMap<String, PlaylistRecord> of = records.get(broadcastId);
      if (of == null) {
        return List.of();
      }
      List<PlaylistRecord> result = new ArrayList<>(of.tailMap(MULTIVARIANT, false).values());
      if (of.containsKey(MULTIVARIANT)) {
        result.add(of.get(MULTIVARIANT));
      }
      return result;
    }
  }

  @Override
  public long countAwaitingPublication() {
    synchronized (lock) {
      return records.values().stream().flatMap(m -> m.values().stream())
          .filter(PlaylistRecord::awaitingPublication).count();
    }
  }

  /**
   * Applies {@code change} if {@code owner} holds the lease ending at {@code heldUntil}; the ETags
   * are kept as they were.
   */
  private boolean update(String broadcastId, String rendition, String owner, Instant heldUntil,
      UnaryOperator<PlaylistRecord> change) {
    return updateWithEtags(broadcastId, rendition, owner, heldUntil,
        r -> change.apply(r).withEtags(r.liveEtag(), r.fullEtag()));
  }

  /** Applies {@code change}, ETags included, if {@code owner} holds the lease ending at {@code heldUntil}. */
  private boolean updateWithEtags(String broadcastId, String rendition, String owner, Instant heldUntil,
      UnaryOperator<PlaylistRecord> change) {
    Objects.requireNonNull(broadcastId, "broadcastId");
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(heldUntil, "heldUntil");
    synchronized (lock) {
      TreeMap<String, PlaylistRecord> of = records.get(broadcastId);
      PlaylistRecord r = of == null ? null : of.get(internal(rendition));
      if (r == null || !owner.equals(r.leaseOwner()) || !micros(heldUntil).equals(r.leaseUntil())) {
        return false;
      }
      put(change.apply(r));
      return true;
    }
  }

  private void put(PlaylistRecord r) {
    records.computeIfAbsent(r.broadcastId(), b -> new TreeMap<>()).put(internal(r.rendition()), r);
  }

  private static String internal(String rendition) {
    return rendition == null ? MULTIVARIANT : rendition;
  }

  private static String external(String rendition) {
    return rendition.isEmpty() ? null : rendition;
  }

  private static Instant micros(Instant instant) {
    return instant.truncatedTo(ChronoUnit.MICROS);
  }

  @Override
  public boolean recordLivePublished(String broadcastId, String rendition, String owner, Instant heldUntil,
      long coveredWanted, Instant fullDueAt, Instant at) {
    Objects.requireNonNull(fullDueAt, "fullDueAt");
    Objects.requireNonNull(at, "at");
    return update(broadcastId, rendition, owner, heldUntil, r -> new PlaylistRecord(r.broadcastId(), r.rendition(),
        r.wanted(), Math.max(r.published(), coveredWanted), r.publishedEntries(), r.publishedFinal(),
        r.publishedChecksum(), null, null, 0, null, micros(at),
        r.fullDueAt() == null || micros(fullDueAt).isBefore(r.fullDueAt()) ? micros(fullDueAt) : r.fullDueAt(),
        r.peakBandwidth()));
  }

  @Override
  public boolean raisePeakBandwidth(String broadcastId, String rendition, String owner, Instant heldUntil,
      long bitsPerSecond, Instant at) {
    Objects.requireNonNull(rendition, "rendition");
    Objects.requireNonNull(at, "at");
    synchronized (lock) {
      boolean[] rose = {false};
      boolean held = update(broadcastId, rendition, owner, heldUntil, r -> {
        if (bitsPerSecond <= r.peakBandwidth()) {
          return r;
        }
        rose[0] = true;
        return new PlaylistRecord(r.broadcastId(), r.rendition(), r.wanted(), r.published(), r.publishedEntries(),
            r.publishedFinal(), r.publishedChecksum(), r.leaseOwner(), r.leaseUntil(), r.attempts(), r.lastError(),
            r.updatedAt(), r.fullDueAt(), bitsPerSecond);
      });
      if (held && rose[0]) {
        bump(broadcastId, MULTIVARIANT, at);
      }
      return held && rose[0];
    }
  }

  @Override
  public List<PlaylistPart> parts(String broadcastId, String rendition) {
    Objects.requireNonNull(broadcastId, "broadcastId");
    Objects.requireNonNull(rendition, "rendition");
    synchronized (lock) {
      TreeMap<Long, PlaylistPart> of = partsOf(broadcastId, rendition, false);
      return of == null ? List.of() : List.copyOf(of.values());
    }
  }

  @Override
  public List<PlaylistPart> partSummaries(String broadcastId, String rendition) {
    return parts(broadcastId, rendition).stream().map(p -> new PlaylistPart(p.broadcastId(), p.rendition(),
        p.firstSequence(), p.nextSequence(), p.entries(), p.discontinuities(), p.targetSeconds(), p.peakBandwidth(),
        "")).toList();
  }

  /**
   * {@inheritDoc}
   *
   * <p>Also refuses a part that covers a row no longer settled: a publisher that read a row before
   * its re-open and seals after it cannot leave a part the re-open could not remove.
   */
  @Override
  public boolean sealPart(PlaylistPart part) {
    Objects.requireNonNull(part, "part");
    synchronized (lock) {
      if (!settled.test(part)) {
        return false;
      }
      TreeMap<Long, PlaylistPart> of = partsOf(part.broadcastId(), part.rendition(), true);
      if (!of.isEmpty() && of.lastEntry().getValue().nextSequence() != part.firstSequence()) {
        return false; // only at the end of the chain
      }
      of.put(part.firstSequence(), part);
      return true;
    }
  }

  private TreeMap<Long, PlaylistPart> partsOf(String broadcastId, String rendition, boolean create) {
    if (!create) {
      TreeMap<String, TreeMap<Long, PlaylistPart>> of = parts.get(broadcastId);
      return of == null ? null : of.get(rendition);
    }
    return parts.computeIfAbsent(broadcastId, b -> new TreeMap<>()).computeIfAbsent(rendition, r -> new TreeMap<>());
  }
}
