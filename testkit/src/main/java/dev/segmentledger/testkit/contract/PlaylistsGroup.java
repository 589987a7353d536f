package dev.segmentledger.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.spi.Confirmation;
import dev.segmentledger.core.spi.PlaylistRecord;
import dev.segmentledger.core.spi.PlaylistStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The {@link StateStoreContract} group on playlist publication ({@code playlists()}): which ledger
 * changes increment which playlist's {@code wanted}, and the leased, compare-and-set publication
 * records. Run as the contract's {@code @Nested} class {@code Playlists}, on the store of the
 * enclosing contract test.
 */
abstract class PlaylistsGroup extends ContractGroup {

  PlaylistsGroup(StateStoreContract contract) {
    super(contract);
  }

  private PlaylistStore playlists() {
    return store.playlists();
  }

  /** The playlists of {@code broadcast} by rendition ({@code "master"} for the multivariant one). */
  private Map<String, PlaylistRecord> of(String broadcast) {
    return playlists().find(broadcast).stream()
        .collect(Collectors.toMap(r -> r.rendition() == null ? "master" : r.rendition(), Function.identity()));
  }

  private long wanted(String broadcast, String key) {
    PlaylistRecord r = of(broadcast).get(key);
    return r == null ? 0 : r.wanted();
  }

  /** A PENDING row of a derived axis with a known size, as after the repackager produced it. */
  private LedgerItem derived(ItemId id) {
    return register(id, 100);
  }

  @Test
  void confirmingAnInitRowIncrementsItsMediaAndTheMultivariantPlaylistAndAPlaybackRowItsMediaPlaylistOnly() {
    LedgerItem original = register(ItemId.original("b1", "720p", 0), 10);
    LedgerItem init = derived(ItemId.init("b1", "720p"));
    LedgerItem segment = derived(ItemId.playback("b1", "720p", 0));
    assertEquals(List.of(), playlists().find("b1"), "registration alone alters no playlist");

    assertTrue(store.confirm(new Confirmation(original.rowId(), original.id(),
        ItemState.PENDING, 10, "c", T0)));
    assertEquals(List.of(), playlists().find("b1"), "an original of a live broadcast is in no playlist");

    assertTrue(store.confirm(new Confirmation(init.rowId(), init.id(), ItemState.PENDING, 100, "c", T0)));
    assertEquals(1, wanted("b1", "720p"));
    assertEquals(1, wanted("b1", "master"));
    assertTrue(store.confirm(new Confirmation(segment.rowId(), segment.id(),
        ItemState.PENDING, 100, "c", T0.plusSeconds(1))));
    assertEquals(2, wanted("b1", "720p"));
    assertEquals(1, wanted("b1", "master"), "a segment changes the multivariant playlist only through its"
        + " rendition's peak bandwidth (raisePeakBandwidth)");

    PlaylistRecord media = of("b1").get("720p");
    assertEquals("b1", media.broadcastId());
    assertEquals(0, media.published());
    assertTrue(media.awaitingPublication());
    assertFalse(media.multivariant());
    assertTrue(of("b1").get("master").multivariant());
    assertEquals(2, playlists().countAwaitingPublication());
  }

  @Test
  void aPlaybackRowOfARenditionWithoutInitCreatesNoMultivariantPlaylist() {
    LedgerItem segment = derived(ItemId.playback("b1", "720p", 0));
    assertTrue(store.confirm(new Confirmation(segment.rowId(), segment.id(), ItemState.PENDING, 100, "c", T0)));
    assertTrue(store.markTerminal(derived(ItemId.playback("b1", "720p", 1)).rowId(), ItemState.PENDING, "n1",
        ItemState.REJECTED, Reason.SINK_PERMANENT, "refused", T0));
    assertTrue(store.reopen(segment.rowId(), ItemState.CONFIRMED, Reason.REOPENED, "fixed", T0));

    assertEquals(List.of("720p"), playlists().find("b1").stream().map(PlaylistRecord::rendition).toList(),
        "the media playlist only");
    assertEquals(3, wanted("b1", "720p"));
  }

