package dev.segmentledger.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.spi.Confirmation;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.PlaylistPart;
import dev.segmentledger.core.spi.PlaylistRecord;
import dev.segmentledger.core.spi.PlaylistStore;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The {@link StateStoreContract} group on what a playlist publication of a long broadcast needs at a
 * constant cost per new segment: keyset pages of a rendition's segments ({@code findSegments}), the
 * open-row check ({@code hasOpenRows}), publications of the live window only
 * ({@code recordLivePublished}, {@code fullDueAt}), the peak bandwidth, and sealed parts. Run as the
 * contract's {@code @Nested} class {@code LongBroadcasts}, on the store of the enclosing contract
 * test.
 */
abstract class LongBroadcastsGroup extends ContractGroup {

  LongBroadcastsGroup(StateStoreContract contract) {
    super(contract);
  }

  private PlaylistStore playlists() {
    return store.playlists();
  }

  /** The record of one playlist ({@code null} rendition: the multivariant one), or {@code null}. */
  private PlaylistRecord record(String broadcast, String rendition) {
    return playlists().find(broadcast).stream()
        .filter(r -> Objects.equals(r.rendition(), rendition))
        .findFirst()
        .orElse(null);
  }

  /** Registers a row of a derived axis with a known size (as produced) and confirms it. */
  private LedgerItem confirmed(ItemId id, Instant at) {
    LedgerItem row = register(id, 100);
    assertTrue(store.confirm(new Confirmation(row.rowId(), row.id(), ItemState.PENDING, 100, "c", at)));
    return row;
  }

  /** The leased record of one playlist, claimed at {@code now} by {@code owner}. */
  private PlaylistRecord claim(String owner, String broadcast, String rendition, Instant now) {
    return playlists().claimDue(owner, now.plusSeconds(120), now, 100).stream()
        .filter(r -> r.broadcastId().equals(broadcast) && Objects.equals(r.rendition(), rendition))
        .findFirst()
        .orElseThrow(() -> new AssertionError(broadcast + "/" + rendition + " was not claimed at " + now));
  }

  /** The record of one playlist of b1 among {@code claimed}. */
  private static PlaylistRecord among(List<PlaylistRecord> claimed, String rendition) {
    return claimed.stream()
        .filter(r -> r.broadcastId().equals("b1") && Objects.equals(r.rendition(), rendition))
        .findFirst()
        .orElseThrow(() -> new AssertionError("b1/" + rendition + " is not among " + claimed));
  }

  private static List<Long> sequencesOf(List<LedgerItem> rows) {
    return rows.stream().map(row -> row.id().sequence()).toList();
  }

  private static PlaylistPart part(String rendition, long first, long next) {
    int entries = (int) (next - first);
    return new PlaylistPart("b1", rendition, first, next, entries, 0, 2, 1_000_000L * first,
        "#EXTINF:2.000,\n" + rendition + "/" + first + ".m4s\n");
  }

  // ---- findSegments and hasOpenRows ----------------------------------------------------------

