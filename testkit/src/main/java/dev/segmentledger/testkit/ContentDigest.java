package dev.segmentledger.testkit;

import dev.segmentledger.core.Sha256Checksum;
import dev.segmentledger.core.SinkException;
import dev.segmentledger.core.spi.UploadContent;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** SHA-256 in the sinks' notation, {@link Sha256Checksum} ({@code sha256:<base64>}). */
final class ContentDigest {
  private ContentDigest() {}

  static String of(byte[] bytes) {
    return Sha256Checksum.of(sha256().digest(bytes));
  }

  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  static String notation(MessageDigest digest) {
    return Sha256Checksum.of(digest.digest());
  }

  /**
   * Reads exactly {@code content.size()} bytes (never more) into memory.
   *
   * @throws SinkException retryable, if the content cannot be read or ends early
   */
  static byte[] readExactly(String key, UploadContent content) {
    long size = content.size();
    if (size > Integer.MAX_VALUE - 8) {
      throw SinkException.permanent("content of " + key + " is too large for an in-memory sink: " + size, null);
    }
    try (InputStream in = content.openStream()) {
      byte[] bytes = in.readNBytes((int) size);
      if (bytes.length != size) {
        throw SinkException.retryable("content of " + key + " ended after " + bytes.length + " of " + size
            + " bytes", null);
      }
      return bytes;
    } catch (IOException e) {
      throw SinkException.retryable("reading the content of " + key + " failed", e);
    }
  }
}