  @Test
  void aBatchOfConfirmsIncrementsEveryPlaylistItAlters() {
    List<Confirmation> batch = new ArrayList<>();
    LedgerItem init = derived(ItemId.init("b1", "720p"));
    batch.add(new Confirmation(init.rowId(), init.id(), ItemState.PENDING, 100, "c", T0));
    for (String rendition : List.of("720p", "1080p")) {
      for (int i = 0; i < 3; i++) {
        LedgerItem row = derived(ItemId.playback("b1", rendition, i));
        batch.add(new Confirmation(row.rowId(), row.id(), ItemState.PENDING, 100, "c", T0));
      }
    }
    boolean[] confirmed = store.confirmAll(batch);
    for (boolean c : confirmed) {
      assertTrue(c);
    }
    Map<String, PlaylistRecord> records = of("b1");
    assertEquals(List.of("1080p", "720p", "master"), records.keySet().stream().sorted().toList());
    records.values().forEach(r -> assertTrue(r.wanted() >= 1, r::toString));
    assertEquals(1, records.get("master").wanted(), "the batch's INIT row only");
    assertEquals(java.util.Arrays.asList("1080p", "720p", null), playlists().find("b1").stream().map(PlaylistRecord::rendition)
        .toList(), "media playlists by rendition, then the multivariant one");
  }

  @Test
  void terminalFailuresAndReopensIncrementThePlaylist() {
    LedgerItem segment = derived(ItemId.playback("b1", "720p", 0));
    assertTrue(store.markTerminal(segment.rowId(), ItemState.PENDING, "n1", ItemState.REJECTED,
        Reason.SINK_PERMANENT, "refused", T0));
    assertEquals(1, wanted("b1", "720p"));
    assertTrue(store.reopen(segment.rowId(), ItemState.REJECTED, Reason.REOPENED, "fixed", T0));
    assertEquals(2, wanted("b1", "720p"));
    assertTrue(store.recordFailure(segment.rowId(), ItemState.PENDING, "n1", Reason.SINK_TRANSIENT, "again",
        T0.plusSeconds(5)));
    assertEquals(2, wanted("b1", "720p"), "a retried failure alters no playlist");

    LedgerItem old = derived(ItemId.playback("b1", "720p", 1));
    assertEquals(2, store.excludeRegisteredBefore(T0.plusSeconds(1), T0.plusSeconds(2), 10), "both past the cutoff");
    assertEquals(ItemState.EXCLUDED, store.findByRowId(old.rowId()).orElseThrow().state());
    assertTrue(wanted("b1", "720p") >= 3, "excluding rows increments their playlist");
  }

  @Test
  void playbackRejectedBecauseItsInitFailedIncrementsThePlaylist() {
    LedgerItem init = derived(ItemId.init("b1", "720p"));
    store.register(dev.segmentledger.core.spi.NewItem.derived(ItemId.playback("b1", "720p", 0), "/p", "/o", T0));
    assertTrue(store.markTerminal(init.rowId(), ItemState.PENDING, "n1", ItemState.REJECTED, Reason.SINK_PERMANENT,
        "refused", T0));
    long before = wanted("b1", "720p");
    assertEquals(1, store.settleWaiting(T0));
    assertEquals(before + 1, wanted("b1", "720p"));
  }

