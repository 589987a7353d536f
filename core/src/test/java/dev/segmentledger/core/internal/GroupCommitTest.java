package dev.segmentledger.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class GroupCommitTest {
  @Test
  void aLoneCallerCommitsItsOwnItemAtOnce() {
    List<List<Integer>> batches = new ArrayList<>();
    GroupCommit<Integer> commits = new GroupCommit<>(8, 100, i -> 1, batches::add);
    commits.submit(7);
    assertEquals(List.of(List.of(7)), batches);
    assertEquals(false, commits.commitWaiting(), "nothing is left waiting");
  }

  @Test
  void itemsQueuedWhileOneCallerLeadsAreCommittedByItInBatchesUpToTheMaximumWeight() throws Exception {
    List<List<Integer>> batches = Collections.synchronizedList(new ArrayList<>());
    CountDownLatch leading = new CountDownLatch(1);
    CountDownLatch othersQueued = new CountDownLatch(1);
    GroupCommit<Integer>[] holder = new GroupCommit[1];
    holder[0] = new GroupCommit<>(100, 5, i -> i, batch -> {
      batches.add(List.copyOf(batch));
      if (batch.contains(0)) {
        leading.countDown();
        await(othersQueued);
      }
    });
    Thread leader = new Thread(() -> holder[0].submit(0));
    leader.start();
    leading.await();
    for (int i : new int[] {2, 2, 2, 9, 1}) {
      holder[0].submit(i); // the lead is taken: each returns at once, queued for the leader
    }
    othersQueued.countDown();
    leader.join();
    assertEquals(List.of(List.of(0), List.of(2, 2), List.of(2), List.of(9), List.of(1)), batches,
        "whole items in order, up to weight 5 a batch; a heavier item goes alone");
  }

  @Test
  void aFullQueueMakesTheCallerHelpCommit() {
    List<Integer> committed = new ArrayList<>();
    GroupCommit<Integer> commits = new GroupCommit<>(1, 1, i -> 1, committed::addAll);
    for (int i = 0; i < 5; i++) {
      commits.submit(i);
    }
    assertEquals(List.of(0, 1, 2, 3, 4), committed);
    assertTrue(!commits.commitWaiting());
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
