package dev.segmentledger.benchmarks;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.core.Uplink;
import dev.segmentledger.testkit.FakeRepackager;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * One node sharing a capped uplink between a live broadcast and a backfill: a backlog of originals
 * of an ended broadcast waits (registered before the ledger starts, found by its sweeps), then a
 * live broadcast starts: 3 renditions, one 2 s segment each every 2 s, each original repackaged
 * (FakeRepackager: the playback is the original's bytes with a header), about 1 MiB/s of originals
 * and playback in all. Three runs, each in a fresh schema, cap 20 MiB/s: the live broadcast alone
 * (the reference), with the backfill and lanes (the default {@link Uplink}), with the backfill and
 * one lane (the queue as it was before lanes). The sink reads every byte and keeps nothing
 * ({@link DiscardingSink}), so the cap, not the server, is the limit.
 *
 * <p>Sizes: {@code -Dbench.uplink.backfillMiB} (default 4096, smoke 64), {@code -Dbench.uplink.liveSeconds}
 * (default 60, smoke 12), {@code -Dbench.uplink.capMiB} (default 20); {@code -Dbench.uplink.oneLane=false} leaves
 * out the one-lane run (for A-B pairs of the other two).
 */
final class UplinkLanesMeasure implements Measure {
  private static final long MIB = 1024 * 1024;
  private static final int RENDITIONS = 3;
  private static final int BACKFILL_FILE = 8 * (int) MIB;
  private static final long LIVE_BYTES_PER_SECOND = MIB;

  @Override
  public String name() {
    return "uplink_lanes";
  }

  @Override
  public List<BenchResult> run(BenchEnv env) throws Exception {
    long backfillMiB = Long.getLong("bench.uplink.backfillMiB", env.smoke() ? 64 : 4096);
    int liveSeconds = Integer.getInteger("bench.uplink.liveSeconds", env.smoke() ? 12 : 60);
    long cap = Long.getLong("bench.uplink.capMiB", 20) * MIB;
    int segments = liveSeconds / 2;
    int liveFile = (int) (LIVE_BYTES_PER_SECOND * 2 / (2 * RENDITIONS)); // original and playback per rendition
    Path root = env.newDir(name());
    List<Path> backfill = MediaFiles.write(root.resolve("backfill"), (int) (backfillMiB * MIB / BACKFILL_FILE),
        BACKFILL_FILE);
    List<Path> live = new ArrayList<>();
    for (int r = 0; r < RENDITIONS; r++) {
      live.addAll(MediaFiles.write(root.resolve("live-" + r), segments, liveFile));
    }
    Map<String, Object> c = env.conditions();
    c.put("cap_bytes_per_s", cap);
    c.put("backfill", backfill.size() + " originals of " + BACKFILL_FILE / MIB + " MiB of an ended broadcast ("
        + backfillMiB + " MiB), registered before start, found by the sweeps");
    c.put("live", RENDITIONS + " renditions x " + segments + " segments of 2 s, originals of " + liveFile
        + " bytes, each repackaged (FakeRepackager, 2 s segments), one segment per rendition every 2 s");
    c.put("ledger", "4 workers, default queue, DiscardingSink, lanes with Uplink defaults (20% + 20% reserved)");
    c.put("loadavg_start", LoadAvg.now());

    Run alone = run(env, root, List.of(), live, segments, Uplink.builder().bytesPerSecond(cap).build(), cap);
    Run lanes = run(env, root, backfill, live, segments, Uplink.builder().bytesPerSecond(cap).build(), cap);
    Run oneLane = Boolean.parseBoolean(System.getProperty("bench.uplink.oneLane", "true"))
        ? run(env, root, backfill, live, segments, Uplink.builder().lanes(false).bytesPerSecond(cap).build(), cap)
        : null;
    c.put("loadavg_end", LoadAvg.now());
    c.put("run_live_alone", alone.describe());
    c.put("run_lanes", lanes.describe());

    c.put("run_one_lane", oneLane == null ? "not run (-Dbench.uplink.oneLane=false)" : oneLane.describe());
    double worstWindow = Math.max(alone.maxWindowRate, Math.max(lanes.maxWindowRate,
        oneLane == null ? 0 : oneLane.maxWindowRate)) / cap;
    String oneLaneP99 = oneLane == null ? "not run" : (oneLane.unconfirmed > 0 ? "at least " : "")
        + fmt(oneLane.p99Millis) + " ms (" + fmt(oneLane.p99Millis / alone.p99Millis) + " x)";
    return List.of(
        BenchResult.atMost(name() + ".playback_p99_ratio", lanes.p99Millis / alone.p99Millis, "x", 2.0,
            "live PLAYBACK register->confirm p99 with the backfill and lanes / alone: " + fmt(lanes.p99Millis)
                + " / " + fmt(alone.p99Millis) + " ms" + (lanes.unconfirmed > 0 ? " (a lower bound)" : "")
                + "; one lane: " + oneLaneP99, c),
        BenchResult.atLeast(name() + ".backfill_share_of_remaining", lanes.backfillShare(cap), "x", 0.6,
            "backfill bytes/s confirmed while live / (cap - live bytes/s); one lane: "
                + (oneLane == null ? "not run" : fmt(oneLane.backfillShare(cap))), c),
        BenchResult.atMost(name() + ".cap_max_10s_window", worstWindow, "x cap", 1.05,
            "the most body bytes sent in any 10 s window of the three runs, over the cap", c));
  }

  private static String fmt(double v) {
    return BenchResult.fmt(v);
  }

  /** The figures of one run. */
  private record Run(double p99Millis, double p50Millis, double liveRate, double backfillRate, double maxWindowRate,
      double tokenWaitSeconds, long failed, long saturated, long bodyBytes, long confirmedBytes, double sentRate,
      double storedRate, long unconfirmed, int items, String slowest) {
    double backfillShare(long cap) {
      return backfillRate / (cap - liveRate);
    }

    String describe() {
      String notConfirmed = unconfirmed == 0 ? "" : String.format(" (%d of %d live playback segments not confirmed"
          + " 2 min after the live broadcast: their wait until then counted, so p50/p99 are lower bounds)",
          unconfirmed, items);
      return String.format("playback p50 %.1f ms, p99 %.1f ms%s; live %.2f MiB/s; backfill %.2f MiB/s; max 10 s window"
          + " %.2f MiB/s; while live: body bytes read by the sink %.2f MiB/s, stored (sink returned) %.2f MiB/s;"
          + " whole run: body bytes %d, confirmed bytes %d; token wait %.1f s; failed attempts %d; saturated offers %d;"
          + " slowest playback segments (register->confirm = before the PUT + PUT + after it): %s",
          p50Millis, p99Millis, notConfirmed, liveRate / MIB, backfillRate / MIB, maxWindowRate / MIB, sentRate / MIB,
          storedRate / MIB, bodyBytes, confirmedBytes, tokenWaitSeconds, failed, saturated, slowest);
    }
  }

  private Run run(BenchEnv env, Path root, List<Path> backfill, List<Path> live, int segments, Uplink uplink,
      long cap) throws Exception {
    int items = RENDITIONS * segments;
    AtomicLongArray registered = new AtomicLongArray(items);
    AtomicLongArray confirmed = new AtomicLongArray(items);
    AtomicLongArray stored = new AtomicLongArray(items);
    AtomicLongArray putNanos = new AtomicLongArray(items);
    AtomicLongArray initStored = new AtomicLongArray(RENDITIONS);
    AtomicLongArray initConfirmed = new AtomicLongArray(RENDITIONS);
    CountDownLatch playback = new CountDownLatch(items);
    ConcurrentLinkedQueue<long[]> backfillConfirms = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<long[]> liveConfirms = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<long[]> storedEvents = new ConcurrentLinkedQueue<>();
    java.util.concurrent.atomic.AtomicLong failed = new java.util.concurrent.atomic.AtomicLong();
    java.util.concurrent.atomic.AtomicLong saturated = new java.util.concurrent.atomic.AtomicLong();
    LedgerListener listener = new LedgerListener() {
      @Override
      public void onFailed(LedgerItem item, dev.segmentledger.core.Reason reason, String detail, boolean terminal) {
        failed.incrementAndGet();
      }

      @Override
      public void onSaturated(LedgerItem item) {
        saturated.incrementAndGet();
      }

      @Override
      public void onStored(LedgerItem item, dev.segmentledger.core.StoredObjectInfo object, Duration putTime) {
        long now = System.nanoTime();
        storedEvents.add(new long[] {now, object.sizeBytes()});
        if (item.id().broadcastId().equals("live") && item.id().axis() == Axis.INIT) {
          initStored.compareAndSet(rendition(item.id()), 0, now);
        }
        if (item.id().broadcastId().equals("live") && item.id().axis() == Axis.PLAYBACK) {
          int i = rendition(item.id()) * segments + (int) item.id().sequence();
          stored.compareAndSet(i, 0, now);
          putNanos.compareAndSet(i, 0, putTime.toNanos());
        }
      }

      @Override
      public void onConfirmed(LedgerItem item) {
        long now = System.nanoTime();
        if (item.id().broadcastId().equals("backfill")) {
          backfillConfirms.add(new long[] {now, item.sizeBytes()});
          return;
        }
        liveConfirms.add(new long[] {now, item.sizeBytes()});
        if (item.id().axis() == Axis.INIT) {
          initConfirmed.compareAndSet(rendition(item.id()), 0, now);
        }
        if (item.id().axis() == Axis.PLAYBACK) {
          int i = rendition(item.id()) * segments + (int) item.id().sequence();
          if (confirmed.compareAndSet(i, 0, now)) {
            playback.countDown();
          }
        }
      }
    };
    List<long[]> sent = new ArrayList<>();
    try (BenchEnv.Database db = env.newDatabase(name(), 8);
        Ledger ledger = Ledger.builder().stateStore(db.store()).objectSink(new DiscardingSink()).allowedRoot(root)
            .repackager(new FakeRepackager(Duration.ofSeconds(2)), root.resolve("playback-" + System.nanoTime()))
            .workers(4).uplink(uplink).listener(listener).build()) {
      for (int i = 0; i < backfill.size(); i++) {
        ledger.register(ItemId.original("backfill", "r0", i), backfill.get(i));
      }
      ledger.endBroadcast("backfill");
      ledger.start();
      long start = System.nanoTime();
      while (!backfill.isEmpty() && backfillConfirms.isEmpty() && System.nanoTime() - start < 30_000_000_000L) {
        TimeUnit.MILLISECONDS.sleep(50); // the harness waits for the backfill to flow before the live starts
      }
      long liveStart = System.nanoTime();
      long nextSample = liveStart;
      for (int s = 0; s < segments; s++) {
        long due = liveStart + s * 2_000_000_000L;
        while (System.nanoTime() < due) {
          if (System.nanoTime() >= nextSample) {
            sent.add(new long[] {System.nanoTime(), ledger.uplinkStats().bodyBytes()});
            nextSample += 1_000_000_000L;
          }
          TimeUnit.MILLISECONDS.sleep(5);
        }
        for (int r = 0; r < RENDITIONS; r++) {
          registered.set(r * segments + s, System.nanoTime());
          ledger.register(ItemId.original("live", "r" + r, s), live.get(r * segments + s));
        }
      }
      long liveEnd = liveStart + segments * 2_000_000_000L;
      while (System.nanoTime() < liveEnd) {
        if (System.nanoTime() >= nextSample) {
          sent.add(new long[] {System.nanoTime(), ledger.uplinkStats().bodyBytes()});
          nextSample += 1_000_000_000L;
        }
        TimeUnit.MILLISECONDS.sleep(5);
      }
      // With one lane the live segments wait behind the whole backfill: after 2 min, those still not
      // confirmed count with their wait so far (a lower bound), and how many they were is reported.
      playback.await(2, TimeUnit.MINUTES);
      long unconfirmed = playback.getCount();
      long gaveUp = System.nanoTime();
      double seconds = (liveEnd - liveStart) / 1e9;
      double[] millis = new double[items];
      for (int i = 0; i < items; i++) {
        millis[i] = ((confirmed.get(i) == 0 ? gaveUp : confirmed.get(i)) - registered.get(i)) / 1e6;
      }
      String slowest = slowest(registered, stored, putNanos, confirmed, gaveUp, segments);
      StringBuilder inits = new StringBuilder();
      for (int r = 0; r < RENDITIONS; r++) {
        inits.append(String.format("%s r%d INIT stored %.0f ms, confirmed %.0f ms after the rendition's first"
            + " registration", r == 0 ? "" : ";", r, (initStored.get(r) - registered.get(r * segments)) / 1e6,
            (initConfirmed.get(r) - registered.get(r * segments)) / 1e6));
      }
      slowest += "; " + inits;
      Arrays.sort(millis);
      double tokenWait = ledger.uplinkStats().tokenWait().toNanos() / 1e9;
      return new Run(LatencyMeasure.percentile(millis, 0.99), LatencyMeasure.percentile(millis, 0.50),
          bytesBetween(liveConfirms, liveStart, liveEnd) / seconds,
          bytesBetween(backfillConfirms, liveStart, liveEnd) / seconds, maxWindowRate(sent), tokenWait,
          failed.get(), saturated.get(), ledger.uplinkStats().bodyBytes(),
          bytesBetween(liveConfirms, Long.MIN_VALUE, Long.MAX_VALUE)
              + bytesBetween(backfillConfirms, Long.MIN_VALUE, Long.MAX_VALUE),
          sent.size() < 2 ? 0 : (sent.get(sent.size() - 1)[1] - sent.get(0)[1])
              / ((sent.get(sent.size() - 1)[0] - sent.get(0)[0]) / 1e9),
          bytesBetween(storedEvents, liveStart, liveEnd) / seconds, unconfirmed, items, slowest);
    }
  }

  /** The index of a live rendition: r0, r1, r2. */
  private static int rendition(ItemId id) {
    return Integer.parseInt(id.rendition().substring(1));
  }

  /** The five slowest live PLAYBACK segments: which, and where their time went. */
  private static String slowest(AtomicLongArray registered, AtomicLongArray stored, AtomicLongArray putNanos,
      AtomicLongArray confirmed, long gaveUp, int segments) {
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < registered.length(); i++) {
      order.add(i);
    }
    java.util.function.IntToLongFunction total = i -> (confirmed.get(i) == 0 ? gaveUp : confirmed.get(i))
        - registered.get(i);
    order.sort((a, b) -> Long.compare(total.applyAsLong(b), total.applyAsLong(a)));
    List<String> worst = new ArrayList<>();
    for (int i : order.subList(0, Math.min(5, order.size()))) {
      String parts = stored.get(i) == 0 ? "not stored" : String.format("%.0f + %.0f + %.0f",
          (stored.get(i) - putNanos.get(i) - registered.get(i)) / 1e6, putNanos.get(i) / 1e6,
          ((confirmed.get(i) == 0 ? gaveUp : confirmed.get(i)) - stored.get(i)) / 1e6);
      worst.add(String.format("r%d/%d %.0f ms (%s)", i / segments, i % segments, total.applyAsLong(i) / 1e6, parts));
    }
    return String.join(", ", worst);
  }

  private static long bytesBetween(ConcurrentLinkedQueue<long[]> confirms, long from, long to) {
    return confirms.stream().filter(e -> e[0] >= from && e[0] < to).mapToLong(e -> e[1]).sum();
  }

  /** The most bytes a second over any 10 s window of the one-second samples (0 with fewer than 11). */
  private static double maxWindowRate(List<long[]> samples) {
    double max = 0;
    for (int i = 0; i + 10 < samples.size(); i++) {
      long[] from = samples.get(i);
      long[] to = samples.get(i + 10);
      max = Math.max(max, (to[1] - from[1]) / ((to[0] - from[0]) / 1e9));
    }
    return max;
  }

}
