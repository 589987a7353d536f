package dev.segmentledger.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.spi.Claim;
import dev.segmentledger.core.spi.ClaimedRow;
import dev.segmentledger.core.spi.Confirmation;
import dev.segmentledger.core.spi.LeaseRenewal;
import dev.segmentledger.core.spi.NewItem;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The {@link StateStoreContract} group on batched lease renewal, {@code renewAll}: each entry is
 * extended or not exactly as by {@code renew}, one result per entry, and an entry that does not
 * cover an attempt leaves the lease one that a later claim does not count as abandoned. Run as the
 * contract's {@code @Nested} class {@code LeaseRenewals}, on the store of the enclosing contract test.
 */
abstract class LeaseRenewalGroup extends ContractGroup {
  private static final Instant HELD = T0.plusSeconds(10);

  LeaseRenewalGroup(StateStoreContract contract) {
    super(contract);
  }

  private LedgerItem registerLeased(int sequence, String owner, Instant until) {
    return store.register(NewItem.pending(ItemId.original("b1", "720p", sequence), "/rec/" + sequence + ".ts", 10, T0)
        .leasedTo(owner, until)).item();
  }

  @Test
  void eachEntryIsExtendedOnlyIfItsOwnerStillHoldsExactlyThatLease() {
    LedgerItem mine = registerLeased(0, "node-a", HELD);
    LedgerItem otherHeld = registerLeased(1, "node-a", HELD.plusSeconds(1));
    LedgerItem theirs = registerLeased(2, "node-b", HELD);
    LedgerItem confirmed = registerLeased(3, "node-a", HELD);
    LedgerItem takenOver = registerLeased(4, "node-a", HELD);
    assertTrue(store.confirm(new Confirmation(confirmed.rowId(), confirmed.id(),
        ItemState.PENDING, 10, null, T0.plusSeconds(1))));
    assertTrue(store.claim(takenOver.rowId(), "node-b", LEASE_END, HELD).held(), "expired, taken over");

    Instant until = T0.plusSeconds(60);
    boolean[] renewed = store.renewAll("node-a", List.of(
        LeaseRenewal.ofAttempt(mine.rowId(), mine.id().broadcastId(), HELD, until, 0, false),
        LeaseRenewal.ofAttempt(otherHeld.rowId(), otherHeld.id().broadcastId(), HELD, until, 0, false),
        LeaseRenewal.ofAttempt(theirs.rowId(), theirs.id().broadcastId(), HELD, until, 0, false),
        LeaseRenewal.ofAttempt(confirmed.rowId(), confirmed.id().broadcastId(), HELD, until, 0, false),
        LeaseRenewal.ofAttempt(takenOver.rowId(), takenOver.id().broadcastId(), HELD, until, 0, false),
        LeaseRenewal.ofAttempt(Long.MAX_VALUE, "b1", HELD, until, 0, false)));

    assertArrayEquals(new boolean[] {true, false, false, false, false, false}, renewed);
    assertEquals(until, store.findByRowId(mine.rowId()).orElseThrow().nextAttemptAt(), "the lease is the due time");
    assertEquals(HELD.plusSeconds(1), store.findByRowId(otherHeld.rowId()).orElseThrow().nextAttemptAt(), "unchanged");
    assertEquals(HELD, store.findByRowId(theirs.rowId()).orElseThrow().nextAttemptAt(), "unchanged");
    assertEquals(ItemState.CONFIRMED, store.findByRowId(confirmed.rowId()).orElseThrow().state());
    assertEquals(LEASE_END, store.findByRowId(takenOver.rowId()).orElseThrow().nextAttemptAt(), "node-b keeps it");
    assertFalse(store.claim(mine.rowId(), "node-b", LEASE_END, until.minusMillis(1)).held(), "valid until its end");
    assertEquals(0, store.findByRowId(mine.rowId()).orElseThrow().attempts(), "a renewal is no abandoned attempt");
  }

  @Test
  void aRenewalNamingAnotherBroadcastExtendsNothing() {
    LedgerItem row = registerLeased(0, "node-a", HELD);
    Instant until = T0.plusSeconds(60);

    assertArrayEquals(new boolean[] {false, false}, store.renewAll("node-a", List.of(
        LeaseRenewal.ofAttempt(row.rowId(), "b2", HELD, until, 0, false),
        LeaseRenewal.ofWait(row.rowId() + 1_000, "b1", HELD, until))));

    assertArrayEquals(new boolean[] {false}, store.renewAll("node-a", List.of(
        LeaseRenewal.ofAttempt(row.rowId(), "b2", HELD, until, 0, false))), "alone");
    assertEquals(HELD, store.findByRowId(row.rowId()).orElseThrow().nextAttemptAt(), "unchanged");
  }

  @Test
  void anAttemptRenewalCountsAsAnAttemptAndAWaitRenewalDoesNot() {
    LedgerItem started = registerLeased(0, "node-a", HELD);
    LedgerItem waiting = registerLeased(1, "node-a", HELD);
    Instant until = T0.plusSeconds(30);

    assertArrayEquals(new boolean[] {true, true}, store.renewAll("node-a", List.of(
        LeaseRenewal.ofAttempt(started.rowId(), started.id().broadcastId(), HELD, until, 0, false),
        LeaseRenewal.ofWait(waiting.rowId(), waiting.id().broadcastId(), HELD, until))));

    assertEquals(Claim.held(true, 1, 0), store.claim(started.rowId(), "node-b", LEASE_END, until),
        "node-a died while uploading it");
    assertEquals(Claim.HELD, store.claim(waiting.rowId(), "node-b", LEASE_END, until),
        "node-a died while the row only waited in its queue");
    LedgerItem abandoned = store.findByRowId(started.rowId()).orElseThrow();
    assertEquals(Reason.ATTEMPT_ABANDONED, abandoned.reason());
    assertEquals(0, store.findByRowId(waiting.rowId()).orElseThrow().attempts());
  }

