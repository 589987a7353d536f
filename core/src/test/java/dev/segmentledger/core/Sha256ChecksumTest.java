package dev.segmentledger.core;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.security.MessageDigest;
import org.junit.jupiter.api.Test;

class Sha256ChecksumTest {
  @Test
  void isThePrefixAndTheBase64OfTheDigest() throws Exception {
    byte[] digest = MessageDigest.getInstance("SHA-256").digest("abc".getBytes(US_ASCII));

    assertEquals("sha256:ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=", Sha256Checksum.of(digest));
  }

  @Test
  void refusesADigestOfAnotherLength() {
    assertThrows(IllegalArgumentException.class, () -> Sha256Checksum.of(new byte[16]));
  }
}
