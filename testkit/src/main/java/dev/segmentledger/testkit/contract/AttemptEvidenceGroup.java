package dev.segmentledger.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.spi.Claim;
import dev.segmentledger.core.spi.Confirmation;
import dev.segmentledger.core.spi.LeaseRenewal;
import dev.segmentledger.core.spi.NewItem;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The {@link StateStoreContract} group on the evidence of attempts: what a heartbeat
 * ({@code renewAll} of an attempt's lease) records, and how a claim that finds the attempt abandoned
 * weighs it (counted always; without durable progress, an abandoned attempt; isolated as well,
 * blamed). Run as the contract's {@code @Nested} class {@code AttemptEvidence}.
 */
abstract class AttemptEvidenceGroup extends ContractGroup {

  AttemptEvidenceGroup(StateStoreContract contract) {
    super(contract);
  }

  /** Claims {@code row} for node-a at T0 and sends one heartbeat with this evidence. */
  private void attemptWith(LedgerItem row, long storedBytes, boolean isolated) {
    assertTrue(store.claim(row.rowId(), "node-a", LEASE_END, T0).held());
    assertTrue(store.renewAll("node-a", List.of(LeaseRenewal.ofAttempt(row.rowId(), row.id().broadcastId(),
        LEASE_END, LEASE_END.plusSeconds(10), storedBytes, isolated)))[0]);
  }

  /** The claim by node-b once node-a's lease (renewed to LEASE_END + 10 s) has expired. */
  private Claim takeOver(LedgerItem row, Instant now) {
    return store.claim(row.rowId(), "node-b", now.plusSeconds(120), now);
  }

  @Test
  void anAttemptThatStoredPartsBeforeItsProcessDiedIsCountedButNeverHeldAgainstItsRow() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 100 << 20);
    attemptWith(row, 16 << 20, true);

    Claim claim = takeOver(row, LEASE_END.plusSeconds(11));

    assertEquals(Claim.held(true, 0, 0), claim);
    LedgerItem taken = store.findByRowId(row.rowId()).orElseThrow();
    assertEquals(1, taken.attempts(), "every abandoned attempt is an attempt");
    assertEquals(Reason.ATTEMPT_ABANDONED, taken.reason());
  }

  @Test
  void anAttemptWithoutProgressBesideOtherWorkMakesARowASuspectNotABlamedOne() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    attemptWith(row, 0, false);

    assertEquals(Claim.held(true, 1, 0), takeOver(row, LEASE_END.plusSeconds(11)));
  }

  @Test
  void anIsolatedAttemptWithoutProgressIsBlamedOnItsRow() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    attemptWith(row, 0, true);

    assertEquals(Claim.held(true, 1, 1), takeOver(row, LEASE_END.plusSeconds(11)));
  }

  @Test
  void progressCountsFromWhatWasStoredWhenTheAttemptBeganSoAResumedAttemptThatStoresNothingMoreMadeNone() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 100 << 20);
    attemptWith(row, 40 << 20, false);
    Instant second = LEASE_END.plusSeconds(11);
    assertEquals(Claim.held(true, 0, 0), takeOver(row, second), "the first attempt stored 40 MiB");
    Instant secondEnds = second.plusSeconds(120);
    assertTrue(store.renewAll("node-b", List.of(LeaseRenewal.ofAttempt(row.rowId(), row.id().broadcastId(),
        secondEnds, secondEnds.plusSeconds(10), 40 << 20, true)))[0], "reports the parts it found, nothing more");

    Claim third = store.claim(row.rowId(), "node-c", secondEnds.plusSeconds(300), secondEnds.plusSeconds(11));

    assertEquals(Claim.held(true, 1, 1), third, "found 40 MiB, stored no more, alone: blamed");
  }

  @Test
  void progressClearsTheCountsOfDeathsWithoutIt() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 100 << 20);
    attemptWith(row, 0, true);
    Instant second = LEASE_END.plusSeconds(11);
    assertEquals(Claim.held(true, 1, 1), takeOver(row, second));
    Instant secondEnds = second.plusSeconds(120);
    assertTrue(store.renewAll("node-b", List.of(LeaseRenewal.ofAttempt(row.rowId(), row.id().broadcastId(),
        secondEnds, secondEnds.plusSeconds(10), 8 << 20, true)))[0], "node b stores a part");

    Claim third = store.claim(row.rowId(), "node-c", secondEnds.plusSeconds(300), secondEnds.plusSeconds(11));

    assertEquals(Claim.held(true, 0, 0), third, "the deaths before the progress are forgotten");
  }

  @Test
  void aLeaseTakenAtRegistrationBeginsItsAttemptWhenARenewalMakesItAnAttemptsLease() {
    ItemId id = ItemId.original("b1", "720p", 0);
    Instant registrationLease = T0.plusSeconds(10);
    LedgerItem row = store.register(NewItem.pending(id, "/rec/" + id.objectKey(), 10, T0)
        .leasedTo("node-a", registrationLease)).item();
    assertTrue(store.renewAll("node-a", List.of(LeaseRenewal.ofAttempt(row.rowId(), "b1", registrationLease,
        LEASE_END, 0, true)))[0]);

    assertEquals(Claim.held(true, 1, 1), takeOver(row, LEASE_END.plusSeconds(1)));
  }

  @Test
  void theLeaseOfAWaitCarriesNoEvidence() {
    ItemId id = ItemId.original("b1", "720p", 0);
    Instant registrationLease = T0.plusSeconds(10);
    LedgerItem row = store.register(NewItem.pending(id, "/rec/" + id.objectKey(), 10, T0)
        .leasedTo("node-a", registrationLease)).item();
    assertTrue(store.renewAll("node-a", List.of(LeaseRenewal.ofWait(row.rowId(), "b1", registrationLease,
        LEASE_END)))[0]);

    assertEquals(Claim.held(false, 0, 0), takeOver(row, LEASE_END.plusSeconds(1)), "a wait is no attempt");
  }

  @Test
  void aNewClaimStartsAnAttemptThatIsNotIsolated() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    attemptWith(row, 0, true);
    Instant second = LEASE_END.plusSeconds(11);
    assertEquals(Claim.held(true, 1, 1), takeOver(row, second));

    Claim third = store.claim(row.rowId(), "node-c", second.plusSeconds(300), second.plusSeconds(121));

    assertEquals(Claim.held(true, 2, 1), third, "node-b's attempt never said it was isolated");
  }

  @Test
  void reopenClearsTheEvidenceSoTheRowStartsOver() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    attemptWith(row, 0, true);
    Instant second = LEASE_END.plusSeconds(11);
    assertEquals(Claim.held(true, 1, 1), takeOver(row, second));
    assertTrue(store.markTerminal(row.rowId(), ItemState.PENDING, "node-b", ItemState.REJECTED,
        Reason.REPEATEDLY_ABANDONED, "poison", second.plusSeconds(1)));
    Instant reopened = second.plusSeconds(2);
    assertTrue(store.reopen(row.rowId(), ItemState.REJECTED, Reason.REOPENED, "fixed", reopened));
    assertEquals(0, store.findByRowId(row.rowId()).orElseThrow().attempts());

    assertTrue(store.claim(row.rowId(), "node-a", reopened.plusSeconds(120), reopened).held());
    Claim after = store.claim(row.rowId(), "node-b", reopened.plusSeconds(300), reopened.plusSeconds(121));

    assertEquals(Claim.held(true, 1, 0), after, "counted from zero; the old isolation is gone");
  }

  @Test
  void aConfirmedRowKeepsNoLeaseAndItsEvidenceIsNeverWeighedAgain() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    attemptWith(row, 0, true);
    assertTrue(store.confirm(new Confirmation(row.rowId(), row.id(), ItemState.PENDING, 10, "sha256:x",
        T0.plusSeconds(1))));

    assertEquals(Claim.REFUSED, takeOver(row, LEASE_END.plusSeconds(11)));
  }
}
