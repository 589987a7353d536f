package dev.segmentledger.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerBuilder;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.spi.PlaylistRecord;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.testkit.ConsistencyAssertions;
import dev.segmentledger.testkit.DirectoryObjectSink;
import dev.segmentledger.testkit.FakeRepackager;
import dev.segmentledger.testkit.LedgerEvents;
import dev.segmentledger.testkit.PostgresExtension;
import dev.segmentledger.testkit.crash.ChildJvm;
import dev.segmentledger.testkit.crash.CrashPoint;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Kills a recorder (SIGKILL, child JVM) at each playlist crash point — right before a playlist PUT
 * (its entry count already recorded), after the PUT before its publication is recorded, and after
 * the record — on its third playlist publication, then recovers on the same node (which takes its
 * leases back) or another one (which waits for them to expire), registers more segments and ends
 * the broadcast. The playlists converge: the final media playlist in the bucket is VOD, lists
 * exactly the confirmed segments, never fewer entries than the bucket showed at the kill, and the
 * ledger records it as published; the reconciler finds the bucket consistent.
 */
@Tag("long")
class PlaylistCrashTest {
  @RegisterExtension static final PostgresExtension PG = PostgresExtension.create();
  private static final int FIRST = 4;
  private static final int MORE = 2;
  private static JdbiStateStore store;

  @TempDir Path temp;

  @BeforeAll
  static void migrate() {
    store = JdbiStateStore.create(Jdbi.create(PG.dataSource())).migrate();
  }

  static Stream<Arguments> points() {
    List<Arguments> cases = new ArrayList<>();
    for (CrashPoint point : List.of(CrashPoint.BEFORE_PLAYLIST_PUT, CrashPoint.AFTER_PLAYLIST_PUT_BEFORE_RECORD,
        CrashPoint.AFTER_PLAYLIST_RECORD)) {
      cases.add(Arguments.of(point, true));
      cases.add(Arguments.of(point, false));
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "SIGKILL at {0}, recovered by the same node: {1}")
  @MethodSource("points")
  void playlistsConvergeAfterAKillDuringTheirPublication(CrashPoint point, boolean sameNode) throws Exception {
    Path root = Files.createDirectories(temp.resolve("root")).toRealPath();
    Path bucketDir = Files.createDirectories(temp.resolve("bucket"));
    String broadcast = "pl" + point.ordinal() + (sameNode ? "s" : "o") + "-" + Long.toString(System.nanoTime(), 36);
    String mediaKey = ObjectKeys.mediaPlaylistKey(broadcast, "720p");

    try (ChildJvm recorder = ChildJvm.start(CrashingRecorder.class, ChildDatabase.args(PG, root.toString(),
        bucketDir.toString(), broadcast, String.valueOf(FIRST), point.name(), Axis.PLAYBACK.name(), "0", "3"),
        ChildJvm.SHORT_LIVED)) {
      String marker = recorder.awaitCrashPoint(Duration.ofSeconds(60));
      assertTrue(marker.contains(point.name()), marker);
      recorder.killHard();
    }
    DirectoryObjectSink bucket = new DirectoryObjectSink(bucketDir);
    int entriesAtKill = text(bucket, mediaKey).map(PlaylistCrashTest::entries).orElse(0);

    LedgerEvents events = new LedgerEvents();
    LedgerBuilder recovery = Wiring.ledger(store, bucket, root, new FakeRepackager(), events);
    if (sameNode) {
      recovery.nodeId(CrashingRecorder.nodeIdFor(broadcast));
    }
    int total = FIRST + MORE;
    try (Ledger restarted = recovery.build()) {
      restarted.start();
      for (int i = 0; i < total; i++) {
        ItemId id = ItemId.original(broadcast, "720p", i);
        restarted.register(id, Wiring.record(root, id));
      }
      restarted.endBroadcast(broadcast);
      events.awaitUntil("the final playlists of " + broadcast + " are published", () -> {
        List<PlaylistRecord> records = store.playlists().find(broadcast);
        return records.size() == 2 && records.stream().allMatch(r -> r.publishedFinal() && !r.awaitingPublication()
            && r.leaseOwner() == null);
      }, Duration.ofSeconds(60));
    }

    List<LedgerItem> playback = store.findByBroadcast(broadcast).stream()
        .filter(r -> r.id().axis() == Axis.PLAYBACK).toList();
    assertTrue(playback.stream().allMatch(r -> r.state() == ItemState.CONFIRMED), playback::toString);
    String media = text(bucket, mediaKey).orElseThrow();
    assertEquals(total, entries(media), media);
    assertTrue(entries(media) >= entriesAtKill, "fewer entries than at the kill: " + media);
    for (LedgerItem row : playback) {
      assertTrue(media.contains("\n" + row.objectKey().substring(broadcast.length() + "/720p/".length()) + "\n"),
          row.objectKey() + " not listed in\n" + media);
    }
    assertTrue(media.endsWith("#EXT-X-ENDLIST\n"), media);
    assertTrue(text(bucket, ObjectKeys.multivariantPlaylistKey(broadcast)).orElseThrow().contains("720p/media.m3u8"));
    System.out.printf("playlist crash at %s (same node: %s): %d entries at the kill, %d final%n", point, sameNode,
        entriesAtKill, entries(media));
    ConsistencyAssertions.assertConsistent(store, bucket, broadcast);
  }

  private static Optional<String> text(DirectoryObjectSink bucket, String key) throws Exception {
    Path file = bucket.pathOf(key);
    return Files.exists(file) ? Optional.of(Files.readString(file, StandardCharsets.UTF_8)) : Optional.empty();
  }

  private static int entries(String m3u8) {
    Matcher m = Pattern.compile("^#EXTINF:", Pattern.MULTILINE).matcher(m3u8);
    int n = 0;
    while (m.find()) {
      n++;
    }
    return n;
  }
}
