package dev.segmentledger.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Registration;
import dev.segmentledger.core.spi.Confirmation;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.RegisterResult;
import dev.segmentledger.core.spi.StateStore;
import java.time.Instant;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;

/**
 * The behaviour every {@link StateStore} must have, as an abstract JUnit 5 test. Extend it and
 * implement {@link #newEmptyStore()}; every test method gets a fresh empty store.
 *
 * <p>Covers each SPI method: idempotent registration and conflicts, terminal registrations, the
 * sweep page (order, keyset, limit, backoff, state and axis filtering), the compare-and-set
 * updates, concurrent confirms, leases (claim and release), the read methods, and the operations
 * queries (rows across broadcasts by state, reason, attempts and age, keyset-paged both ways; the
 * backlog figures per axis), and retention ({@code purge}). Instants used are whole milliseconds, so a
 * store that keeps microseconds (PostgreSQL) returns them unchanged.
 *
 * <p>The tests are grouped by SPI area into {@code @Nested} classes, which a subclass inherits and
 * which run on the store of {@link #newEmptyStore()}: {@link Registration},
 * {@link OriginalFormatAndRecordingTime}, {@link SweepAndReads},
 * {@link Confirmation}, {@link FailuresAndTerminalStates}, {@link Reopen},
 * {@link CutoffAndBroadcasts}, {@link OperationsQueries}, {@link Leases}, {@link Retention},
 * {@link Playlists}, {@link LongBroadcasts}, {@link StorageGroups}, {@link LocalFiles} (the recorder's disk) and
 * {@link LaneHints}. Surefire lists each test under its group's class (for example {@code StateStoreContract$Leases}); selecting the
 * subclass ({@code -Dtest=MyStoreContractTest}) runs every group.
 *
 * <p>Test methods may start threads of their own; a subclass must not assume a single thread.
 */
public abstract class StateStoreContract {
  /** The registration time of rows in these tests. */
  protected static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  /** The store under test, fresh for each test method. */
  protected StateStore store;

  /** For subclasses. */
  protected StateStoreContract() {}

  /**
   * A new store with no rows, isolated from every store returned before. Called before each
   * test method.
   *
   * @return the store under test
   * @throws Exception if the store cannot be made; the test fails
   */
  protected abstract StateStore newEmptyStore() throws Exception;

  @BeforeEach
  final void createStore() throws Exception {
    store = newEmptyStore();
  }

  /**
   * Registers a PENDING row at {@link #T0} and returns it.
   *
   * @param id the row's identity, not registered yet
   * @param sizeBytes the row's size
   * @return the new row
   */
  protected final LedgerItem register(ItemId id, long sizeBytes) {
    RegisterResult result = store.register(NewItem.pending(id, "/rec/" + id.objectKey(), sizeBytes, T0));
    assertTrue(result.created(), () -> id + " was already registered");
    assertSame(ItemState.PENDING, result.item().state());
    return result.item();
  }

  /**
   * Registration: idempotent {@code register}, conflicts, terminal and waiting registrations,
   * atomic {@code registerAll} batches and rows leased at registration.
   */
  @Nested
  public class Registration extends RegistrationGroup {
    Registration() {
      super(StateStoreContract.this);
    }
  }

  /**
   * What a registration stores besides the file: an original's format (its key's extension; the
   * same position in another format is a conflict) and the recording time, kept by every transition.
   */
  @Nested
  public class OriginalFormatAndRecordingTime extends OriginalFormatGroup {
    OriginalFormatAndRecordingTime() {
      super(StateStoreContract.this);
    }
  }

  /** The sweep page ({@code findDue}) and the read methods ({@code find}, {@code findByBroadcast}, {@code count}). */
  @Nested
  public class SweepAndReads extends SweepAndReadsGroup {
    SweepAndReads() {
      super(StateStoreContract.this);
    }
  }

