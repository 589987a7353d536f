package dev.segmentledger.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Sha256Checksum;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * What the object of a row must hold. An original's file stays on the recorder's disk, so the
 * object is compared byte for byte with it; a PLAYBACK or INIT file the ledger produced leaves the
 * disk once its row is confirmed, so the object is compared with what the confirm recorded: its
 * size and, when the sink reported one, its SHA-256.
 */
final class RegisteredBytes {
  private RegisteredBytes() {}

  static void assertObjectHolds(LedgerItem row, byte[] object) throws IOException {
    Path file = Path.of(row.sourcePath());
    if (Files.exists(file)) {
      assertArrayEquals(Files.readAllBytes(file), object, row.objectKey());
      return;
    }
    assertNotEquals(Axis.ORIGINAL, row.id().axis(), "an original's file stays on the disk: " + row);
    assertEquals(ItemState.CONFIRMED, row.state(), "a produced file leaves the disk only once confirmed: " + row);
    assertEquals(row.sizeBytes(), object.length, "size of " + row.objectKey());
    if (row.checksum() != null && row.checksum().startsWith(Sha256Checksum.PREFIX)) {
      assertEquals(row.checksum(), Sha256Checksum.of(sha256(object)), "checksum of " + row.objectKey());
    }
  }

  private static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }
}
