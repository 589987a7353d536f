package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.Reason;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The checks at upload time are the ones made at registration, and the file must still be the registered one. */
class UploadTimeChecksTest {
  @TempDir Path temp;

  @Test
  void reopeningAnEmptyFileRowNeverUploadsAnEmptyObject() {
    LedgerFixture f = new LedgerFixture(temp);
    ItemId id = ItemId.original("b1", "720p", 0);
    Path empty = f.record("b1/0.ts", "");
    ManualLedger ledger = f.manual();
    assertEquals(Reason.EMPTY_FILE, ledger.register(id, empty).item().reason());

    assertTrue(ledger.reopen(id), "re-opened");
    LedgerFixture.settle(ledger);

    LedgerItem row = f.store.find(id).orElseThrow();
    assertEquals(ItemState.REJECTED, row.state(), "still empty: refused again");
    assertEquals(Reason.EMPTY_FILE, row.reason());
    assertEquals(0, f.sink.putCount(), "no 0-byte object");
  }

  @Test
  void aSameSizeRewriteAfterRegistrationIsRefusedAsChangedAndReopeningAcceptsIt() throws Exception {
    LedgerFixture f = new LedgerFixture(temp);
    ItemId id = ItemId.original("b1", "720p", 0);
    Path file = f.record("b1/0.ts", "registered bytes");
    ManualLedger ledger = f.manual();
    LedgerItem registered = ledger.register(id, file).item();
    assertNotNull(registered.fileIdentity(), "the file's identity is recorded");

    rewriteInPlace(file, "REWRITTEN BYTES!");
    LedgerFixture.settle(ledger);

    LedgerItem row = f.store.find(id).orElseThrow();
    assertEquals(ItemState.REJECTED, row.state());
    assertEquals(Reason.FILE_CHANGED, row.reason(), row.lastError());
    assertEquals(0, f.sink.putCount(), "the rewritten bytes are not uploaded");

    assertTrue(ledger.reopen(id), "an operator accepts the file as it is now");
    LedgerFixture.settle(ledger);
    assertEquals(ItemState.CONFIRMED, f.store.find(id).orElseThrow().state());
    assertEquals("REWRITTEN BYTES!", new String(f.sink.bytes(id.objectKey()).orElseThrow(), StandardCharsets.UTF_8));
  }

  @Test
  void aFileReplacedByAnotherOfTheSameSizeIsRefusedAsChanged() throws Exception {
    LedgerFixture f = new LedgerFixture(temp);
    ItemId id = ItemId.original("b1", "720p", 0);
    Path file = f.record("b1/0.ts", "registered bytes");
    ManualLedger ledger = f.manual();
    ledger.register(id, file);

    Path other = f.record("b1/other.ts", "replacement byte");
    Files.move(other, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    LedgerFixture.settle(ledger);

    assertEquals(Reason.FILE_CHANGED, f.store.find(id).orElseThrow().reason());
    assertEquals(0, f.sink.putCount());
  }

  /**
   * Rewrites {@code file} in place (same inode) with {@code content} of the same size, as a
   * recorder bug would, until its modification time differs from before: a rewrite within the
   * file system's timestamp granularity of the registration cannot be told apart.
   */
  private static void rewriteInPlace(Path file, String content) throws Exception {
    FileTime before = Files.getLastModifiedTime(file);
    Object key = Files.readAttributes(file, java.nio.file.attribute.BasicFileAttributes.class).fileKey();
    do {
      Files.writeString(file, content, StandardCharsets.UTF_8);
    } while (Files.getLastModifiedTime(file).equals(before));
    assertEquals(key, Files.readAttributes(file, java.nio.file.attribute.BasicFileAttributes.class).fileKey(),
        "rewritten in place");
  }
}
