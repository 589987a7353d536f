package dev.segmentledger.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.RegisterResult;
import dev.segmentledger.core.spi.StateStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;

/**
 * The base of the {@link StateStoreContract}'s groups: the store under test, taken from the
 * enclosing contract test before each test method (after the contract's own {@code @BeforeEach} has
 * made it), and the helpers the groups share.
 */
abstract class ContractGroup {
  /** The registration time of rows in these tests. */
  static final Instant T0 = StateStoreContract.T0;

  /** The end of the leases the tests take at {@link #T0}. */
  static final Instant LEASE_END = T0.plusSeconds(120);

  static final int CONCURRENT_CONFIRMERS = 8;

  private final StateStoreContract contract;

  /** The store under test, fresh for each test method. */
  StateStore store;

  ContractGroup(StateStoreContract contract) {
    this.contract = contract;
  }

  @BeforeEach
  final void takeTheContractsStore() {
    store = contract.store;
  }

  /** Registers a PENDING row at {@link #T0} and returns it. */
  final LedgerItem register(ItemId id, long sizeBytes) {
    RegisterResult result = store.register(NewItem.pending(id, "/rec/" + id.objectKey(), sizeBytes, T0));
    assertTrue(result.created(), () -> id + " was already registered");
    assertSame(ItemState.PENDING, result.item().state());
    return result.item();
  }

  /**
   * Runs each task on a thread of its own, all released at once, and returns their results in
   * order (failing the test if one throws or takes more than 30 seconds).
   */
  static <T> List<T> race(List<Callable<T>> tasks) throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService threads = Executors.newFixedThreadPool(tasks.size());
    try {
      List<Future<T>> outcomes = new ArrayList<>();
      for (Callable<T> task : tasks) {
        outcomes.add(threads.submit(() -> {
          start.await();
          return task.call();
        }));
      }
      start.countDown();
      List<T> results = new ArrayList<>();
      for (Future<T> outcome : outcomes) {
        results.add(outcome.get(30, TimeUnit.SECONDS));
      }
      return results;
    } finally {
      threads.shutdownNow();
    }
  }

  /** How many of the raced compare-and-set calls succeeded. */
  static long wins(List<Boolean> outcomes) {
    return outcomes.stream().filter(Boolean::booleanValue).count();
  }

  /** Asserts that the rows a batch created have ids growing in {@link ItemId#IDENTITY_ORDER}. */
  static void assertRowIdsGrowInIdentityOrder(List<RegisterResult> results) {
    List<LedgerItem> created = results.stream()
        .filter(RegisterResult::created)
        .map(RegisterResult::item)
        .sorted(Comparator.comparing(LedgerItem::id, ItemId.IDENTITY_ORDER))
        .toList();
    for (int i = 1; i < created.size(); i++) {
      assertTrue(created.get(i).rowId() > created.get(i - 1).rowId(), "row ids grow in identity order: "
          + created.get(i - 1).id() + " has " + created.get(i - 1).rowId() + ", " + created.get(i).id() + " has "
          + created.get(i).rowId());
    }
  }

  static List<Long> rowIdsOf(List<LedgerItem> rows) {
    return rows.stream().map(LedgerItem::rowId).toList();
  }
}