  @Test
  void theEndOfABroadcastIncrementsEachOfItsPlaylistsAndSoDoesAnyLaterChangeOfItsRows() {
    LedgerItem original = register(ItemId.original("b1", "720p", 0), 10);
    LedgerItem init = derived(ItemId.init("b1", "720p"));
    LedgerItem segment = derived(ItemId.playback("b1", "720p", 0));
    derived(ItemId.playback("b2", "720p", 0));
    store.confirm(new Confirmation(init.rowId(), init.id(), ItemState.PENDING, 100, "c", T0));
    store.confirm(new Confirmation(segment.rowId(), segment.id(), ItemState.PENDING, 100, "c", T0));
    assertEquals(2, wanted("b1", "720p"));
    assertEquals(1, wanted("b1", "master"));

    assertTrue(store.endBroadcast("b1", T0));
    assertEquals(3, wanted("b1", "720p"));
    assertEquals(2, wanted("b1", "master"));
    assertFalse(store.endBroadcast("b1", T0), "already ended");
    assertEquals(3, wanted("b1", "720p"));

    assertTrue(store.confirm(new Confirmation(original.rowId(), original.id(),
        ItemState.PENDING, 10, "c", T0)), "the last row, an original: completes b1");
    assertEquals(4, wanted("b1", "720p"));
    assertEquals(3, wanted("b1", "master"));
    assertEquals(List.of(), playlists().find("b2"), "another broadcast is untouched");
  }

  @Test
  void aClaimLeasesPlaylistsAwaitingPublicationToOneOwnerUntilItEnds() {
    LedgerItem init = derived(ItemId.init("b1", "720p"));
    store.confirm(new Confirmation(init.rowId(), init.id(), ItemState.PENDING, 100, "c", T0));

    List<PlaylistRecord> claimed = playlists().claimDue("n1", LEASE_END, T0, 10);
    assertEquals(2, claimed.size());
    for (PlaylistRecord r : claimed) {
      assertEquals("n1", r.leaseOwner());
      assertEquals(LEASE_END, r.leaseUntil());
      assertEquals(1, r.wanted());
    }
    assertEquals(List.of(), playlists().claimDue("n2", LEASE_END, T0.plusSeconds(1), 10), "leased to n1");
    assertEquals(1, playlists().claimDue("n2", LEASE_END.plusSeconds(120), LEASE_END, 1).size(),
        "due again once the lease ended; at most the limit");
  }

  @Test
  void aPublicationIsRecordedOnlyByTheLeaseHolderAndEntriesNeverDecrease() {
    LedgerItem init = derived(ItemId.init("b1", "720p"));
    store.confirm(new Confirmation(init.rowId(), init.id(), ItemState.PENDING, 100, "c", T0));
    PlaylistRecord media = playlists().claimDue("n1", LEASE_END, T0, 10).stream()
        .filter(r -> !r.multivariant()).findFirst().orElseThrow();

    assertFalse(playlists().recordIntent("b1", "720p", "n2", LEASE_END, 5, false), "not the holder");
    assertFalse(playlists().recordIntent("b1", "720p", "n1", LEASE_END.plusSeconds(1), 5, false), "not its lease");
    assertTrue(playlists().recordIntent("b1", "720p", "n1", LEASE_END, 5, false));
    assertTrue(playlists().recordIntent("b1", "720p", "n1", LEASE_END, 3, true));
    assertEquals(5, of("b1").get("720p").publishedEntries(), "never fewer");
    assertTrue(of("b1").get("720p").publishedFinal());

    assertFalse(playlists().recordPublished("b1", "720p", "n2", LEASE_END, media.wanted(), "sha256:x", T0));
    assertTrue(playlists().recordPublished("b1", "720p", "n1", LEASE_END, media.wanted(), "sha256:x", T0));
    PlaylistRecord published = of("b1").get("720p");
    assertEquals(1, published.published());
    assertFalse(published.awaitingPublication());
    assertEquals("sha256:x", published.publishedChecksum());
    assertNull(published.leaseOwner());
    assertNull(published.leaseUntil());
    assertEquals(1, playlists().countAwaitingPublication(), "the multivariant one is still leased to n1");
    assertFalse(playlists().recordPublished("b1", "720p", "n1", LEASE_END, 1, "sha256:y", T0), "lease ended");

    LedgerItem next = derived(ItemId.playback("b1", "720p", 1));
    store.confirm(new Confirmation(next.rowId(), next.id(), ItemState.PENDING, 100, "c", T0));
    assertTrue(of("b1").get("720p").awaitingPublication(), "changed again after the publication");
  }

