package dev.segmentledger.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.spi.Claim;
import dev.segmentledger.core.spi.ClaimedRow;
import dev.segmentledger.core.spi.Confirmation;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.RegisterResult;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;

/**
 * The {@link StateStoreContract} group on leases: {@code claim}, {@code renew}, {@code release},
 * {@code releaseAllOf} and abandoned attempts. Run as the contract's {@code @Nested} class {@code
 * Leases}, on the store of the enclosing contract test.
 */
abstract class LeaseGroup extends ContractGroup {

  LeaseGroup(StateStoreContract contract) {
    super(contract);
  }

  // ---- leases (claim, release) --------------------------------------------------------------


  @Test
  void aClaimThatReturnsTheRowReturnsItAsTheClaimLeftIt() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    assertTrue(store.claim(row.rowId(), "node-a", LEASE_END, T0).held());
    Instant later = LEASE_END.plusSeconds(1);

    ClaimedRow takeOver = store.claimRow(row.rowId(), "node-b", later.plusSeconds(120), later);

    assertEquals(Claim.held(true, 1, 0), takeOver.claim());
    assertEquals(store.findByRowId(row.rowId()).orElseThrow(), takeOver.row());
    assertEquals(later.plusSeconds(120), takeOver.row().nextAttemptAt(), "the new lease is the due time");
    assertEquals(1, takeOver.row().attempts(), "the abandoned attempt is counted in the row returned");
    assertEquals(ClaimedRow.REFUSED, store.claimRow(row.rowId(), "node-c", later.plusSeconds(300), later),
        "valid lease of another owner");
  }

  @Test
  void aClaimedRowCannotBeClaimedByAnotherOwnerWhileTheLeaseIsValid() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);

    assertTrue(store.claim(row.rowId(), "node-a", LEASE_END, T0).held());
    assertFalse(store.claim(row.rowId(), "node-b", T0.plusSeconds(150), T0.plusSeconds(30)).held());
    assertFalse(store.claim(row.rowId(), "node-b", T0.plusSeconds(150), LEASE_END.minusMillis(1)).held(),
        "valid until its last instant");
    assertTrue(store.claim(row.rowId(), "node-a", T0.plusSeconds(200), T0.plusSeconds(30)).held(),
        "the holder may renew its own lease");
  }

  @Test
  void releaseAllOfGivesBackOnlyThatOwnersLeasesAndMakesThemDue() {
    LedgerItem mine = register(ItemId.original("b1", "720p", 0), 10);
    LedgerItem alsoMine = register(ItemId.original("b1", "720p", 1), 10);
    LedgerItem theirs = register(ItemId.original("b1", "720p", 2), 10);
    assertTrue(store.claim(mine.rowId(), "node-a", LEASE_END, T0).held());
    assertTrue(store.claim(alsoMine.rowId(), "node-a", LEASE_END, T0).held());
    assertTrue(store.claim(theirs.rowId(), "node-b", LEASE_END, T0).held());

    assertEquals(2, store.releaseAllOf("node-a", T0.plusSeconds(1)));
    assertEquals(List.of(mine.rowId(), alsoMine.rowId()),
        rowIdsOf(store.findDue(Axis.ORIGINAL, 0, T0.plusSeconds(1), 10).rows()), "due again at once; node-b's row still leased");
    assertTrue(store.claim(mine.rowId(), "node-c", LEASE_END, T0.plusSeconds(1)).held(), "free for anyone");
    assertEquals(0, store.releaseAllOf("node-a", T0.plusSeconds(2)));
  }

  @Test
  void anExpiredLeaseIsClaimedByAnotherOwner() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    assertTrue(store.claim(row.rowId(), "node-a", LEASE_END, T0).held());

    assertTrue(store.claim(row.rowId(), "node-b", LEASE_END.plusSeconds(120), LEASE_END).held(), "expired at leaseUntil");
    assertFalse(store.claim(row.rowId(), "node-a", LEASE_END.plusSeconds(200), LEASE_END.plusSeconds(1)).held(),
        "the former holder lost it");
  }

  @Test
  void aClaimIsTheDueTimeOfTheRowSoTheSweepSkipsItUntilTheLeaseExpires() {
    LedgerItem leased = register(ItemId.original("b1", "720p", 0), 10);
    LedgerItem free = register(ItemId.original("b1", "720p", 1), 10);
    assertTrue(store.claim(leased.rowId(), "node-a", LEASE_END, T0).held());

    assertEquals(LEASE_END, store.findByRowId(leased.rowId()).orElseThrow().nextAttemptAt());
    assertEquals(List.of(free.rowId()), rowIdsOf(store.findDue(Axis.ORIGINAL, 0, T0.plusSeconds(60), 1).rows()),
        "the leased row takes no slot of the page");
    assertEquals(List.of(leased.rowId(), free.rowId()), rowIdsOf(store.findDue(Axis.ORIGINAL, 0, LEASE_END, 10).rows()),
        "due again when the lease expires");
  }

  @Test
  void aClaimFailsOnARowInBackoffOrNotPending() {
    LedgerItem backoff = register(ItemId.original("b1", "720p", 0), 10);
    assertTrue(store.recordFailure(backoff.rowId(), ItemState.PENDING, "node-a", Reason.SINK_TRANSIENT, "503",
        T0.plusSeconds(60)));
    LedgerItem confirmed = register(ItemId.original("b1", "720p", 1), 10);
    assertTrue(store.confirm(new Confirmation(confirmed.rowId(), confirmed.id(),
        ItemState.PENDING, 10, "c", T0)));

    assertFalse(store.claim(backoff.rowId(), "node-a", LEASE_END, T0.plusSeconds(59)).held(), "in backoff");
    assertTrue(store.claim(backoff.rowId(), "node-a", LEASE_END, T0.plusSeconds(60)).held(), "due");
    assertFalse(store.claim(confirmed.rowId(), "node-a", LEASE_END, T0).held());
    assertFalse(store.claim(424242, "node-a", LEASE_END, T0).held(), "unknown row");
  }

  @Test
  void confirmSucceedsWhoeverHoldsTheLeaseAndEndsIt() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    assertTrue(store.claim(row.rowId(), "node-a", LEASE_END, T0).held());

    assertTrue(store.confirm(new Confirmation(row.rowId(), row.id(),
        ItemState.PENDING, 10, "c", T0.plusSeconds(1))),
        "the confirm is a compare-and-set on state and size only");
    assertFalse(store.claim(row.rowId(), "node-a", LEASE_END, T0.plusSeconds(2)).held(), "confirmed rows are not claimed");
    assertFalse(store.release(row.rowId(), "node-a", T0.plusSeconds(2)), "the lease ended with the confirm");
  }

  @Test
  void aRecordedFailureEndsTheLeaseAndSchedulesTheRetry() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    assertTrue(store.claim(row.rowId(), "node-a", LEASE_END, T0).held());

    assertTrue(store.recordFailure(row.rowId(), ItemState.PENDING, "node-a", Reason.SINK_TRANSIENT, "503", T0.plusSeconds(5)));
    assertEquals(T0.plusSeconds(5), store.findByRowId(row.rowId()).orElseThrow().nextAttemptAt());
    assertTrue(store.claim(row.rowId(), "node-b", LEASE_END, T0.plusSeconds(5)).held(),
        "another owner takes the retry as soon as it is due, long before the old lease would have expired");
  }

  @Test
  void aClaimOfAnExpiredLeaseRecordsTheAbandonedAttempt() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    assertEquals(Claim.HELD, store.claim(row.rowId(), "node-a", LEASE_END, T0));

    assertEquals(Claim.held(true, 1, 0), store.claim(row.rowId(), "node-b", LEASE_END.plusSeconds(120), LEASE_END),
        "node-a's attempt ended without an outcome");
    LedgerItem taken = store.findByRowId(row.rowId()).orElseThrow();
    assertEquals(1, taken.attempts(), "the abandoned attempt is counted");
    assertEquals(Reason.ATTEMPT_ABANDONED, taken.reason());
    assertTrue(taken.lastError().contains("node-a"), taken.lastError());
    assertEquals(Claim.held(true, 2, 0), store.claim(row.rowId(), "node-c", LEASE_END.plusSeconds(240),
        LEASE_END.plusSeconds(120)));

    assertTrue(store.recordFailure(row.rowId(), ItemState.PENDING, "node-c", Reason.SINK_TRANSIENT, "503",
        LEASE_END.plusSeconds(130)));
    assertEquals(Claim.held(false, 2, 0), store.claim(row.rowId(), "node-a", LEASE_END.plusSeconds(300),
        LEASE_END.plusSeconds(130)), "a recorded failure ends its attempt; the count stays");
    assertEquals(3, store.findByRowId(row.rowId()).orElseThrow().attempts());
  }

  @Test
  void aValidLeaseOfTheClaimantIsNotAnAbandonedAttempt() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    assertTrue(store.claim(row.rowId(), "node-a", LEASE_END, T0).held());

    assertEquals(Claim.HELD, store.claim(row.rowId(), "node-a", LEASE_END.plusSeconds(60), T0.plusSeconds(30)));
    assertEquals(0, store.findByRowId(row.rowId()).orElseThrow().attempts());
  }

  @Test
  void releaseAllOfEndsTheLeasesSoThatTheNextClaimCountsThem() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    assertTrue(store.claim(row.rowId(), "node-a", LEASE_END, T0).held());

    assertEquals(1, store.releaseAllOf("node-a", T0.plusSeconds(1)));
    assertEquals(Claim.held(true, 1, 0), store.claim(row.rowId(), "node-a", LEASE_END, T0.plusSeconds(1)),
        "the same node restarted: its earlier life's attempt ended without an outcome");
  }

  @Test
  void reopenResetsTheCountOfAbandonedAttempts() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    assertTrue(store.claim(row.rowId(), "node-a", LEASE_END, T0).held());
    assertEquals(Claim.held(true, 1, 0), store.claim(row.rowId(), "node-b", LEASE_END.plusSeconds(120), LEASE_END));
    assertTrue(store.markTerminal(row.rowId(), ItemState.PENDING, "node-b", ItemState.REJECTED,
        Reason.REPEATEDLY_ABANDONED, "too many", LEASE_END));

    assertTrue(store.reopen(row.rowId(), ItemState.REJECTED, Reason.REOPENED, "fixed", LEASE_END.plusSeconds(1)));
    assertTrue(store.claim(row.rowId(), "node-a", LEASE_END.plusSeconds(200), LEASE_END.plusSeconds(1)).held());
    assertEquals(Claim.held(true, 1, 0), store.claim(row.rowId(), "node-b", LEASE_END.plusSeconds(400),
        LEASE_END.plusSeconds(200)), "counted afresh after the re-open");
  }

  @Test
  void anExpiredLeaseTakenAtRegistrationIsNotAnAbandonedAttemptUnlessRenewed() {
    Instant held = T0.plusSeconds(10);
    LedgerItem queued = store.register(NewItem.pending(ItemId.original("b1", "720p", 0), "/rec/0.ts", 10, T0)
        .leasedTo("node-a", held)).item();
    LedgerItem started = store.register(NewItem.pending(ItemId.original("b1", "720p", 1), "/rec/1.ts", 10, T0)
        .leasedTo("node-a", held)).item();
    assertTrue(store.renew(started.rowId(), "node-a", held, LEASE_END), "node-a starts uploading it");

    assertEquals(Claim.HELD, store.claim(queued.rowId(), "node-b", LEASE_END, held),
        "node-a died while the row only waited in its queue");
    assertEquals(Claim.held(true, 1, 0), store.claim(started.rowId(), "node-b", LEASE_END.plusSeconds(60), LEASE_END),
        "node-a died while uploading it");
  }

  @Test
  void renewExtendsOnlyTheExactLeaseTheCallerTook() {
    Instant held = T0.plusSeconds(10);
    LedgerItem row = store.register(NewItem.pending(ItemId.original("b1", "720p", 0), "/rec/0.ts", 10, T0)
        .leasedTo("node-a", held)).item();

    assertFalse(store.renew(row.rowId(), "node-b", held, LEASE_END), "not the holder");
    assertFalse(store.renew(row.rowId(), "node-a", held.plusSeconds(1), LEASE_END), "not the lease it took");
    assertTrue(store.renew(row.rowId(), "node-a", held, LEASE_END), "even if it expired meanwhile");
    assertEquals(LEASE_END, store.findByRowId(row.rowId()).orElseThrow().nextAttemptAt());
    assertEquals(0, store.findByRowId(row.rowId()).orElseThrow().attempts(), "a renewal is no abandoned attempt");
    assertTrue(store.claim(row.rowId(), "node-b", LEASE_END.plusSeconds(60), LEASE_END).held());
    assertFalse(store.renew(row.rowId(), "node-a", LEASE_END, LEASE_END.plusSeconds(120)), "taken over");
  }

  @Test
  void aHolderWhoseLeaseWasTakenOverRecordsNothing() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    assertTrue(store.claim(row.rowId(), "node-a", LEASE_END, T0).held());
    assertTrue(store.claim(row.rowId(), "node-b", LEASE_END.plusSeconds(120), LEASE_END).held());

    assertFalse(store.recordFailure(row.rowId(), ItemState.PENDING, "node-a", Reason.SINK_TRANSIENT, "late 503",
        LEASE_END.plusSeconds(1)), "node-a's lease is gone");
    assertFalse(store.markTerminal(row.rowId(), ItemState.PENDING, "node-a", ItemState.REJECTED,
        Reason.SINK_PERMANENT, "late 403", LEASE_END.plusSeconds(1)));
    LedgerItem now = store.findByRowId(row.rowId()).orElseThrow();
    assertEquals(ItemState.PENDING, now.state());
    assertEquals(LEASE_END.plusSeconds(120), now.nextAttemptAt(), "node-b's lease is untouched");
    assertFalse(store.claim(row.rowId(), "node-c", LEASE_END.plusSeconds(200), LEASE_END.plusSeconds(1)).held());
    assertTrue(store.recordFailure(row.rowId(), ItemState.PENDING, "node-b", Reason.SINK_TRANSIENT, "503",
        LEASE_END.plusSeconds(2)), "the holder records its failure");
  }

  @Test
  void theFileIdentityIsStoredAndKeptByReopenUnlessTheFileChanged() {
    List<NewItem> batch = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      batch.add(NewItem.pending(ItemId.original("b1", "720p", i), "/rec/" + i + ".ts", 10, T0)
          .withFileIdentity("(dev=1,ino=" + i + ")@" + T0));
    }
    List<RegisterResult> many = store.registerAll(batch);
    RegisterResult one = store.register(NewItem.pending(ItemId.original("b1", "720p", 9), "/rec/9.ts", 10, T0)
        .withFileIdentity("(dev=1,ino=9)@" + T0));
    for (int i = 0; i < 6; i++) {
      assertEquals("(dev=1,ino=" + i + ")@" + T0, many.get(i).item().fileIdentity());
      assertEquals("(dev=1,ino=" + i + ")@" + T0, store.findByRowId(many.get(i).item().rowId()).orElseThrow()
          .fileIdentity(), "as read back");
    }
    assertEquals("(dev=1,ino=9)@" + T0, store.findByRowId(one.item().rowId()).orElseThrow().fileIdentity());

    long changed = many.get(0).item().rowId();
    long refused = many.get(1).item().rowId();
    assertTrue(store.markTerminal(changed, ItemState.PENDING, "node-a", ItemState.REJECTED, Reason.FILE_CHANGED,
        "rewritten", T0));
    assertTrue(store.markTerminal(refused, ItemState.PENDING, "node-a", ItemState.REJECTED, Reason.SINK_PERMANENT,
        "403", T0));
    assertTrue(store.reopen(changed, ItemState.REJECTED, Reason.REOPENED, "accepted as it is", T0));
    assertTrue(store.reopen(refused, ItemState.REJECTED, Reason.REOPENED, "policy fixed", T0));
    assertNull(store.findByRowId(changed).orElseThrow().fileIdentity(), "re-opening accepts the file as it is now");
    assertEquals("(dev=1,ino=1)@" + T0, store.findByRowId(refused).orElseThrow().fileIdentity());
  }

  @Test
  void releaseGivesBackOnlyTheHoldersLease() {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    assertTrue(store.claim(row.rowId(), "node-a", LEASE_END, T0).held());

    assertFalse(store.release(row.rowId(), "node-b", T0), "not the holder");
    assertTrue(store.release(row.rowId(), "node-a", T0.plusSeconds(1)));
    assertEquals(T0.plusSeconds(1), store.findByRowId(row.rowId()).orElseThrow().nextAttemptAt());
    assertTrue(store.claim(row.rowId(), "node-b", LEASE_END, T0.plusSeconds(1)).held(), "free again at once");
  }

  @Test
  void ofConcurrentClaimsOfOneRowExactlyOneWins() throws Exception {
    LedgerItem row = register(ItemId.original("b1", "720p", 0), 10);
    List<Callable<Boolean>> claimants = new ArrayList<>();
    for (int i = 0; i < CONCURRENT_CONFIRMERS; i++) {
      String owner = "node-" + i;
      claimants.add(() -> store.claim(row.rowId(), owner, LEASE_END, T0).held());
    }

    assertEquals(1, wins(race(claimants)));
  }
}
