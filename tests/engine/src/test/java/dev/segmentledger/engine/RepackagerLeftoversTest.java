package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.spi.Repackager;
import dev.segmentledger.testkit.ConsistencyAssertions;
import dev.segmentledger.testkit.FakeRepackager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Temporary files a killed process left in the playback folder: the restarted ledger's re-run of
 * each item removes its own, old ones of other items go too, real outputs are never touched, and
 * no temporary file is ever uploaded.
 */
class RepackagerLeftoversTest {
  private static final ItemId O7 = ItemId.original("b1", "720p", 7);
  private static final ItemId O8 = ItemId.original("b1", "720p", 8);

  @TempDir Path temp;

  @Test
  void aKilledRunsTemporariesAreGoneAfterTheRestartAndNeverUploaded() throws Exception {
    LedgerFixture f = new LedgerFixture(temp);
    Path playback = f.root.resolve("playback");
    Path segments = Files.createDirectories(playback.resolve("b1/720p/playback"));
    // The process was killed while producing the init and segment 7 (nothing confirmed yet), and
    // long ago while producing segment 3; segment 2's output was produced by an earlier run.
    Path killedInit = leftover(playback.resolve("b1/720p/.init.mp4.11.segment-ledger-partial"));
    Path killedSegment = leftover(segments.resolve(".0000000007.m4s.22.segment-ledger-partial"));
    Path oldOther = leftover(segments.resolve(".0000000003.m4s.33.segment-ledger-partial"));
    Files.setLastModifiedTime(oldOther,
        FileTime.from(Instant.now().minus(FakeRepackager.LEFTOVER_AGE).minusSeconds(60)));
    Path freshOther = leftover(segments.resolve(".0000000009.m4s.44.segment-ledger-partial"));
    Path output = Files.writeString(segments.resolve("0000000002.m4s"), "an output of an earlier run");

    ManualLedger ledger = f.repackagingBuilder().buildManual(); // the restarted process
    ledger.register(O7, f.record(O7));
    ledger.register(O8, f.record(O8));
    LedgerFixture.settle(ledger);

    for (ItemId id : List.of(O7, O8, ItemId.playback("b1", "720p", 7), ItemId.playback("b1", "720p", 8),
        ItemId.init("b1", "720p"))) {
      assertEquals(ItemState.CONFIRMED, ledger.find(id).orElseThrow().state(), id::toString);
    }
    ConsistencyAssertions.assertConsistent(f.store, f.sink, "b1");
    for (Path gone : List.of(killedInit, killedSegment, oldOther)) {
      assertFalse(Files.exists(gone), () -> gone + " is left");
    }
    assertTrue(Files.exists(freshOther), "a fresh temporary of another item may be a live run elsewhere");
    assertEquals("an output of an earlier run", Files.readString(output));

    List<String> keys = f.sink.list("").stream().map(StoredObjectInfo::key).sorted().toList();
    assertEquals(Stream.of(O7, O8, ItemId.playback("b1", "720p", 7), ItemId.playback("b1", "720p", 8),
        ItemId.init("b1", "720p")).map(ItemId::objectKey).sorted().toList(), keys, "no temporary is uploaded");
    assertEquals(5, f.sink.putCount());
    try (Stream<Path> files = Files.walk(playback)) {
      assertEquals(List.of(freshOther), files.filter(Repackager::isTemporary).toList());
    }
    assertFalse(Files.exists(playback.resolve(ItemId.playback("b1", "720p", 7).objectKey())),
        "a produced output goes once its row is confirmed");
  }

  private static Path leftover(Path file) throws Exception {
    Files.createDirectories(file.getParent());
    return Files.writeString(file, "half-written by a killed run");
  }
}
