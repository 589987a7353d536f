package dev.segmentledger.core.internal;

import dev.segmentledger.core.StoreException;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.RegisterResult;
import dev.segmentledger.core.spi.StateStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Writes the rows of registrations durably, sharing one {@link StateStore#registerAll}
 * transaction between concurrent callers (a {@link GroupCommit}).
 *
 * <p>Each caller queues its rows and waits until they are durable. The leader writes whole
 * registrations, up to about {@value #MAX_ROWS} rows, in one transaction, hands each caller its
 * results, and passes the lead to a caller whose rows are still queued
 * ({@link GroupCommit#submitAndAwait}), so that no caller waits behind other callers' batches after
 * its own rows are durable. If a shared batch fails (one registration's conflict, an ended
 * broadcast), each registration of it is written again alone, so a caller gets exactly the outcome
 * it would have had alone: its own all-or-nothing transaction, its own exception. If the store
 * fails the shared batch and then the first registration alone ({@link StoreException}: the
 * database is unreachable or failing over), the others get the shared batch's exception at once
 * instead of one connection timeout each. Thread-safe.
 */
final class RowWriter {
  static final int MAX_ROWS = 1_000;

  private final StateStore store;
  private final GroupCommit<Request> commits =
      new GroupCommit<>(Integer.MAX_VALUE, MAX_ROWS, request -> request.rows().size(), this::writeBatch);

  RowWriter(StateStore store) {
    this.store = store;
  }

  private record Request(List<NewItem> rows, CompletableFuture<List<RegisterResult>> result) {}

  /**
   * Writes {@code rows} atomically, possibly in a transaction shared with other callers' rows;
   * returns once they are durable. Throws what {@link StateStore#registerAll} would throw for
   * these rows alone.
   */
  List<RegisterResult> write(List<NewItem> rows) {
    Request request = new Request(rows, new CompletableFuture<>());
    commits.submitAndAwait(request, request.result()::isDone);
    try {
      return request.result().join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException cause) {
        throw cause;
      }
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw e;
    }
  }

  private void writeBatch(List<Request> batch) {
    if (batch.size() == 1) {
      writeAlone(batch.get(0));
      return;
    }
    List<NewItem> rows = new ArrayList<>();
    batch.forEach(request -> rows.addAll(request.rows()));
    List<RegisterResult> results;
    try {
      results = store.registerAll(rows);
    } catch (StoreException e) {
      writeAloneUnlessTheStoreFails(batch, e);
      return;
    } catch (RuntimeException | Error e) {
      batch.forEach(this::writeAlone);
      return;
    }
    int from = 0;
    for (Request request : batch) {
      int to = from + request.rows().size();
      request.result().complete(List.copyOf(results.subList(from, to)));
      from = to;
    }
  }

  /**
   * After the store failed a shared batch: writes its registrations alone, unless the store fails
   * the first of them too (a database unreachable or failing over fails every one: writing each
   * alone would hold the last caller for a connection timeout per registration of the batch). The
   * others then get the shared batch's exception, whose outcome is theirs: they were in it. A
   * registration written alone that fails keeps the shared batch's "may have written": its rows
   * were in that batch, which may have committed them.
   */
  private void writeAloneUnlessTheStoreFails(List<Request> batch, StoreException sharedFailure) {
    Request first = batch.get(0);
    writeAlone(first, sharedFailure);
    boolean storeFails = first.result().isCompletedExceptionally()
        && first.result().handle((ok, e) -> e instanceof StoreException).join();
    for (Request request : batch.subList(1, batch.size())) {
      if (storeFails) {
        request.result().completeExceptionally(sharedFailure);
      } else {
        writeAlone(request, sharedFailure);
      }
    }
  }

  private void writeAlone(Request request) {
    writeAlone(request, null);
  }

  /** Writes one registration alone; {@code sharedFailure}: how the shared batch it was in failed, if it did. */
  private void writeAlone(Request request, StoreException sharedFailure) {
    try {
      request.result().complete(store.registerAll(request.rows()));
    } catch (StoreException e) {
      if (sharedFailure != null && sharedFailure.mayHaveWritten() && !e.mayHaveWritten()) {
        StoreException unknown = new StoreException(e.getMessage() + "; before that, a batch with these rows failed"
            + " with its outcome unknown: " + sharedFailure.getMessage(), e, StoreException.Outcome.UNKNOWN);
        request.result().completeExceptionally(unknown);
      } else {
        request.result().completeExceptionally(e);
      }
    } catch (RuntimeException | Error e) {
      request.result().completeExceptionally(e);
    }
  }
}
