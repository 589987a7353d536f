package dev.segmentledger.benchmarks;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.ReconciliationReport;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The figures of one failover run ({@link FailoverRun.Observed}), as {@link BenchResult}s named
 * {@code failover.<scenario>.<figure>}: what the recorder saw (failed calls by outcome and kind,
 * the pause, how long it held a file), what the HA engine did (time to a writable new primary), the
 * pipeline (confirms resuming, their longest gap), and the outcome checked without the ledger's
 * counters (rows lost, rows left unconfirmed, confirm events per row, the bucket, the reconciler).
 */
final class FailoverFigures {
  private FailoverFigures() {}

  static List<BenchResult> of(FailoverRun.Observed o) {
    RecorderCounts recorder = RecorderCounts.of(o);
    ConfirmCounts confirms = ConfirmCounts.of(o);
    Map<String, Object> c = conditions(o, recorder.lostSample());
    String name = "failover." + o.scenario().name();
    List<BenchResult> out = new ArrayList<>();
    out.addAll(recorderFigures(name, o, recorder, c));
    out.addAll(pipelineFigures(name, o, confirms, c));
    out.addAll(outcomeFigures(name, o, recorder, confirms, c));
    return out;
  }

  /** What the recorder's register calls met, counted over every scheduled file. */
  private record RecorderCounts(long failedUnknown, long failedNotWritten, int filesFailed, int unknownCommitted,
      int unknownNotCommitted, int notWrittenButFound, int rowsLost, long longestWait, List<Integer> lostSample) {

    static RecorderCounts of(FailoverRun.Observed o) {
      FailoverRecorder r = o.recorder();
      long failedUnknown = 0;
      long failedNotWritten = 0;
      int filesFailed = 0;
      int unknownCommitted = 0;
      int unknownNotCommitted = 0;
      int notWrittenButFound = 0;
      int rowsLost = 0;
      long longestWait = 0;
      List<Integer> lostSample = new ArrayList<>();
      for (int i = 0; i < r.scheduledItems(); i++) {
        failedUnknown += r.failedUnknown[i];
        failedNotWritten += r.failedNotWritten[i];
        boolean failed = r.failedUnknown[i] + r.failedNotWritten[i] > 0;
        filesFailed += failed ? 1 : 0;
        if (r.failedUnknown[i] > 0) {
          if (r.created[i]) {
            unknownNotCommitted++;
          } else {
            unknownCommitted++;
          }
        } else if (failed && !r.created[i]) {
          notWrittenButFound++;
        }
        if (r.returned[i] >= 0) {
          longestWait = Math.max(longestWait, r.returned[i] - r.scheduled[i]);
          if (!o.rowStates().containsKey(i)) {
            rowsLost++;
            if (lostSample.size() < 5) {
              lostSample.add(i);
            }
          }
        }
      }
      return new RecorderCounts(failedUnknown, failedNotWritten, filesFailed, unknownCommitted, unknownNotCommitted,
          notWrittenButFound, rowsLost, longestWait, lostSample);
    }
  }

  /**
   * The confirms: rows and events that disagree, the first confirm of a file registered after the
   * fault, and the longest time without a confirm from the fault on (the first gap counted from the
   * fault itself; confirms resumed where it ended).
   */
  private record ConfirmCounts(long unconfirmed, long confirmedRows, int eventsTwice, int confirmedWithoutEvent,
      long firstConfirmOfNewFile, long confirmGap, long confirmsResumed, long confirmedWithoutObject) {

    static ConfirmCounts of(FailoverRun.Observed o) {
      FailoverRecorder r = o.recorder();
      long faultAt = o.faultAt();
      long unconfirmed = o.rowStates().values().stream().filter(s -> !s.equals("CONFIRMED")).count();
      int eventsTwice = 0;
      int confirmedWithoutEvent = 0;
      long firstConfirmOfNewFile = -1;
      List<Long> confirmTimes = new ArrayList<>();
      for (int i = 0; i < r.scheduledItems(); i++) {
        int events = o.probe().confirmEvents.get(i);
        eventsTwice += events > 1 ? 1 : 0;
        if ("CONFIRMED".equals(o.rowStates().get(i)) && events == 0) {
          confirmedWithoutEvent++;
        }
        long at = o.probe().confirmedAt.get(i);
        if (at != 0) {
          confirmTimes.add(at);
          if (r.lastAttemptStart[i] >= faultAt && (firstConfirmOfNewFile < 0 || at < firstConfirmOfNewFile)) {
            firstConfirmOfNewFile = at;
          }
        }
      }
      long[] sorted = confirmTimes.stream().mapToLong(Long::longValue).filter(t -> t >= faultAt && t <= o.loadEnd())
          .sorted().toArray();
      long confirmGap = 0;
      long confirmsResumed = -1;
      long previous = faultAt;
      for (long t : sorted) {
        if (t - previous > confirmGap) {
          confirmGap = t - previous;
          confirmsResumed = t;
        }
        previous = t;
      }
      long confirmedWithoutObject = o.rowStates().entrySet().stream().filter(e -> e.getValue().equals("CONFIRMED"))
          .map(e -> ObjectKeys.keyOf(ItemId.original(broadcastOf(o), FailoverRun.RENDITION, e.getKey())))
          .filter(k -> !o.objects().contains(k)).count();
      return new ConfirmCounts(unconfirmed, o.rowStates().size() - unconfirmed, eventsTwice, confirmedWithoutEvent,
          firstConfirmOfNewFile, confirmGap, confirmsResumed, confirmedWithoutObject);
    }
  }

