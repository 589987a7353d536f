package dev.segmentledger.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The monitor's view of a {@link AutoFailoverCluster}'s nodes, polled every 100 ms on a thread of
 * its own, with the run's own marks (fault, thaw, load stopped) in between: when the nodes changed
 * state, and when another node than the old primary first became writable. Thread-safe.
 */
final class HaTimeline implements AutoCloseable {
  private record Event(long nanos, String what) {}

  private final AutoFailoverCluster cluster;
  private final List<Event> events = new ArrayList<>();
  private final Thread poller;
  private volatile boolean running = true;

  HaTimeline(AutoFailoverCluster cluster) {
    this.cluster = cluster;
    this.poller = new Thread(this::poll, "failover-ha-timeline");
    poller.setDaemon(true);
  }

  void start() {
    poller.start();
  }

  private void poll() {
    String previous = "";
    while (running) {
      try {
        List<AutoFailoverCluster.NodeState> states = cluster.states();
        String now = states.toString();
        if (!now.equals(previous)) {
          synchronized (events) {
            events.add(new Event(System.nanoTime(), now));
          }
          previous = now;
        }
      } catch (Exception e) {
        previous = "monitor unreachable: " + e.getMessage();
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  void mark(String what) {
    mark(System.nanoTime(), what);
  }

  void mark(long nanos, String what) {
    synchronized (events) {
      events.add(new Event(nanos, "** " + what));
      events.sort(java.util.Comparator.comparingLong(Event::nanos));
    }
  }

  /**
   * When the monitor first showed a node other than {@code oldPrimary} writable (primary, or
   * primary alone); -1 if it has not yet.
   */
  long newPrimaryAt(String oldPrimary) {
    synchronized (events) {
      for (Event e : events) {
        if (!e.what().startsWith("**") && writableOtherThan(e.what(), oldPrimary)) {
          return e.nanos();
        }
      }
    }
    return -1;
  }

  private static boolean writableOtherThan(String states, String oldPrimary) {
    for (String node : states.replaceAll("[\\[\\] ]", "").split(",")) {
      if (!node.startsWith(oldPrimary + ":") && (node.endsWith(":primary") || node.endsWith(":wait_primary"))) {
        return true;
      }
    }
    return false;
  }

  /** The events, in seconds from {@code origin}. */
  List<String> events(long origin) {
    List<String> out = new ArrayList<>();
    synchronized (events) {
      for (Event e : events) {
        out.add(String.format(Locale.ROOT, "%+.1f s %s", (e.nanos() - origin) / 1e9, e.what()));
      }
    }
    return out;
  }

  void stop() throws InterruptedException {
    running = false;
    poller.interrupt();
    poller.join(5_000);
  }

  @Override
  public void close() throws InterruptedException {
    stop();
  }
}