  @Test
  void aWaitRenewalNeverTurnsAnAttemptLeaseBackIntoAWait() {
    LedgerItem row = registerLeased(0, "node-a", HELD);
    Instant attempt = T0.plusSeconds(30);
    assertTrue(store.renew(row.rowId(), "node-a", HELD, attempt), "node-a starts uploading it");
    Instant until = T0.plusSeconds(40);

    assertArrayEquals(new boolean[] {true}, store.renewAll("node-a",
        List.of(LeaseRenewal.ofWait(row.rowId(), row.id().broadcastId(), attempt, until))));

    assertEquals(Claim.held(true, 1, 0), store.claim(row.rowId(), "node-b", LEASE_END, until),
        "still an attempt that ended without an outcome");
  }

  @Test
  void aRenewedLeaseIsRenewedAgainOnlyFromItsNewEnd() {
    LedgerItem row = registerLeased(0, "node-a", HELD);
    Instant first = T0.plusSeconds(20);
    Instant second = T0.plusSeconds(30);
    assertArrayEquals(new boolean[] {true}, store.renewAll("node-a",
        List.of(LeaseRenewal.ofWait(row.rowId(), row.id().broadcastId(), HELD, first))));

    assertFalse(store.renew(row.rowId(), "node-a", HELD, second), "the old end no longer names the lease");
    assertArrayEquals(new boolean[] {false}, store.renewAll("node-a",
        List.of(LeaseRenewal.ofAttempt(row.rowId(), row.id().broadcastId(), HELD, second, 0, false))));
    assertArrayEquals(new boolean[] {true}, store.renewAll("node-a",
        List.of(LeaseRenewal.ofAttempt(row.rowId(), row.id().broadcastId(), first, second, 0, false))));
    assertEquals(second, store.findByRowId(row.rowId()).orElseThrow().nextAttemptAt());
  }

  @Test
  void aLargeBatchRenewsEveryRowItNamesAndNoOther() {
    List<LeaseRenewal> renewals = new ArrayList<>();
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < 150; i++) {
      LedgerItem row = registerLeased(i, "node-a", HELD);
      ids.add(row.rowId());
      if (i % 3 != 0) {
        renewals.add(new LeaseRenewal(row.rowId(), row.id().broadcastId(), HELD, T0.plusSeconds(50), i % 2 == 0, 0, false));
      }
    }
    boolean[] renewed = store.renewAll("node-a", renewals);

    assertEquals(100, renewed.length);
    for (boolean r : renewed) {
      assertTrue(r);
    }
    for (int i = 0; i < ids.size(); i++) {
      assertEquals(i % 3 != 0 ? T0.plusSeconds(50) : HELD, store.findByRowId(ids.get(i)).orElseThrow().nextAttemptAt());
    }
    assertEquals(0, store.renewAll("node-a", List.of()).length);
  }

  // ---- leases judged by the store's clock (claimFor, renewAllFor) ----------------------------

  /** What a store's clock may differ from this JVM's in a test: both read the same machine's. */
  private static final Duration NEAR = Duration.ofMinutes(1);
  private static final Duration AN_HOUR = Duration.ofHours(1);

  private static void assertNear(Instant expected, Instant actual, String what) {
    assertTrue(Duration.between(expected, actual).abs().compareTo(NEAR) < 0, what + ": " + actual
        + ", expected about " + expected);
  }

  @Test
  void aClaimForALeaseEndsItWhereTheStoreSaysAndARenewalNamingThatEndExtendsIt() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    Instant now = Instant.now();
    store.currentTime().ifPresent(time -> assertNear(now, time, "the store's clock"));

    ClaimedRow claimed = store.claimFor(row.rowId(), "node-a", AN_HOUR, now);

    assertTrue(claimed.claim().held());
    Instant end = claimed.row().nextAttemptAt();
    assertNear(now.plus(AN_HOUR), end, "the lease ends an hour after the store's now");
    assertEquals(end, store.findByRowId(row.rowId()).orElseThrow().nextAttemptAt(), "as the store keeps it");
    assertEquals(ClaimedRow.REFUSED, store.claimFor(row.rowId(), "node-b", AN_HOUR, now.plus(AN_HOUR.dividedBy(2))),
        "a live lease of another owner");

    Instant[] ends = store.renewAllFor("node-a", List.of(
        LeaseRenewal.ofAttempt(row.rowId(), "b1", end, now.plus(AN_HOUR.multipliedBy(2)), 0, false)), now);
    assertNear(now.plus(AN_HOUR.multipliedBy(2)), ends[0], "renewed for two hours from the store's now");
    assertEquals(ends[0], store.findByRowId(row.rowId()).orElseThrow().nextAttemptAt(), "the end returned is kept");
    assertArrayEquals(new Instant[] {null}, store.renewAllFor("node-a", List.of(
        LeaseRenewal.ofAttempt(row.rowId(), "b1", end, now.plus(AN_HOUR), 0, false)), now),
        "the lease no longer ends where this renewal says");
    assertEquals(0, store.findByRowId(row.rowId()).orElseThrow().attempts());
  }
}