  @Test
  void findSegmentsReadsOneRenditionsPlaybackRowsInSequenceOrderFromAKeyAtMostTheLimit() {
    for (long sequence : List.of(5L, 1L, 3L, 0L, 2L, 4L)) {
      register(ItemId.playback("b1", "720p", sequence), 100);
      register(ItemId.original("b1", "720p", sequence), 10);
    }
    register(ItemId.init("b1", "720p"), 100);
    for (long sequence = 0; sequence < 3; sequence++) {
      register(ItemId.playback("b1", "1080p", sequence), 100);
      register(ItemId.playback("b2", "720p", sequence), 100);
    }
    LedgerItem third = store.find(ItemId.playback("b1", "720p", 3)).orElseThrow();
    assertTrue(store.confirm(new Confirmation(third.rowId(), third.id(), ItemState.PENDING, 100, "c", T0)));

    List<LedgerItem> all = store.findSegments("b1", "720p", 0, 100);
    assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 5L), sequencesOf(all));
    all.forEach(row -> {
      assertEquals(Axis.PLAYBACK, row.id().axis(), row::toString);
      assertEquals("b1", row.id().broadcastId(), row::toString);
      assertEquals("720p", row.id().rendition(), row::toString);
    });
    assertEquals(ItemState.CONFIRMED, all.get(3).state(), "the rows as they are");

    assertEquals(List.of(2L, 3L, 4L), sequencesOf(store.findSegments("b1", "720p", 2, 3)));
    assertEquals(List.of(5L), sequencesOf(store.findSegments("b1", "720p", 5, 3)), "the last page");
    assertEquals(List.of(), store.findSegments("b1", "720p", 6, 3), "past the last");
    assertEquals(List.of(0L, 1L, 2L), sequencesOf(store.findSegments("b1", "1080p", 0, 10)));
    assertEquals(List.of(), store.findSegments("b1", "480p", 0, 10), "an unknown rendition");
    assertEquals(List.of(), store.findSegments("b9", "720p", 0, 10), "an unknown broadcast");
    assertThrows(IllegalArgumentException.class, () -> store.findSegments("b1", "720p", 0, 0));
  }

  @Test
  void hasOpenRowsIsTrueWhileARowOfTheBroadcastOfAnyAxisIsPendingOrWaiting() {
    assertFalse(store.hasOpenRows("b1"), "an unknown broadcast");
    LedgerItem original = register(ItemId.original("b1", "720p", 0), 10);
    register(ItemId.original("b2", "720p", 0), 10);
    assertTrue(store.hasOpenRows("b1"));
    assertTrue(store.confirm(new Confirmation(original.rowId(), original.id(), ItemState.PENDING, 10, "c", T0)));
    assertFalse(store.hasOpenRows("b1"), "every row confirmed; b2's open row is another broadcast's");

    LedgerItem init = register(ItemId.init("b1", "720p"), 100);
    store.register(NewItem.derived(ItemId.playback("b1", "720p", 0), "/p", "/o", T0));
    assertTrue(store.hasOpenRows("b1"), "a PENDING INIT and a WAITING PLAYBACK row");
    assertTrue(store.markTerminal(init.rowId(), ItemState.PENDING, "n1", ItemState.REJECTED, Reason.SINK_PERMANENT,
        "refused", T0));
    assertTrue(store.hasOpenRows("b1"), "the PLAYBACK row still waits");
    assertEquals(1, store.settleWaiting(T0));
    assertFalse(store.hasOpenRows("b1"), "rejected and confirmed rows are settled");

    assertTrue(store.reopen(original.rowId(), ItemState.CONFIRMED, Reason.REOPENED, "again", T0));
    assertTrue(store.hasOpenRows("b1"), "a re-opened row is open");
  }

  // ---- recordLivePublished and fullDueAt -----------------------------------------------------

  @Test
  void aLivePublicationRaisesPublishedKeepsTheChecksumAndTheEarlierFullDueTimeAndEndsTheLease() {
    confirmed(ItemId.init("b1", "720p"), T0);
    PlaylistRecord first = claim("n1", "b1", "720p", T0);
    assertTrue(playlists().recordPublished("b1", "720p", "n1", first.leaseUntil(), first.wanted(), "sha256:full",
        T0));
    confirmed(ItemId.playback("b1", "720p", 0), T0.plusSeconds(1));
    PlaylistRecord second = claim("n1", "b1", "720p", T0.plusSeconds(1));
    assertTrue(playlists().recordFailure("b1", "720p", "n1", second.leaseUntil(), "boom", T0.plusSeconds(2),
        T0.plusSeconds(1)));
    PlaylistRecord held = claim("n2", "b1", "720p", T0.plusSeconds(2));
    Instant due = T0.plusSeconds(60);

    assertFalse(playlists().recordLivePublished("b1", "720p", "n1", held.leaseUntil(), held.wanted(), due,
        T0.plusSeconds(3)), "not the holder");
    assertFalse(playlists().recordLivePublished("b1", "720p", "n2", held.leaseUntil().plusSeconds(1),
        held.wanted(), due, T0.plusSeconds(3)), "not its lease");
    assertNull(record("b1", "720p").fullDueAt());
    assertTrue(playlists().recordLivePublished("b1", "720p", "n2", held.leaseUntil(), held.wanted(), due,
        T0.plusSeconds(3)));

    PlaylistRecord live = record("b1", "720p");
    assertEquals(2, live.published());
    assertFalse(live.awaitingPublication());
    assertEquals(due, live.fullDueAt());
    assertTrue(live.fullBehind());
    assertEquals("sha256:full", live.publishedChecksum(), "the checksum of the full playlist is kept");
    assertNull(live.leaseOwner());
    assertNull(live.leaseUntil());
    assertEquals(0, live.attempts());
    assertNull(live.lastError());
    assertEquals(T0.plusSeconds(3), live.updatedAt());
    assertFalse(playlists().recordLivePublished("b1", "720p", "n2", held.leaseUntil(), held.wanted(), due,
        T0.plusSeconds(3)), "the lease ended");

    confirmed(ItemId.playback("b1", "720p", 1), T0.plusSeconds(4));
    PlaylistRecord later = claim("n1", "b1", "720p", T0.plusSeconds(4));
    assertTrue(playlists().recordLivePublished("b1", "720p", "n1", later.leaseUntil(), 1, due.plusSeconds(30),
        T0.plusSeconds(5)));
    assertEquals(due, record("b1", "720p").fullDueAt(), "the earlier due time is kept");
    assertEquals(2, record("b1", "720p").published(), "published never decreases");
    assertTrue(record("b1", "720p").awaitingPublication());
    PlaylistRecord again = claim("n1", "b1", "720p", T0.plusSeconds(5));
    assertTrue(playlists().recordLivePublished("b1", "720p", "n1", again.leaseUntil(), again.wanted(),
        due.minusSeconds(30), T0.plusSeconds(6)));
    assertEquals(due.minusSeconds(30), record("b1", "720p").fullDueAt(), "an earlier due time is taken");
    assertEquals(3, record("b1", "720p").published());
  }

  @Test
  void aFullPublicationClearsTheFullDueTime() {
    confirmed(ItemId.init("b1", "720p"), T0);
    PlaylistRecord held = claim("n1", "b1", "720p", T0);
    assertTrue(playlists().recordLivePublished("b1", "720p", "n1", held.leaseUntil(), held.wanted(),
        T0.plusSeconds(60), T0));
    confirmed(ItemId.playback("b1", "720p", 0), T0.plusSeconds(1));
    PlaylistRecord next = claim("n1", "b1", "720p", T0.plusSeconds(1));
    assertEquals(T0.plusSeconds(60), next.fullDueAt(), "a claimed record says its full playlist is behind");

    assertTrue(playlists().recordPublished("b1", "720p", "n1", next.leaseUntil(), next.wanted(), "sha256:full",
        T0.plusSeconds(2)));
    PlaylistRecord full = record("b1", "720p");
    assertNull(full.fullDueAt());
    assertFalse(full.fullBehind());
    assertEquals(2, full.published());
  }

  @Test
  void aClaimTakesARecordWhoseFullPlaylistIsDueButNotOneDueLater() {
    confirmed(ItemId.init("b1", "720p"), T0);
    List<PlaylistRecord> claimed = playlists().claimDue("n1", LEASE_END, T0, 10);
    PlaylistRecord media = among(claimed, "720p");
    PlaylistRecord master = among(claimed, null);
    assertTrue(playlists().recordPublished("b1", null, "n1", master.leaseUntil(), master.wanted(), "sha256:m", T0));
    Instant due = T0.plusSeconds(60);
    assertTrue(playlists().recordLivePublished("b1", "720p", "n1", media.leaseUntil(), media.wanted(), due, T0));
    assertEquals(0, playlists().countAwaitingPublication(), "a full playlist behind is not awaiting publication");

    assertEquals(List.of(), playlists().claimDue("n2", due.plusSeconds(120), due.minusMillis(1), 10),
        "nothing changed and the full playlist is not due yet");
    List<PlaylistRecord> whenDue = playlists().claimDue("n2", due.plusSeconds(120), due, 10);
    assertEquals(1, whenDue.size(), whenDue::toString);
    PlaylistRecord behind = whenDue.get(0);
    assertEquals("720p", behind.rendition());
    assertEquals(due, behind.fullDueAt());
    assertEquals("n2", behind.leaseOwner());
    assertFalse(behind.awaitingPublication());
    assertEquals(List.of(), playlists().claimDue("n3", due.plusSeconds(120), due, 10), "leased to n2");

    assertTrue(playlists().recordPublished("b1", "720p", "n2", behind.leaseUntil(), behind.wanted(), "sha256:f",
        due));
    assertEquals(List.of(), playlists().claimDue("n3", due.plusSeconds(600), due.plusSeconds(300), 10),
        "up to date: nothing to publish");
  }

  // ---- peak bandwidth -------------------------------------------------------------------------

  @Test
  void aPeakBandwidthOnlyRisesAndEachRiseIncrementsTheMultivariantPlaylist() {
    confirmed(ItemId.init("b1", "720p"), T0);
    List<PlaylistRecord> claimed = playlists().claimDue("n1", LEASE_END, T0, 10);
    PlaylistRecord media = among(claimed, "720p");
    PlaylistRecord master = among(claimed, null);
    assertTrue(playlists().recordPublished("b1", null, "n1", master.leaseUntil(), master.wanted(), "sha256:m", T0));
    assertEquals(0, media.peakBandwidth(), "unknown at first");

    assertFalse(playlists().raisePeakBandwidth("b1", "720p", "n2", media.leaseUntil(), 2_000_000, T0),
        "not the holder");
    assertFalse(playlists().raisePeakBandwidth("b1", "720p", "n1", media.leaseUntil().plusSeconds(1), 2_000_000,
        T0), "not its lease");
    assertEquals(0, record("b1", "720p").peakBandwidth());
    assertEquals(1, record("b1", null).wanted());

    assertTrue(playlists().raisePeakBandwidth("b1", "720p", "n1", media.leaseUntil(), 2_000_000, T0));
    assertEquals(2_000_000, record("b1", "720p").peakBandwidth());
    assertEquals(2, record("b1", null).wanted(), "the multivariant playlist announces the peak");
    assertTrue(record("b1", null).awaitingPublication());
    assertEquals(1, record("b1", "720p").wanted(), "the media playlist itself is not altered");

    assertFalse(playlists().raisePeakBandwidth("b1", "720p", "n1", media.leaseUntil(), 1_500_000, T0), "lower");
    assertFalse(playlists().raisePeakBandwidth("b1", "720p", "n1", media.leaseUntil(), 2_000_000, T0), "equal");
    assertEquals(2_000_000, record("b1", "720p").peakBandwidth());
    assertEquals(2, record("b1", null).wanted(), "no rise, no change");

    assertTrue(playlists().raisePeakBandwidth("b1", "720p", "n1", media.leaseUntil(), 3_000_000, T0));
    assertEquals(3_000_000, record("b1", "720p").peakBandwidth());
    assertEquals(3, record("b1", null).wanted());
    assertTrue(playlists().recordPublished("b1", "720p", "n1", media.leaseUntil(), media.wanted(), "sha256:x", T0));
    assertEquals(3_000_000, record("b1", "720p").peakBandwidth(), "kept by a publication");
  }

  @Test
  void aRiseOfThePeakCreatesTheMultivariantPlaylistIfAbsent() {
    confirmed(ItemId.playback("b1", "720p", 0), T0);
    assertNull(record("b1", null), "a segment alone creates no multivariant playlist");
    PlaylistRecord media = claim("n1", "b1", "720p", T0);

    assertTrue(playlists().raisePeakBandwidth("b1", "720p", "n1", media.leaseUntil(), 800_000, T0));
    PlaylistRecord master = record("b1", null);
    assertEquals(1, master.wanted());
    assertTrue(master.awaitingPublication());
  }

  @Test
  void aRequestedPublicationMakesAMediaPlaylistsFullPlaylistDueAndLeavesTheMultivariantAlone() {
    confirmed(ItemId.init("b1", "720p"), T0);
    PlaylistRecord media = claim("n1", "b1", "720p", T0);
    assertTrue(playlists().recordPublished("b1", "720p", "n1", media.leaseUntil(), media.wanted(), "c1", T0));
    assertNull(record("b1", "720p").fullDueAt());

    playlists().requestPublication("b1", "720p", T0.plusSeconds(5));
    playlists().requestPublication("b1", null, T0.plusSeconds(5));
    assertEquals(T0.plusSeconds(5), record("b1", "720p").fullDueAt(), "the repair compares and PUTs the full text");
    assertTrue(record("b1", "720p").awaitingPublication());
    assertNull(record("b1", null).fullDueAt(), "a multivariant playlist has no full playlist behind");
    playlists().requestPublication("b1", "720p", T0.plusSeconds(9));
    assertEquals(T0.plusSeconds(5), record("b1", "720p").fullDueAt(), "the earlier due time stays");
  }

  // ---- sealed parts ---------------------------------------------------------------------------

  @Test
  void sealedPartsAreReadInSequenceOrderAndASealIsIdempotent() {
    assertEquals(List.of(), playlists().parts("b1", "720p"));
    for (long sequence = 0; sequence < 28; sequence++) { // 28 and 29 never registered: holes
      confirmed(ItemId.playback("b1", "720p", sequence), T0);
    }
    for (long sequence = 0; sequence < 5; sequence++) {
      confirmed(ItemId.playback("b1", "1080p", sequence), T0);
    }
    assertTrue(playlists().sealPart(part("720p", 0, 10)));
    assertTrue(playlists().sealPart(part("720p", 10, 20)));
    assertTrue(playlists().sealPart(part("1080p", 0, 5)));
    PlaylistPart withHoles = new PlaylistPart("b1", "720p", 20, 30, 8, 1, 4, 0,
        "#EXT-X-DISCONTINUITY\n#EXTINF:3.500,\n720p/22.m4s\n");
    assertTrue(playlists().sealPart(withHoles));

    assertEquals(List.of(part("720p", 0, 10), part("720p", 10, 20), withHoles), playlists().parts("b1", "720p"),
        "in sequence order, every component as sealed");
    assertEquals(List.of(part("1080p", 0, 5)), playlists().parts("b1", "1080p"), "another rendition's");
    assertEquals(List.of(), playlists().parts("b2", "720p"), "another broadcast's");

    assertFalse(playlists().sealPart(part("720p", 0, 10)), "the same part again: stored once");
    assertFalse(playlists().sealPart(part("720p", 15, 20)), "its first sequence is covered");
    assertEquals(3, playlists().parts("b1", "720p").size());
  }

  @Test
  void partSummariesAreThePartsWithoutTheirText() {
    assertEquals(List.of(), playlists().partSummaries("b1", "720p"));
    for (long sequence = 0; sequence < 28; sequence++) {
      confirmed(ItemId.playback("b1", "720p", sequence), T0);
    }
    assertTrue(playlists().sealPart(part("720p", 0, 10)));
    assertTrue(playlists().sealPart(part("720p", 10, 20)));
    PlaylistPart withHoles = new PlaylistPart("b1", "720p", 20, 30, 8, 1, 4, 0,
        "#EXT-X-DISCONTINUITY\n#EXTINF:3.500,\n720p/22.m4s\n");
    assertTrue(playlists().sealPart(withHoles));

    List<PlaylistPart> parts = playlists().parts("b1", "720p");
    List<PlaylistPart> summaries = playlists().partSummaries("b1", "720p");
    assertEquals(parts.size(), summaries.size(), "one summary per part: " + summaries);
    for (int i = 0; i < parts.size(); i++) {
      PlaylistPart p = parts.get(i);
      assertEquals(new PlaylistPart(p.broadcastId(), p.rendition(), p.firstSequence(), p.nextSequence(), p.entries(),
          p.discontinuities(), p.targetSeconds(), p.peakBandwidth(), ""), summaries.get(i),
          "in sequence order, every component but the text as sealed");
    }
    assertEquals(List.of(), playlists().partSummaries("b1", "1080p"), "another rendition's");
    assertEquals(List.of(), playlists().partSummaries("b2", "720p"), "another broadcast's");
  }

  @Test
  void aSealListingItsRowsOtherwiseThanTheyAreNowStoresNothing() {
    LedgerItem[] segments = new LedgerItem[4];
    for (int sequence = 0; sequence < segments.length; sequence++) {
      segments[sequence] = confirmed(ItemId.playback("b1", "720p", sequence), T0);
    }
    // Read by a publisher as four segments; then row 1 was re-opened and rejected before its seal.
    assertTrue(store.reopen(segments[1].rowId(), ItemState.CONFIRMED, Reason.REOPENED, "object missing", T0));
    assertFalse(playlists().sealPart(part("720p", 0, 4)), "row 1 is open");
    assertTrue(store.markTerminal(segments[1].rowId(), ItemState.PENDING, "n1", ItemState.REJECTED,
        Reason.MISSING_FILE, "gone", T0));

    assertFalse(playlists().sealPart(part("720p", 0, 4)), "it lists row 1 as a segment, which is now a gap");
    PlaylistPart withGap = new PlaylistPart("b1", "720p", 0, 4, 4, 0, 2, 0,
        "#EXTINF:2.000,\n0.m4s\n#EXT-X-GAP\n#EXTINF:2.000,\n1.m4s\n#EXTINF:2.000,\n2.m4s\n#EXTINF:2.000,\n3.m4s\n");
    assertEquals(1, withGap.gaps());
    assertTrue(playlists().sealPart(withGap), "listing row 1 as a gap, as it is");
    assertEquals(List.of(withGap), playlists().parts("b1", "720p"));
  }

  @Test
  void theSealedSummarySumsEveryPartFromTheFirstOneAndLeavesOutTheirText() {
    assertEquals(Optional.empty(), playlists().sealedSummary("b1", "720p"));
    for (long sequence = 5; sequence < 33; sequence++) { // 33 and 34 never registered: holes
      confirmed(ItemId.playback("b1", "720p", sequence), T0);
    }
    assertTrue(playlists().sealPart(part("720p", 5, 15)));
    assertEquals(Optional.of(new PlaylistPart("b1", "720p", 5, 15, 10, 0, 2, 5_000_000L, "")),
        playlists().sealedSummary("b1", "720p"), "one part: itself without its text");
    assertTrue(playlists().sealPart(part("720p", 15, 25)));
    assertTrue(playlists().sealPart(new PlaylistPart("b1", "720p", 25, 35, 8, 1, 4, 3_000_000L,
        "#EXT-X-DISCONTINUITY\n#EXTINF:3.500,\n720p/27.m4s\n")));
    assertEquals(Optional.of(new PlaylistPart("b1", "720p", 5, 35, 28, 1, 4, 15_000_000L, "")),
        playlists().sealedSummary("b1", "720p"), "entries and discontinuities summed, target and peak the highest");
    assertEquals(Optional.empty(), playlists().sealedSummary("b1", "1080p"), "another rendition's");
    assertEquals(Optional.empty(), playlists().sealedSummary("b2", "720p"), "another broadcast's");
  }

  @Test
  void aSealIsStoredOnlyAtTheEndOfItsRenditionsParts() {
    for (long sequence = 0; sequence < 40; sequence++) {
      confirmed(ItemId.playback("b1", "720p", sequence), T0);
    }
    assertTrue(playlists().sealPart(part("720p", 10, 20)), "the rendition's first part may start anywhere");
    assertFalse(playlists().sealPart(part("720p", 30, 40)), "after a hole");
    assertFalse(playlists().sealPart(part("720p", 0, 10)), "before the first part");
    assertFalse(playlists().sealPart(part("720p", 10, 20)), "the same part again");
    assertTrue(playlists().sealPart(part("720p", 20, 30)));
    assertEquals(List.of(part("720p", 10, 20), part("720p", 20, 30)), playlists().parts("b1", "720p"));
    assertEquals(Optional.of(new PlaylistPart("b1", "720p", 10, 30, 20, 0, 2, 20_000_000L, "")),
        playlists().sealedSummary("b1", "720p"));
  }

  @Test
  void aReopenOfAPlaybackRowRemovesThePartCoveringItAndEveryLaterOne() {
    LedgerItem[] segments = new LedgerItem[8];
    for (int sequence = 0; sequence < segments.length; sequence++) {
      segments[sequence] = confirmed(ItemId.playback("b1", "720p", sequence), T0);
    }
    for (int first = 0; first < segments.length; first += 2) {
      assertTrue(playlists().sealPart(part("720p", first, first + 2)));
    }
    assertTrue(store.reopen(segments[3].rowId(), ItemState.CONFIRMED, Reason.REOPENED, "covered", T0));
    assertEquals(List.of(part("720p", 0, 2)), playlists().parts("b1", "720p"),
        "the part covering it and the later ones are removed");
    assertEquals(Optional.of(new PlaylistPart("b1", "720p", 0, 2, 2, 0, 2, 0, "")),
        playlists().sealedSummary("b1", "720p"), "the totals of the parts left");
    assertFalse(playlists().sealPart(part("720p", 2, 4)), "row 3 is open");
    assertTrue(playlists().sealPart(part("720p", 2, 3)), "the chain grows again from its end");
  }

  @Test
  void aReopenOfAPlaybackRowRemovesThePartCoveringItAndOnlyThatOne() {
    LedgerItem[] segments = new LedgerItem[6];
    for (int sequence = 0; sequence < segments.length; sequence++) {
      segments[sequence] = confirmed(ItemId.playback("b1", "720p", sequence), T0);
    }
    LedgerItem original = confirmed(ItemId.original("b1", "720p", 1), T0);
    LedgerItem init = confirmed(ItemId.init("b1", "720p"), T0);
    LedgerItem otherRendition = confirmed(ItemId.playback("b1", "1080p", 1), T0);
    assertTrue(playlists().sealPart(part("720p", 0, 2)));
    assertTrue(playlists().sealPart(part("720p", 2, 4)));

    assertTrue(store.reopen(original.rowId(), ItemState.CONFIRMED, Reason.REOPENED, "an original", T0));
    assertTrue(store.reopen(init.rowId(), ItemState.CONFIRMED, Reason.REOPENED, "the init", T0));
    assertTrue(store.reopen(otherRendition.rowId(), ItemState.CONFIRMED, Reason.REOPENED, "another rendition", T0));
    assertTrue(store.reopen(segments[4].rowId(), ItemState.CONFIRMED, Reason.REOPENED, "past the parts", T0));
    assertEquals(List.of(part("720p", 0, 2), part("720p", 2, 4)), playlists().parts("b1", "720p"),
        "no re-opened row is covered by a part");

    assertTrue(store.reopen(segments[2].rowId(), ItemState.CONFIRMED, Reason.REOPENED, "covered", T0));
    assertEquals(List.of(part("720p", 0, 2)), playlists().parts("b1", "720p"), "the part covering it is removed");
    assertFalse(store.reopen(segments[2].rowId(), ItemState.CONFIRMED, Reason.REOPENED, "again", T0));
    assertEquals(List.of(part("720p", 0, 2)), playlists().parts("b1", "720p"));
  }
}