  /**
   * A store that keeps ETags ({@link PlaylistStore#recordsEtags()}) stores those of a publication
   * and of a refusal, reads them back in every record, and keeps them through every other update.
   */
  @Test
  void theEtagsOfThePublishedObjectsAreStoredReadBackAndKept() {
    assumeTrue(playlists().recordsEtags(), "this store keeps no ETags");
    LedgerItem init = derived(ItemId.init("b1", "720p"));
    store.confirm(new Confirmation(init.rowId(), init.id(), ItemState.PENDING, 100, "c", T0));
    PlaylistRecord media = playlists().claimDue("n1", LEASE_END, T0, 10).stream()
        .filter(r -> !r.multivariant()).findFirst().orElseThrow();
    assertNull(media.liveEtag(), "never published: none known");
    assertNull(media.fullEtag());
    assertFalse(playlists().recordPublished("b1", "720p", "n2", LEASE_END, media.wanted(), "sha256:x", "\"l1\"",
        "\"f1\"", T0), "not the holder");
    assertNull(of("b1").get("720p").liveEtag());
    assertTrue(playlists().recordPublished("b1", "720p", "n1", LEASE_END, media.wanted(), "sha256:x", "\"l1\"",
        "\"f1\"", T0));
    assertEquals("\"l1\"", of("b1").get("720p").liveEtag(), "stored and read back, quotes included");
    assertEquals("\"f1\"", of("b1").get("720p").fullEtag());

    LedgerItem segment = derived(ItemId.playback("b1", "720p", 0));
    store.confirm(new Confirmation(segment.rowId(), segment.id(), ItemState.PENDING, 100, "c", T0));
    Instant until = LEASE_END.plusSeconds(60);
    PlaylistRecord claimed = playlists().claimDue("n1", until, T0.plusSeconds(1), 10).stream()
        .filter(r -> !r.multivariant()).findFirst().orElseThrow();
    assertEquals("\"l1\"", claimed.liveEtag(), "a claim returns them");
    assertEquals("\"f1\"", claimed.fullEtag());
    assertTrue(playlists().recordIntent("b1", "720p", "n1", until, 2, false));
    playlists().raisePeakBandwidth("b1", "720p", "n1", until, 1_000_000, T0);
    assertTrue(playlists().recordLivePublished("b1", "720p", "n1", until, claimed.wanted(), T0.plusSeconds(30),
        "l2", T0));
    assertEquals("l2", of("b1").get("720p").liveEtag(), "a live-only publication stores the live ETag");
    assertEquals("\"f1\"", of("b1").get("720p").fullEtag(), "and keeps the full one");

    playlists().requestPublication("b1", "720p", T0.plusSeconds(2));
    Instant third = until.plusSeconds(60);
    playlists().claimDue("n2", third, T0.plusSeconds(2), 10);
    assertFalse(playlists().recordRefused("b1", "720p", "n1", until, null, "f9", "playlist version conflict: x",
        T0.plusSeconds(30), T0.plusSeconds(2)), "not the holder any more");
    assertEquals("l2", of("b1").get("720p").liveEtag());
    assertTrue(playlists().recordRefused("b1", "720p", "n2", third, null, "f9", "playlist version conflict: x",
        T0.plusSeconds(30), T0.plusSeconds(2)));
    PlaylistRecord refused = of("b1").get("720p");
    assertNull(refused.liveEtag(), "the versions found: no live object");
    assertEquals("f9", refused.fullEtag());
    assertEquals(1, refused.attempts(), "counted as a failed attempt");
    assertEquals("playlist version conflict: x", refused.lastError());
    assertNull(refused.leaseOwner());
    assertTrue(refused.awaitingPublication(), "due again");
    assertEquals(List.of(), playlists().claimDue("n3", third.plusSeconds(60), T0.plusSeconds(29), 10).stream()
        .filter(r -> !r.multivariant()).toList(), "in backoff");

    PlaylistRecord again = playlists().claimDue("n3", third.plusSeconds(60), T0.plusSeconds(30), 10).stream()
        .filter(r -> !r.multivariant()).findFirst().orElseThrow();
    assertTrue(playlists().recordFailure("b1", "720p", "n3", third.plusSeconds(60), "boom", T0.plusSeconds(31),
        T0.plusSeconds(30)));
    assertEquals("f9", of("b1").get("720p").fullEtag(), "a failure keeps them");
    again = playlists().claimDue("n3", third.plusSeconds(120), T0.plusSeconds(31), 10).stream()
        .filter(r -> !r.multivariant()).findFirst().orElseThrow();
    assertTrue(playlists().recordPublished("b1", "720p", "n3", third.plusSeconds(120), again.wanted(), "sha256:y",
        T0.plusSeconds(31)));
    assertEquals("f9", of("b1").get("720p").fullEtag(), "a publication recorded without ETags keeps them");
  }

