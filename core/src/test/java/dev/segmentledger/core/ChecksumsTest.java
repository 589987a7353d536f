package dev.segmentledger.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class ChecksumsTest {
  private static final String SHA = "sha256:ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=";
  private static final String OTHER_SHA = "sha256:LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ=";
  private static final String WITH_CRC = SHA + " crc32c:NCSDzw==";

  @Test
  void theSameEntriesAgree() {
    assertTrue(Checksums.agree(SHA, SHA));
    assertTrue(Checksums.agree(WITH_CRC, WITH_CRC));
    assertFalse(Checksums.contradict(WITH_CRC, WITH_CRC));
  }

  @Test
  void anEntryGainedOrLostIsNoContradiction() {
    assertTrue(Checksums.agree(SHA, WITH_CRC));
    assertTrue(Checksums.agree(WITH_CRC, SHA));
    assertFalse(Checksums.contradict(SHA, WITH_CRC));
    assertFalse(Checksums.contradict("crc32c:NCSDzw==", SHA), "no algorithm in common: nothing known");
    assertFalse(Checksums.agree("crc32c:NCSDzw==", SHA), "no algorithm in common: nothing known");
  }

  @Test
  void oneSharedAlgorithmWithAnotherValueContradicts() {
    assertTrue(Checksums.contradict(SHA, OTHER_SHA));
    assertTrue(Checksums.contradict(WITH_CRC, SHA + " crc32c:AAAAAA=="), "same SHA-256, other CRC32C");
    assertFalse(Checksums.agree(WITH_CRC, SHA + " crc32c:AAAAAA=="));
    assertTrue(Checksums.contradict(OTHER_SHA, WITH_CRC));
  }

  @Test
  void opaqueChecksumsCompareAsAWhole() {
    assertTrue(Checksums.agree("c0", "c0"));
    assertTrue(Checksums.contradict("c0", "c1"));
  }

  @Test
  void nullIsNeitherAgreementNorContradiction() {
    assertFalse(Checksums.agree(null, SHA));
    assertFalse(Checksums.agree(SHA, null));
    assertFalse(Checksums.contradict(null, SHA));
    assertFalse(Checksums.contradict(SHA, null));
  }

  @Test
  void entriesAreReadAndAppended() {
    assertEquals(WITH_CRC, Checksums.with(SHA, "crc32c", "NCSDzw=="));
    assertEquals(Optional.of("NCSDzw=="), Checksums.valueOf(WITH_CRC, "crc32c"));
    assertEquals(Optional.of(SHA.substring("sha256:".length())), Checksums.valueOf(WITH_CRC, "sha256"));
    assertEquals(Optional.empty(), Checksums.valueOf(SHA, "crc32c"));
    assertEquals(Optional.empty(), Checksums.valueOf(null, "crc32c"));
    assertThrows(IllegalArgumentException.class, () -> Checksums.with(WITH_CRC, "crc32c", "AAAAAA=="));
    assertThrows(IllegalArgumentException.class, () -> Checksums.with(SHA, "crc 32", "AAAAAA=="));
    assertThrows(IllegalArgumentException.class, () -> Checksums.with(SHA, "crc32c", ""));
  }
}
