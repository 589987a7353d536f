package dev.segmentledger.core.internal;

import dev.segmentledger.core.Checksums;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.Sha256Checksum;
import dev.segmentledger.core.internal.MediaPlaylistReader.Completion;
import dev.segmentledger.core.internal.PlaylistTexts.Text;
import dev.segmentledger.core.internal.PlaylistTexts.Variant;
import dev.segmentledger.core.spi.BroadcastRecord;
import dev.segmentledger.core.spi.PlaylistPart;
import dev.segmentledger.core.spi.PlaylistRecord;
import dev.segmentledger.core.spi.StateStore;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Decides what one publication of a claimed playlist PUTs and records (see docs/design.md,
 * "Playlists"):
 *
 * <ul>
 *   <li>a media playlist: its live window always, first (the live edge's latency); its full
 *       playlist only when it is due: never published yet, final (complete), or its
 *       {@link PlaylistRecord#fullDueAt} has come. Otherwise the publication is recorded as
 *       live-only, with the full playlist due {@code fullInterval} later, so that a live full
 *       playlist is PUT at most once per interval. A full text equal to the one last published
 *       (a reconciler's repair, or a change beyond a stalled position) is PUT only if the object
 *       is missing or different, and recorded as a full publication. The full text is rendered
 *       and hashed only when it may be PUT: when it is due by the record (a reconciler's repair
 *       makes it due: {@link dev.segmentledger.core.spi.PlaylistStore#requestPublication}) or the
 *       broadcast has ended. A live-only publication reads one summary of the parts
 *       ({@link dev.segmentledger.core.spi.PlaylistStore#sealedSummary}), not their text, once;
 *   <li>the multivariant playlist: {@code master.m3u8} and {@code live.m3u8}, listing each
 *       rendition whose media playlist was ever published with entries, or whose INIT is confirmed,
 *       with its media playlist's recorded peak bandwidth (a re-opened INIT, being uploaded again,
 *       does not withdraw a rendition players may be playing).
 * </ul>
 *
 * Thread-safe (stateless beyond its settings).
 */
final class PlaylistPlans {
  private final StateStore store;
  private final MediaPlaylistReader reader;
  private final Duration fullInterval;

  PlaylistPlans(StateStore store, int windowSegments, Duration fullInterval) {
    this.store = store;
    this.reader = new MediaPlaylistReader(store, windowSegments);
    this.fullInterval = fullInterval;
  }

  /**
   * An object to PUT.
   *
   * @param ifDifferent PUT only if the object at {@code key} is missing or has another checksum
   * @param live whether it is the record's live playlist object ({@link PlaylistRecord#liveEtag}), else its full one
   */
  record Put(String key, byte[] bytes, String checksum, boolean ifDifferent, boolean live) {}

  /**
   * One publication.
   *
   * @param puts the objects, in order
   * @param entries the entries (renditions) listed, recorded as the intent
   * @param complete whether the playlists are final
   * @param full whether it is recorded as a full publication (with the last put's checksum), or as live-only
   * @param coveredWanted the change count it covers
   * @param seal the parts to seal
   * @param peakBandwidth the peak bit rate seen, raised on the record if above it
   * @param fullDueAt for a live-only publication, when the full playlist is due
   */
  record Plan(List<Put> puts, int entries, boolean complete, boolean full, long coveredWanted,
      List<PlaylistPart> seal, long peakBandwidth, Instant fullDueAt) {
    String checksum() {
      return puts.get(puts.size() - 1).checksum();
    }
  }

  /**
   * What to publish for {@code record}; {@code null} if there is nothing to publish yet. The
   * broadcast's completeness is read after what the publication reads of the ledger (a media
   * playlist's rows, the multivariant playlist's records and INIT rows), once per publication: a
   * change after that read is not covered by it, and is published again.
   */
  Plan plan(PlaylistRecord record, Instant now) {
    return record.multivariant() ? multivariant(record) : media(record, now);
  }

  /** Whether the broadcast has ended (it never ends again: a negative answer needs no second read). */
  private boolean ended(String broadcast) {
    return store.findBroadcast(broadcast).map(BroadcastRecord::ended).orElse(false);
  }

  private Plan media(PlaylistRecord record, Instant now) {
    String broadcast = record.broadcastId();
    String rendition = record.rendition();
    boolean alreadyFinal = record.publishedFinal();
    Completion completion = new Completion(alreadyFinal, alreadyFinal || ended(broadcast),
        () -> !store.hasOpenRows(broadcast));
    // The parts' text only when the full playlist may be PUT: due by the record, or possibly final.
    boolean fullDue = record.publishedChecksum() == null || fullInterval.isZero()
        || (record.fullDueAt() != null && !record.fullDueAt().isAfter(now));
    MediaPlaylistReader.Media media = reader.read(broadcast, rendition, record.publishedEntries(), completion,
        fullDue || completion.ended());
    // A repair of the full playlist (the reconciler's requestPublication) makes it due: read with texts.
    if (media == null) {
      return null;
    }
    List<Put> puts = new ArrayList<>();
    puts.add(put(ObjectKeys.liveMediaPlaylistKey(broadcast, rendition), media.live().text(), true));
    boolean unchanged = false;
    boolean due = false;
    if (media.withTexts()) { // else: not due, and not final
      Put full = put(ObjectKeys.mediaPlaylistKey(broadcast, rendition), media.full(), false);
      unchanged = Checksums.agree(full.checksum(), record.publishedChecksum());
      due = fullDue || media.complete();
      if (unchanged) {
        puts.add(new Put(full.key(), full.bytes(), full.checksum(), true, false));
      } else if (due) {
        puts.add(full);
      }
    }
    return new Plan(puts, media.entries(), media.complete(), unchanged || due, record.wanted(),
        media.sealable(), media.peakBandwidth(), now.plus(fullInterval));
  }

  private Plan multivariant(PlaylistRecord record) {
    String broadcast = record.broadcastId();
    long covered = record.wanted();
    List<Variant> variants = new ArrayList<>();
    // Records first, INIT rows and completeness after: a change after this read is not covered, and
    // is published again.
    for (PlaylistRecord media : store.playlists().find(broadcast)) {
      if (media.multivariant()) {
        covered = Math.max(covered, media.wanted());
      } else if (media.publishedEntries() > 0 || store.find(ItemId.init(broadcast, media.rendition()))
          .map(r -> r.state() == ItemState.CONFIRMED).orElse(false)) { // once listed, never withdrawn
        variants.add(new Variant(media.rendition(), media.peakBandwidth()));
      }
    }
    boolean complete = record.publishedFinal() || (ended(broadcast) && !store.hasOpenRows(broadcast));
    Text master = PlaylistTexts.multivariant(variants, ObjectKeys.MEDIA_PLAYLIST_NAME, complete);
    if (master == null) {
      return null;
    }
    Text live = PlaylistTexts.multivariant(variants, ObjectKeys.LIVE_PLAYLIST_NAME, complete);
    List<Put> puts = List.of(put(ObjectKeys.liveMultivariantPlaylistKey(broadcast), live, true),
        put(ObjectKeys.multivariantPlaylistKey(broadcast), master, false));
    return new Plan(puts, master.entries(), complete, true, covered, List.of(), 0, null);
  }

  /** An unconditional PUT of {@code text}; {@code live}: of the record's live playlist object. */
  private static Put put(String key, Text text, boolean live) {
    byte[] bytes = text.text().getBytes(StandardCharsets.UTF_8);
    return new Put(key, bytes, sha256(bytes), false, live);
  }

  static String sha256(byte[] bytes) {
    try {
      return Sha256Checksum.of(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }
}