  @Test
  void aFailedPublicationBacksOffAndAReleaseMakesThePlaylistDue() {
    LedgerItem segment = derived(ItemId.playback("b1", "720p", 0));
    store.confirm(new Confirmation(segment.rowId(), segment.id(), ItemState.PENDING, 100, "c", T0));
    playlists().claimDue("n1", LEASE_END, T0, 10);
    assertFalse(playlists().recordFailure("b1", "720p", "n2", LEASE_END, "boom", T0.plusSeconds(30), T0));
    assertTrue(playlists().recordFailure("b1", "720p", "n1", LEASE_END, "boom", T0.plusSeconds(30), T0));
    PlaylistRecord failed = of("b1").get("720p");
    assertEquals(1, failed.attempts());
    assertEquals("boom", failed.lastError());
    assertNull(failed.leaseOwner());
    assertEquals(List.of(), playlists().claimDue("n2", LEASE_END, T0.plusSeconds(29), 10).stream()
        .filter(r -> !r.multivariant()).toList(), "in backoff");
    assertEquals(1, playlists().claimDue("n2", LEASE_END, T0.plusSeconds(30), 10).stream()
        .filter(r -> !r.multivariant()).count(), "due after the backoff");

    assertTrue(playlists().release("b1", "720p", "n2", LEASE_END, T0.plusSeconds(31)));
    assertFalse(playlists().release("b1", "720p", "n2", LEASE_END, T0.plusSeconds(31)), "no longer held");
    assertEquals(1, playlists().claimDue("n3", LEASE_END, T0.plusSeconds(31), 10).stream()
        .filter(r -> !r.multivariant()).count());
  }

  @Test
  void aRequestedPublicationCreatesOrIncrementsTheRecord() {
    playlists().requestPublication("b1", null, T0);
    playlists().requestPublication("b1", "720p", T0);
    playlists().requestPublication("b1", "720p", T0);
    assertEquals(1, wanted("b1", "master"));
    assertEquals(2, wanted("b1", "720p"));
  }

  @Test
  void concurrentClaimsLeaseEachPlaylistToOneOwner() throws Exception {
    for (int i = 0; i < 4; i++) {
      LedgerItem init = derived(ItemId.init("b1", "r" + i));
      store.confirm(new Confirmation(init.rowId(), init.id(), ItemState.PENDING, 100, "c", T0));
    }
    List<Callable<List<PlaylistRecord>>> claims = new ArrayList<>();
    for (int i = 0; i < CONCURRENT_CONFIRMERS; i++) {
      String owner = "n" + i;
      claims.add(() -> playlists().claimDue(owner, LEASE_END, T0, 10));
    }
    List<String> claimed = race(claims).stream().flatMap(List::stream)
        .map(r -> r.rendition() == null ? "master" : r.rendition()).sorted().toList();
    assertEquals(List.of("master", "r0", "r1", "r2", "r3"), claimed, "each playlist claimed exactly once");
    Instant later = LEASE_END;
    assertEquals(5, playlists().claimDue("x", later.plusSeconds(60), later, 10).size());
  }
}