  /** The run's conditions, with what a reader needs to see behind the figures. */
  private static Map<String, Object> conditions(FailoverRun.Observed o, List<Integer> lostSample) {
    FailoverRecorder r = o.recorder();
    Map<String, Object> c = new LinkedHashMap<>(o.conditions());
    c.put("per_second", perSecond(o, r.scheduledItems()));
    c.put("files_registered", r.scheduledItems());
    c.put("rows", o.rowStates().size());
    c.put("register_failures_by_kind", r.failuresByKind());
    c.put("register_failure_messages", r.firstOfKind());
    c.put("ha_timeline", o.haTimeline());
    c.put("ledger_failures_by_reason", o.probe().failures.toString());
    c.put("ledger_confirm_lost_events", o.probe().confirmLost.get());
    c.put("ledger_log_samples", o.logs().samples);
    c.put("puts", o.puts());
    c.put("heads", o.heads());
    c.put("rows_lost_sample", lostSample);
    c.put("drain_s", sec(o.drainedAt() - o.loadEnd()));
    c.put("reconcile_differences_sample", o.report().differences().stream().limit(3)
        .map(ReconciliationReport.Difference::describe).toList());
    return c;
  }

  /** What the recorder saw (failed calls, the pause, how long it held a file) and what the HA engine did. */
  private static List<BenchResult> recorderFigures(String name, FailoverRun.Observed o, RecorderCounts n,
      Map<String, Object> c) {
    FailoverRecorder r = o.recorder();
    int files = r.scheduledItems();
    long faultAt = o.faultAt();
    String kinds = describeKinds(r.failuresByKind());
    return List.of(
        BenchResult.info(name + ".register_failures", n.failedUnknown() + n.failedNotWritten(), "calls",
            "register calls that threw StoreException (" + n.failedNotWritten() + " NOT_WRITTEN, " + n.failedUnknown()
                + " UNKNOWN) over " + n.filesFailed() + " of " + files + " files; every file was then registered by"
                + " the retry pattern" + (kinds.isEmpty() ? "" : ". " + kinds), c),
        BenchResult.info(name + ".unknown_outcome_committed", n.unknownCommitted(), "files",
            "files with an UNKNOWN failure whose retry found the row (created=false): committed on the old primary,"
                + " replicated, present on the new one; " + n.unknownNotCommitted() + " more were not committed", c),
        BenchResult.atMost(name + ".not_written_but_found", n.notWrittenButFound(), "files", 0,
            "files whose every failure said NOT_WRITTEN but whose retry found the row (a wrong classification)", c),
        BenchResult.info(name + ".pause_s", r.firstSuccessAfterFault() < 0 ? Double.NaN
            : sec(r.firstSuccessAfterFault() - faultAt), "s",
            "from the fault to the return of the first register call started after it", c),
        BenchResult.info(name + ".register_gap_s", sec(longestGap(r.returned, files, faultAt, o.loadEnd())), "s",
            "longest time without a register call returning normally, from the fault to the end of the load (the"
                + " recorder's stall; a switchover's old primary still takes registrations for a moment)", c),
        BenchResult.info(name + ".ha_new_primary_s", o.newPrimaryAt() < 0 ? Double.NaN
            : sec(o.newPrimaryAt() - faultAt), "s", "from the fault to the monitor showing the other node writable"
                + " (primary, or primary alone)", c),
        BenchResult.info(name + ".longest_file_wait_s", sec(n.longestWait()), "s",
            "longest time from a file's scheduled instant to the return of its registration (retries included)", c));
  }

  /** The pipeline: when confirms resumed after the fault. */
  private static List<BenchResult> pipelineFigures(String name, FailoverRun.Observed o, ConfirmCounts n,
      Map<String, Object> c) {
    long faultAt = o.faultAt();
    return List.of(BenchResult.info(name + ".confirms_resumed_s", n.confirmsResumed() < 0 ? Double.NaN
        : sec(n.confirmsResumed() - faultAt), "s", "from the fault to the end of the longest time without a confirm ("
            + sec(n.confirmGap()) + " s) after it; the first confirm of a file registered after the fault came "
            + (n.firstConfirmOfNewFile() < 0 ? "never" : sec(n.firstConfirmOfNewFile() - faultAt) + " s")
            + " after it", c));
  }