  /**
   * Confirmation: the compare-and-set {@code confirm}, concurrent confirms, {@code confirmAll}
   * batches, the init gate and produced files.
   */
  @Nested
  public class Confirmation extends ConfirmGroup {
    Confirmation() {
      super(StateStoreContract.this);
    }
  }

  /** Failures and terminal states: {@code recordFailure} and {@code markTerminal}. */
  @Nested
  public class FailuresAndTerminalStates extends FailureAndTerminalGroup {
    FailuresAndTerminalStates() {
      super(StateStoreContract.this);
    }
  }

  /** Re-opening rows ({@code reopen}, the reconciler's repair) and {@code settleWaiting}. */
  @Nested
  public class Reopen extends ReopenGroup {
    Reopen() {
      super(StateStoreContract.this);
    }
  }

  /** The cutoff ({@code excludeRegisteredBefore}) and the broadcast lifecycle ({@code endBroadcast}). */
  @Nested
  public class CutoffAndBroadcasts extends CutoffAndBroadcastGroup {
    CutoffAndBroadcasts() {
      super(StateStoreContract.this);
    }
  }

  /** The operations queries: {@code findRows} and {@code backlog}. */
  @Nested
  public class OperationsQueries extends OperationsQueriesGroup {
    OperationsQueries() {
      super(StateStoreContract.this);
    }
  }

  /** Leases: {@code claim}, {@code renew}, {@code release}, {@code releaseAllOf}, abandoned attempts. */
  @Nested
  public class Leases extends LeaseGroup {
    Leases() {
      super(StateStoreContract.this);
    }
  }

  /** Batched lease renewal: {@code renewAll}, with and without making the lease an attempt's. */
  @Nested
  public class LeaseRenewals extends LeaseRenewalGroup {
    LeaseRenewals() {
      super(StateStoreContract.this);
    }
  }

  /** The evidence of attempts: what heartbeats record and how a takeover weighs it. */
  @Nested
  public class AttemptEvidence extends AttemptEvidenceGroup {
    AttemptEvidence() {
      super(StateStoreContract.this);
    }
  }

  /** Retention: {@code purge}, what it removes and what it never removes. */
  @Nested
  public class Retention extends RetentionGroup {
    Retention() {
      super(StateStoreContract.this);
    }
  }

  /**
   * Playlist publication ({@code playlists()}): which changes increment which playlist, and the
   * leased, compare-and-set publication records.
   */
  @Nested
  public class Playlists extends PlaylistsGroup {
    Playlists() {
      super(StateStoreContract.this);
    }
  }

  /**
   * Playlists of long broadcasts at a constant cost per new segment: {@code findSegments},
   * {@code hasOpenRows}, live-window publications ({@code recordLivePublished}, {@code fullDueAt}),
   * the peak bandwidth and sealed parts.
   */
  @Nested
  public class LongBroadcasts extends LongBroadcastsGroup {
    LongBroadcasts() {
      super(StateStoreContract.this);
    }
  }

  /** Storage groups: the group of a row, the sweep page of a group, hand-over and lost groups. */
  @Nested
  public class StorageGroups extends StorageGroupsGroup {
    StorageGroups() {
      super(StateStoreContract.this);
    }
  }

  /** The recorder's disk: the confirmed rows whose produced file is still to delete, and their mark. */
  @Nested
  public class LocalFiles extends LocalFilesGroup {
    LocalFiles() {
      super(StateStoreContract.this);
    }
  }

  /**
   * Lane hints: the lane a row is registered in, returned by every read and kept by every
   * transition; a broadcast's hint ({@code prioritize}), read back by {@code findBroadcast}.
   */
  @Nested
  public class LaneHints extends LaneHintsGroup {
    LaneHints() {
      super(StateStoreContract.this);
    }
  }

  /**
   * Stored uplink caps: stored, replaced per node, read back in node order, removed.
   */
  @Nested
  public class UplinkCaps extends UplinkCapsGroup {
    UplinkCaps() {
      super(StateStoreContract.this);
    }
  }
}
