package dev.segmentledger.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.Registration;
import dev.segmentledger.core.StoreException;
import dev.segmentledger.core.StoreException.Outcome;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.RegisterResult;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.testkit.FakeObjectSink;
import dev.segmentledger.testkit.InMemoryStateStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's retry pattern ({@link ReadmeSnippets#registerUntilDone}) against a store that fails
 * as PostgreSQL does while it fails over: a registration committed whose answer was lost
 * ({@link Outcome#UNKNOWN}), then one refused before anything was sent ({@link Outcome#NOT_WRITTEN}).
 * The file ends registered once, and the call that returns says whether an earlier, failed call had
 * in fact written the row.
 */
class RegisterUntilDoneTest {
  @TempDir Path temp;

  /** What each {@code registerAll} call does, in order; then every call passes. */
  private enum Answer { COMMIT_THEN_LOSE_THE_ANSWER, REFUSE_BEFORE_WRITING }

  @Test
  void aRegistrationWhoseAnswerWasLostIsFoundByTheRetry() throws Exception {
    Run run = new Run(Answer.COMMIT_THEN_LOSE_THE_ANSWER, Answer.REFUSE_BEFORE_WRITING);
    Registration registration = ReadmeSnippets.registerUntilDone(run.ledger, run.id, run.file);
    assertFalse(registration.created(), "the first call had committed the row: the retry finds it");
    run.assertOneRow();
  }

  @Test
  void aRegistrationRefusedBeforeWritingIsWrittenByTheRetry() throws Exception {
    Run run = new Run(Answer.REFUSE_BEFORE_WRITING, Answer.REFUSE_BEFORE_WRITING);
    Registration registration = ReadmeSnippets.registerUntilDone(run.ledger, run.id, run.file);
    assertTrue(registration.created(), "nothing was written before: the retry creates the row");
    run.assertOneRow();
  }

  private final class Run {
    final InMemoryStateStore inner = new InMemoryStateStore();
    final Deque<Answer> answers = new ArrayDeque<>();
    final ItemId id = ItemId.original("b42", "720p", 7);
    final Path file;
    final ManualLedger ledger;

    Run(Answer... answers) throws Exception {
      this.answers.addAll(List.of(answers));
      Path root = Files.createDirectories(temp.resolve("recordings"));
      file = Files.writeString(root.resolve("00007.ts"), "media");
      StateStore failingOver = (StateStore) Proxy.newProxyInstance(StateStore.class.getClassLoader(),
          new Class<?>[] {StateStore.class}, (proxy, method, args) -> {
            if (method.getName().equals("registerAll") && !this.answers.isEmpty()) {
              if (this.answers.poll() == Answer.COMMIT_THEN_LOSE_THE_ANSWER) {
                @SuppressWarnings("unchecked")
                List<RegisterResult> written = inner.registerAll((List<NewItem>) args[0]);
                assertEquals(1, written.stream().filter(RegisterResult::created).count());
                throw new StoreException("injected: the connection was lost after the commit was sent", null,
                    Outcome.UNKNOWN);
              }
              throw new StoreException("injected: no connection to a writable server", null, Outcome.NOT_WRITTEN);
            }
            try {
              return method.invoke(inner, args);
            } catch (InvocationTargetException e) {
              throw e.getCause();
            }
          });
      ledger = Ledger.builder().stateStore(failingOver).objectSink(new FakeObjectSink()).allowedRoot(root)
          .buildManual();
    }

    void assertOneRow() {
      assertTrue(answers.isEmpty(), "every failure was met");
      assertEquals(1, inner.findByBroadcast("b42").size());
      assertEquals(ItemState.PENDING, inner.find(id).orElseThrow().state());
    }
  }
}