  /** The outcome, checked without the ledger's counters: rows, events, the bucket, the reconciler. */
  private static List<BenchResult> outcomeFigures(String name, FailoverRun.Observed o, RecorderCounts recorder,
      ConfirmCounts n, Map<String, Object> c) {
    return List.of(
        BenchResult.atMost(name + ".rows_lost", recorder.rowsLost(), "rows", 0,
            "files whose register returned normally and whose row is missing on the new primary", c),
        BenchResult.atMost(name + ".unconfirmed_after_drain", n.unconfirmed(), "rows", 0,
            "rows not CONFIRMED " + sec(o.drainedAt() - o.loadEnd()) + " s after the load stopped ("
                + (o.drained() ? "drained" : "NOT drained within " + o.settings().maxDrain().toSeconds() + " s")
                + ")", c),
        BenchResult.info(name + ".duplicate_puts", o.puts() - n.confirmedRows(), "PUTs",
            "PUTs that reached the S3 server minus confirmed rows (" + o.puts() + " PUTs, " + o.heads() + " HEADs)", c),
        BenchResult.atMost(name + ".confirm_events_twice", n.eventsTwice(), "rows", 0,
            "rows with more than one onConfirmed event", c),
        BenchResult.atMost(name + ".confirmed_without_event", n.confirmedWithoutEvent(), "rows", 0,
            "CONFIRMED rows this ledger confirmed without an onConfirmed event (a confirm of unknown outcome not"
                + " judged again)", c),
        BenchResult.atMost(name + ".confirmed_without_object", n.confirmedWithoutObject(), "rows", 0,
            "CONFIRMED rows whose key is missing from a listing taken straight from the S3 server", c),
        BenchResult.atMost(name + ".reconcile_differences", o.report().differences().size(), "differences", 0,
            "Reconciler.reconcile after the drain (ledger on the new primary, bucket straight from the server)", c),
        BenchResult.atMost(name + ".recorder_other_failures", o.recorder().otherFailures(), "calls", 0,
            "register calls that threw anything but StoreException", c),
        BenchResult.info(name + ".ledger_log_lines", o.logs().lines.get(), "lines",
            "ledger log lines at WARN and above, whole run", c));
  }

  /**
   * Per second from 3 s before the fault to the end of the load: register calls that returned,
   * register calls that threw, confirms ("+2 s: 180 ok / 3 failed / 150 confirmed").
   */
  private static List<String> perSecond(FailoverRun.Observed o, int files) {
    long from = o.faultAt() - 3_000_000_000L;
    int seconds = (int) Math.max(0, (o.loadEnd() - from) / 1_000_000_000L) + 1;
    int[] ok = new int[seconds];
    int[] failed = new int[seconds];
    int[] confirmed = new int[seconds];
    for (int i = 0; i < files; i++) {
      bucket(ok, o.recorder().returned[i], from);
      bucket(confirmed, o.probe().confirmedAt.get(i), from);
    }
    for (long t : o.recorder().failureTimes()) {
      bucket(failed, t, from);
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i < seconds; i++) {
      out.add(String.format(java.util.Locale.ROOT, "%+d s: %d ok / %d failed / %d confirmed", i - 3, ok[i], failed[i],
          confirmed[i]));
    }
    return out;
  }

  private static void bucket(int[] counts, long nanos, long from) {
    if (nanos > 0 && nanos >= from) {
      int b = (int) ((nanos - from) / 1_000_000_000L);
      if (b < counts.length) {
        counts[b]++;
      }
    }
  }

  /** The longest time between {@code from} and {@code to} without any of {@code times} (0: none). */
  private static long longestGap(long[] times, int n, long from, long to) {
    long[] in = java.util.Arrays.stream(times, 0, n).filter(t -> t > from && t <= to).sorted().toArray();
    long gap = 0;
    long previous = from;
    for (long t : in) {
      gap = Math.max(gap, t - previous);
      previous = t;
    }
    return Math.max(gap, to - previous);
  }

  private static String broadcastOf(FailoverRun.Observed o) {
    return o.recorder().idOf(0).broadcastId();
  }

  private static String describeKinds(Map<String, Long> kinds) {
    StringBuilder b = new StringBuilder();
    kinds.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(3).forEach(e -> {
      String kind = e.getKey().length() > 160 ? e.getKey().substring(0, 160) + "..." : e.getKey();
      b.append(b.length() == 0 ? "" : "; ").append(e.getValue()).append(" x ").append(kind);
    });
    return b.toString();
  }

  private static double sec(long nanos) {
    return Math.round(nanos / 1e7) / 100.0;
  }
}
