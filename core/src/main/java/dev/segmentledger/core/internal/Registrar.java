package dev.segmentledger.core.internal;

import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.RegisterResult;
import dev.segmentledger.core.spi.StateStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Writes registrations in batches: group commit for {@link StateStore#registerAll}.
 *
 * <p>Each caller queues its rows and waits until they are durable. Whichever caller finds no write
 * running becomes the leader: it writes everything queued so far (whole registrations, up to about
 * {@value #MAX_ROWS} rows) in one {@code registerAll} transaction, hands each caller its results,
 * and goes on while more is queued. A lone caller writes its own rows at once, so nothing waits
 * for a batch to fill; concurrent callers share one transaction and one commit instead of one
 * each. If a shared batch fails (one registration's conflict, an ended broadcast), each
 * registration of it is written again alone, so a caller gets exactly the outcome it would have
 * had alone: its own all-or-nothing transaction, its own exception. Thread-safe.
 */
final class Registrar {
  static final int MAX_ROWS = 1_000;

  private final StateStore store;
  private final Queue<Request> waiting = new ConcurrentLinkedQueue<>();
  private final ReentrantLock leader = new ReentrantLock();

  Registrar(StateStore store) {
    this.store = store;
  }

  private record Request(List<NewItem> rows, CompletableFuture<List<RegisterResult>> result) {}

  /**
   * Writes {@code rows} atomically, possibly in a transaction shared with other callers' rows;
   * returns once they are durable. Throws what {@link StateStore#registerAll} would throw for
   * these rows alone.
   */
  List<RegisterResult> register(List<NewItem> rows) {
    Request request = new Request(rows, new CompletableFuture<>());
    waiting.add(request);
    // Leading until the queue is empty, and checking again after giving up the lead, means a
    // request queued while another caller leads is always written by someone.
    while (!waiting.isEmpty() && leader.tryLock()) {
      try {
        writeWaiting();
      } finally {
        leader.unlock();
      }
    }
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

  private void writeWaiting() {
    List<Request> batch = new ArrayList<>();
    List<NewItem> rows = new ArrayList<>();
    for (Request next = waiting.peek(); next != null; next = waiting.peek()) {
      if (!batch.isEmpty() && rows.size() + next.rows().size() > MAX_ROWS) {
        break;
      }
      waiting.poll();
      batch.add(next);
      rows.addAll(next.rows());
    }
    if (batch.size() == 1) {
      writeAlone(batch.get(0));
      return;
    }
    List<RegisterResult> results;
    try {
      results = store.registerAll(rows);
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

  private void writeAlone(Request request) {
    try {
      request.result().complete(store.registerAll(request.rows()));
    } catch (RuntimeException | Error e) {
      request.result().completeExceptionally(e);
    }
  }
}
