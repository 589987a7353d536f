package dev.segmentledger.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.segmentledger.core.Axis;
import dev.segmentledger.core.BroadcastStatus;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.s3.S3ObjectSink;
import dev.segmentledger.s3.S3ProxyServer;
import dev.segmentledger.testkit.ConsistencyAssertions;
import dev.segmentledger.testkit.FakeRepackager;
import dev.segmentledger.testkit.PlaybackBucketServer;
import dev.segmentledger.testkit.PostgresExtension;
import dev.segmentledger.testkit.crash.ChildJvm;
import dev.segmentledger.testkit.crash.CrashPoint;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * "A playlist never goes backwards": three ledger nodes, each in a child JVM
 * ({@link PlaylistNode}), share one PostgreSQL ledger and one S3 bucket (S3Proxy) while a recorder
 * in this JVM registers a segment of each of two renditions every {@value #REGISTER_EVERY_MILLIS}
 * ms; every {@value #TERMINAL_EVERY}th segment's file is deleted right after its registration, so
 * its rows fail terminally (MISSING_FILE) unless a node was quicker. (Truncating it instead fails
 * only its ORIGINAL: the PLAYBACK row is produced from the truncated file, whose registered size
 * the producer does not check.) Meanwhile a kill loop
 * SIGKILLs a random started node every 1.5 to 3 s and restarts it at once, under the same node id (it takes back its leases at once) or a new one (its leases
 * must expire), at random; every third incarnation
 * is also armed to halt itself at one of the playlist crash points
 * ({@link CrashPoint#BEFORE_PLAYLIST_PUT}, {@link CrashPoint#AFTER_PLAYLIST_PUT_BEFORE_RECORD},
 * {@link CrashPoint#AFTER_PLAYLIST_RECORD}), so that kills land inside playlist publication.
 *
 * <p>A reader polls the two media playlists, their live windows and the multivariant playlist over
 * plain HTTP from the bucket (S3Proxy's anonymous port) every 50 ms, and fetches each segment a
 * live window newly lists, as a player would next. Checked: no regression ever (a playlist that
 * disappears, a media playlist that lists fewer entries, lists entries that are not an extension of
 * what it listed before, or loses its {@code EXT-X-ENDLIST}, a multivariant playlist that stops
 * listing a rendition, a live window whose media sequence or end goes back, that drops an entry
 * other than from its front or renumbers one, or that lists a segment answering other than 200);
 * after the broadcast ended and completed, each final
 * media playlist ends the list and lists exactly the broadcast's PLAYBACK rows in order, the
 * confirmed ones as segments and the terminal ones as {@code EXT-X-GAP} entries; the multivariant
 * playlist lists both renditions; the reconciler finds ledger and bucket consistent.
 *
 * <p>{@code ./mvnw verify} records 10 s, the long profile ({@code -Plong}) 30 s (about 1.5 minutes);
 * {@code -Dplaylists.soak.seconds=600} records longer ({@code -Dplaylists.soak.seed} changes the kill
 * schedule).
 */
@Tag("soak")
class PlaylistMonotonicityTest {
  @RegisterExtension static final PostgresExtension PG = PostgresExtension.create();
  private static final String BROADCAST = "monotonic";
  private static final List<String> RENDITIONS = List.of("720p", "360p");
  private static final int NODES = 3;
  private static final Duration LEASE = Duration.ofSeconds(8);
  private static final long REGISTER_EVERY_MILLIS = 150;
  private static final int TERMINAL_EVERY = 9;
  private static final Duration POLL = Duration.ofMillis(50);
  private static final Duration RECORDING = Duration.ofSeconds(Long.getLong("playlists.soak.seconds", 10));
  private static final long SEED = Long.getLong("playlists.soak.seed", 17);
  private static final List<CrashPoint> PLAYLIST_POINTS = List.of(CrashPoint.BEFORE_PLAYLIST_PUT,
      CrashPoint.AFTER_PLAYLIST_PUT_BEFORE_RECORD, CrashPoint.AFTER_PLAYLIST_RECORD);

  @TempDir Path temp;

  @Test
  @Timeout(value = 15, unit = java.util.concurrent.TimeUnit.MINUTES)
  void threeNodesKilledAtRandomAndInsidePublicationNeverShowAReaderAShorterPlaylist() throws Exception {
    long started = System.nanoTime();
    Path root = Files.createDirectories(temp.resolve("root")).toRealPath();
    try (HikariDataSource pool = Wiring.pool(PG.jdbcUrl(), PG.user(), PG.password(), 4);
        PlaybackBucketServer server = PlaybackBucketServer.inMemory(S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY);
        S3Client s3 = S3ProxyServer.client(server.signedEndpoint(), Duration.ofSeconds(30))) {
      JdbiStateStore store = JdbiStateStore.create(Jdbi.create(pool)).migrate();
      String bucket = server.createBucket("playlists");
      S3ObjectSink sink = S3ObjectSink.builder().client(s3).bucket(bucket).build();
      Reader reader = new Reader(server, bucket);
      Nodes nodes = new Nodes(root, server.signedEndpoint(), bucket, new Random(SEED));
      // The recorder registers only: a manual ledger runs no workers, no sweeper, no publisher.
      try (ManualLedger recorder = Ledger.builder().stateStore(store).objectSink(sink).allowedRoot(root)
              .repackager(new FakeRepackager(PlaylistNode.SEGMENT), root.resolve("playback").resolve("recorder"))
              .publishPlaylists(false).buildManual()) {
        for (int i = 0; i < NODES; i++) {
          nodes.start(i, false);
        }
        Thread polling = new Thread(reader::run, "playlist-reader");
        polling.start();
        int sequences;
        try {
          sequences = recordWhileKilling(recorder, root, nodes);
          nodes.stopKilling();
          assertTrue(recorder.endBroadcast(BROADCAST), "the broadcast ends");
          long ending = System.nanoTime();
          awaitFinalPlaylists(recorder, reader, nodes, sequences, Duration.ofSeconds(120));
          System.out.printf("playlists: final playlists %.1f s after the end of the broadcast%n", seconds(ending));
        } finally {
          reader.stop();
          polling.join();
          nodes.closeAll();
        }

        Map<String, long[]> finals = new LinkedHashMap<>();
        for (String rendition : RENDITIONS) {
          finals.put(rendition, assertFinalPlaylistListsTheLedger(store, server, bucket, reader, rendition, sequences));
        }
        Playlist master = reader.latest(ObjectKeys.multivariantPlaylistKey(BROADCAST));
        for (String rendition : RENDITIONS) {
          assertTrue(master.text().contains(rendition + "/" + ObjectKeys.MEDIA_PLAYLIST_NAME),
              "the multivariant playlist lists " + rendition + ":\n" + master.text());
        }
        for (String rendition : RENDITIONS) {
          Playlist window = reader.latest(ObjectKeys.liveMediaPlaylistKey(BROADCAST, rendition));
          assertTrue(window != null && window.endList() && window.entries().size() >= 6
                  && window.mediaSequence() + window.entries().size() == sequences,
              "the final live window of " + rendition + " ends the list at the last of " + sequences + " entries:\n"
                  + (window == null ? "(never read)" : window.text()));
        }
        System.out.printf("playlists: live windows: %d new segments fetched by the reader, none missing%n",
            reader.segmentsFetched.get());
        System.out.printf("playlists: %d nodes, %d incarnations, %d SIGKILLs from the test, %d halts at playlist"
                + " crash points %s; %d sequences x %d renditions registered in %s; reader: %d polls, %d regressions"
                + " %s; final entries per rendition [entries, confirmed, gaps] %s; %d publications printed;"
                + " %.1f s%n",
            NODES, nodes.incarnations.get(), nodes.kills.get(), nodes.halts.size(), nodes.halts, sequences,
            RENDITIONS.size(), RECORDING, reader.polls.get(), reader.regressions.size(), reader.regressions,
            describe(finals), nodes.publications(), seconds(started));
        assertEquals(List.of(), reader.regressions, "a reader never sees a playlist go backwards");
        assertTrue(nodes.kills.get() > 0, "nodes were killed");
        ConsistencyAssertions.assertConsistent(store, sink, BROADCAST);
      }
    }
  }

  /** Registers a segment per rendition every interval for {@link #RECORDING}, killing nodes meanwhile. */
  private int recordWhileKilling(ManualLedger recorder, Path root, Nodes nodes) throws Exception {
    Path dir = Files.createDirectories(root.resolve("rec").resolve(BROADCAST));
    long end = System.nanoTime() + RECORDING.toNanos();
    // On a loaded machine no node may have started within a short recording, so none could be
    // killed: the recording goes on until one was, for at most a minute more.
    long latest = end + Duration.ofMinutes(1).toNanos();
    long nextKill = System.nanoTime() + nodes.nextKillDelayNanos();
    int sequence = 0;
    while (System.nanoTime() < end || (nodes.kills.get() == 0 && System.nanoTime() < latest)) {
      for (String rendition : RENDITIONS) {
        Path file = dir.resolve(rendition + "-" + sequence + ".ts");
        Files.writeString(file, ("segment " + rendition + " " + sequence + "\n").repeat(8 + sequence % 5));
        recorder.register(ItemId.original(BROADCAST, rendition, sequence), file);
        if (sequence % TERMINAL_EVERY == TERMINAL_EVERY - 1) {
          Files.delete(file); // a recorder that lost the file: its rows fail terminally (MISSING_FILE)
        }
      }
      sequence++;
      nodes.restartDead();
      if (System.nanoTime() >= nextKill && nodes.killOne()) {
        nextKill = System.nanoTime() + nodes.nextKillDelayNanos();
      }
      Thread.sleep(REGISTER_EVERY_MILLIS); // the recorder's cadence, not a wait for an outcome
    }
    return sequence;
  }

  /** Waits until the broadcast is complete and each media playlist the reader sees is final. */
  private static void awaitFinalPlaylists(ManualLedger recorder, Reader reader, Nodes nodes, int sequences,
      Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      nodes.restartDead(); // a node armed before the kills stopped may still halt at its crash point
      boolean complete = recorder.broadcastStatus(BROADCAST).phase() == BroadcastStatus.Phase.COMPLETE;
      boolean published = RENDITIONS.stream().allMatch(r -> {
        Playlist p = reader.latest(ObjectKeys.mediaPlaylistKey(BROADCAST, r));
        return p != null && p.endList() && p.entries().size() == sequences;
      });
      if (complete && published) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no final playlists within " + timeout + ": broadcast " + recorder.broadcastStatus(
            BROADCAST) + ", latest seen " + RENDITIONS.stream().map(r -> reader.latest(
                ObjectKeys.mediaPlaylistKey(BROADCAST, r))).toList());
      }
      reader.awaitPoll();
    }
  }

  /** The final media playlist lists each PLAYBACK row in order: confirmed as a segment, terminal as a gap. */
  private static long[] assertFinalPlaylistListsTheLedger(JdbiStateStore store, PlaybackBucketServer server,
      String bucket, Reader reader, String rendition, int sequences) {
    Map<Long, ItemState> states = new LinkedHashMap<>();
    for (LedgerItem item : store.findByBroadcast(BROADCAST)) {
      if (item.id().axis() == Axis.PLAYBACK && item.id().rendition().equals(rendition)) {
        states.put(item.id().sequence(), item.state());
      }
    }
    String key = ObjectKeys.mediaPlaylistKey(BROADCAST, rendition);
    Playlist playlist = reader.latest(key);
    URI base = server.url(bucket, key);
    assertEquals(sequences, states.size(), "a PLAYBACK row per registered sequence of " + rendition);
    assertEquals(sequences, playlist.entries().size(), "entries of the final " + key + ":\n" + playlist.text());
    long confirmed = 0;
    long gaps = 0;
    for (int sequence = 0; sequence < sequences; sequence++) {
      ItemState state = states.get((long) sequence);
      Entry entry = playlist.entries().get(sequence);
      URI expected = server.url(bucket, ObjectKeys.keyOf(ItemId.playback(BROADCAST, rendition, sequence)));
      assertEquals(expected, base.resolve(entry.uri()), "entry " + sequence + " of " + key);
      assertTrue(state == ItemState.CONFIRMED || state == ItemState.REJECTED || state == ItemState.EXCLUDED,
          "sequence " + sequence + " of " + rendition + " is settled: " + state);
      assertEquals(state != ItemState.CONFIRMED, entry.gap(),
          "sequence " + sequence + " (" + state + ") is " + (state == ItemState.CONFIRMED ? "a segment" : "a gap")
              + " in " + key + ":\n" + playlist.text());
      if (state == ItemState.CONFIRMED) {
        confirmed++;
      } else {
        gaps++;
      }
    }
    return new long[] {playlist.entries().size(), confirmed, gaps};
  }

  private static String describe(Map<String, long[]> finals) {
    StringBuilder s = new StringBuilder();
    finals.forEach((r, f) -> s.append(r).append('=').append(java.util.Arrays.toString(f)).append(' '));
    return s.toString().strip();
  }

  private static double seconds(long since) {
    return (System.nanoTime() - since) / 1e9;
  }

  /** One entry of a media playlist: its URI and whether an {@code EXT-X-GAP} tag marks it. */
  record Entry(String uri, boolean gap) {}

  /**
   * A media or multivariant playlist as read from the bucket; {@code mediaSequence} is its
   * {@code EXT-X-MEDIA-SEQUENCE} (0 if absent): the number of its first entry.
   */
  record Playlist(List<Entry> entries, boolean endList, String text, long mediaSequence) {
    static Playlist parse(String text) {
      List<Entry> entries = new ArrayList<>();
      boolean gap = false;
      boolean endList = false;
      long mediaSequence = 0;
      for (String raw : text.split("\n")) {
        String line = raw.strip();
        if (line.startsWith("#EXT-X-MEDIA-SEQUENCE:")) {
          mediaSequence = Long.parseLong(line.substring("#EXT-X-MEDIA-SEQUENCE:".length()));
        } else if (line.equals("#EXT-X-GAP")) {
          gap = true;
        } else if (line.equals("#EXT-X-ENDLIST")) {
          endList = true;
        } else if (!line.isEmpty() && !line.startsWith("#")) {
          entries.add(new Entry(line, gap));
          gap = false;
        }
      }
      return new Playlist(List.copyOf(entries), endList, text, mediaSequence);
    }

    /**
     * For a live window: what makes {@code next} a regression after this one, or null. Its media
     * sequence never goes back; an entry leaves only from the front (every entry from {@code next}'s
     * first number on is still listed, under the same number); a number always names the same
     * segment; the window's end never goes back; an ended list stays ended.
     */
    String windowRegressionTo(Playlist next) {
      if (next.mediaSequence < mediaSequence) {
        return "media sequence " + mediaSequence + " -> " + next.mediaSequence;
      }
      long end = mediaSequence + entries.size();
      long nextEnd = next.mediaSequence + next.entries.size();
      if (nextEnd < end) {
        return "window end " + end + " -> " + nextEnd;
      }
      for (long number = next.mediaSequence; number < end; number++) {
        String was = entries.get((int) (number - mediaSequence)).uri();
        String is = next.entries.get((int) (number - next.mediaSequence)).uri();
        if (!was.equals(is)) {
          return "segment " + number + " changed " + was + " -> " + is;
        }
      }
      if (endList && !next.endList) {
        return "EXT-X-ENDLIST withdrawn";
      }
      return null;
    }

    /** For a multivariant playlist: the renditions it listed that {@code next} no longer lists, or null. */
    String variantsLostIn(Playlist next) {
      List<String> lost = entries.stream().map(Entry::uri)
          .filter(uri -> next.entries.stream().noneMatch(e -> e.uri().equals(uri))).toList();
      return lost.isEmpty() ? null : "renditions withdrawn: " + lost;
    }

    /** For a media playlist: what makes {@code next} a regression after this one, or null if it is none. */
    String regressionTo(Playlist next) {
      if (next.entries.size() < entries.size()) {
        return "entries " + entries.size() + " -> " + next.entries.size();
      }
      for (int i = 0; i < entries.size(); i++) {
        if (!entries.get(i).uri().equals(next.entries.get(i).uri())) {
          return "entry " + i + " changed " + entries.get(i).uri() + " -> " + next.entries.get(i).uri();
        }
      }
      if (endList && !next.endList) {
        return "EXT-X-ENDLIST withdrawn";
      }
      return null;
    }
  }

  /** Polls the playlists over plain HTTP (the anonymous port) every {@link #POLL}, as a player would. */
  private static final class Reader {
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final Map<String, URI> urls = new LinkedHashMap<>();
    private final Map<String, Playlist> latest = new ConcurrentHashMap<>();
    final List<String> regressions = new CopyOnWriteArrayList<>();
    final AtomicLong polls = new AtomicLong();
    final AtomicLong segmentsFetched = new AtomicLong();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Object polled = new Object();

    Reader(PlaybackBucketServer server, String bucket) {
      for (String rendition : RENDITIONS) {
        String key = ObjectKeys.mediaPlaylistKey(BROADCAST, rendition);
        urls.put(key, server.url(bucket, key));
      }
      String master = ObjectKeys.multivariantPlaylistKey(BROADCAST);
      urls.put(master, server.url(bucket, master));
      for (String rendition : RENDITIONS) {
        String key = ObjectKeys.liveMediaPlaylistKey(BROADCAST, rendition);
        urls.put(key, server.url(bucket, key));
      }
    }

    void run() {
      while (running.get()) {
        for (Map.Entry<String, URI> e : urls.entrySet()) {
          poll(e.getKey(), e.getValue());
        }
        polls.incrementAndGet();
        synchronized (polled) {
          polled.notifyAll();
        }
        try {
          Thread.sleep(POLL.toMillis()); // the reader's polling period
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    private void poll(String key, URI url) {
      Playlist before = latest.get(key);
      try {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(10))
            .build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 404) {
          if (before != null) {
            regressions.add(key + ": disappeared after " + before.entries().size() + " entries");
          }
          return;
        }
        if (response.statusCode() != 200) {
          regressions.add(key + ": HTTP " + response.statusCode());
          return;
        }
        Playlist now = Playlist.parse(response.body());
        boolean window = key.endsWith("/" + ObjectKeys.LIVE_PLAYLIST_NAME);
        String regression = before == null ? null
            : key.endsWith(ObjectKeys.MULTIVARIANT_PLAYLIST_NAME) ? before.variantsLostIn(now)
            : window ? before.windowRegressionTo(now) : before.regressionTo(now);
        if (window) {
          checkNewSegmentsAreServed(key, url, before, now);
        }
        if (regression != null) {
          regressions.add(key + ": " + regression);
          System.out.println("REGRESSION " + key + ": " + regression + "\nbefore:\n" + before.text() + "now:\n"
              + now.text());
        }
        latest.put(key, now);
      } catch (java.io.IOException e) {
        regressions.add(key + ": unreadable: " + e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        running.set(false);
      }
    }

    /**
     * GETs each segment that {@code now} lists (not as a gap) and {@code before} did not: a player
     * of the live window fetches it next, so it must be there (no 404).
     */
    private void checkNewSegmentsAreServed(String key, URI url, Playlist before, Playlist now)
        throws java.io.IOException, InterruptedException {
      long seenUpTo = before == null ? 0 : before.mediaSequence() + before.entries().size();
      for (int i = 0; i < now.entries().size(); i++) {
        Entry entry = now.entries().get(i);
        if (now.mediaSequence() + i < seenUpTo || entry.gap()) {
          continue;
        }
        URI segment = url.resolve(entry.uri());
        int status = http.send(HttpRequest.newBuilder(segment).timeout(Duration.ofSeconds(10)).build(),
            HttpResponse.BodyHandlers.discarding()).statusCode();
        segmentsFetched.incrementAndGet();
        if (status != 200) {
          regressions.add(key + ": lists " + entry.uri() + ", which answers HTTP " + status);
        }
      }
    }

    Playlist latest(String key) {
      return latest.get(key);
    }

    /** Waits for the next completed poll round (or 1 s). */
    void awaitPoll() throws InterruptedException {
      synchronized (polled) {
        polled.wait(1_000);
      }
    }

    void stop() {
      running.set(false);
    }
  }

  /** The node processes: started, SIGKILLed at random, armed with playlist crash points, restarted. */
  private static final class Nodes {
    private final Path root;
    private final URI endpoint;
    private final String bucket;
    private final Random random;
    private final ChildJvm[] running = new ChildJvm[NODES];
    private final String[] armed = new String[NODES];
    private final List<ChildJvm> all = new ArrayList<>();
    final AtomicInteger incarnations = new AtomicInteger();
    final AtomicInteger kills = new AtomicInteger();
    final List<String> halts = new ArrayList<>();
    private volatile boolean killing = true;

    Nodes(Path root, URI endpoint, String bucket, Random random) {
      this.root = root;
      this.endpoint = endpoint;
      this.bucket = bucket;
      this.random = random;
    }

    void start(int node, boolean newId) {
      int incarnation = incarnations.incrementAndGet();
      String nodeId = "node-" + node + (newId ? "-" + incarnation : "");
      String point = "-";
      String occurrence = "0";
      if (killing && incarnation % 3 == 0) {
        point = PLAYLIST_POINTS.get((incarnation / 3) % PLAYLIST_POINTS.size()).name();
        occurrence = Integer.toString(1 + random.nextInt(6));
      }
      armed[node] = "-".equals(point) ? null : point + "#" + occurrence;
      ChildJvm child = ChildJvm.start(PlaylistNode.class, ChildDatabase.args(PG, root.toString(), endpoint.toString(),
          bucket, nodeId, Long.toString(LEASE.toMillis()), point, occurrence), ChildJvm.SHORT_LIVED);
      running[node] = child;
      all.add(child);
    }

    long nextKillDelayNanos() {
      return Duration.ofMillis(1_500 + random.nextInt(1_500)).toNanos();
    }

    /**
     * SIGKILLs a random node that has started (killing JVMs still loading classes proves little) and
     * starts it again at once, under the same id or a new one. Returns whether it killed one: not
     * while no node has started yet (on a loaded machine a node takes many seconds to start).
     */
    boolean killOne() throws InterruptedException {
      List<Integer> started = new ArrayList<>();
      for (int i = 0; i < NODES; i++) {
        if (alive(running[i]) && running[i].output().stream().anyMatch(l -> l.startsWith("STARTED "))) {
          started.add(i);
        }
      }
      if (started.isEmpty()) {
        return false;
      }
      int node = started.get(random.nextInt(started.size()));
      running[node].killHard();
      kills.incrementAndGet();
      System.out.println("playlists: SIGKILL node " + node + " (kill " + kills.get() + ")");
      start(node, random.nextBoolean());
      return true;
    }

    /** Restarts nodes that halted themselves at a crash point. */
    void restartDead() {
      for (int i = 0; i < NODES; i++) {
        if (!alive(running[i])) {
          boolean halted = running[i].output().stream().anyMatch(l -> l.startsWith("SEGMENT-LEDGER-CRASH "));
          halts.add(halted ? armed[i] : "exited:" + armed[i]);
          start(i, random.nextBoolean());
        }
      }
    }

    void stopKilling() {
      killing = false;
      restartDead();
    }

    /** Publications the nodes reported (each prints its running count at every 25th and each final one). */
    long publications() {
      return all.stream().mapToLong(c -> c.output().stream().filter(l -> l.startsWith("PUBLISHED "))
          .mapToLong(l -> Long.parseLong(l.split(" ")[1])).max().orElse(0)).sum();
    }

    void closeAll() {
      for (ChildJvm child : all) {
        child.close();
      }
    }

    private boolean alive(ChildJvm child) {
      return ProcessHandle.of(child.pid()).map(ProcessHandle::isAlive).orElse(false);
    }
  }
}
