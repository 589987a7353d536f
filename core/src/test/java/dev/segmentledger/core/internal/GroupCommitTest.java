package dev.segmentledger.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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

  @Test
  void aWaitingLeaderCommitsOneBatchAndHandsTheLeadToACallerWhoseItemIsQueued() throws Exception {
    List<List<Integer>> batches = Collections.synchronizedList(new ArrayList<>());
    Map<Integer, String> committedBy = new ConcurrentHashMap<>();
    Set<Integer> settled = ConcurrentHashMap.newKeySet();
    CountDownLatch leading = new CountDownLatch(1);
    CountDownLatch othersQueued = new CountDownLatch(1);
    GroupCommit<Integer> commits = new GroupCommit<>(100, 100, i -> 1, batch -> {
      batches.add(List.copyOf(batch));
      batch.forEach(i -> committedBy.put(i, Thread.currentThread().getName()));
      if (batch.contains(0)) {
        leading.countDown();
        await(othersQueued);
      }
      settled.addAll(batch);
    });
    Thread first = new Thread(() -> commits.submitAndAwait(0, () -> settled.contains(0)), "first");
    first.start();
    leading.await();
    List<Thread> others = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      int item = i;
      Thread other = new Thread(() -> {
        commits.submitAndAwait(item, () -> settled.contains(item));
        assertTrue(settled.contains(item), "returns only once its item is committed");
      }, "other-" + i);
      others.add(other);
      other.start();
    }
    while (commits.queued() < 3) {
      Thread.onSpinWait();
    }
    othersQueued.countDown();
    first.join();
    for (Thread other : others) {
      other.join();
    }
    assertEquals(2, batches.size(), "the items queued meanwhile go in one batch: " + batches);
    assertEquals(List.of(0), batches.get(0));
    assertEquals(Set.of(1, 2, 3), Set.copyOf(batches.get(1)), "in the order the callers queued them");
    assertEquals("first", committedBy.get(0));
    assertTrue(committedBy.get(1).startsWith("other-"),
        "the first leader returned after its own batch; a caller whose item was queued led the next");
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
