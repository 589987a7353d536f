package dev.segmentledger.s3;

import dev.segmentledger.core.spi.Sha256Checksum;
import dev.segmentledger.core.spi.UploadContent;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * The digests of one upload, from a single pass over exactly {@code size} bytes: the object's
 * SHA-256 in the {@code sha256:<base64>} notation ({@link Sha256Checksum}), and the MD5 (base64, for
 * {@code Content-MD5}) of each part, so that S3 rejects a body that differs from the bytes the
 * checksum was taken from.
 */
record ContentDigests(String checksum, List<String> partMd5s) {
  static ContentDigests of(UploadContent content, long partSize) throws IOException {
    long size = content.size();
    MessageDigest sha256 = digest("SHA-256");
    MessageDigest md5 = digest("MD5");
    List<String> partMd5s = new ArrayList<>();
    byte[] buffer = new byte[64 * 1024];
    try (InputStream in = content.openStream()) {
      long read = 0;
      long partEnd = Math.min(partSize, size);
      do {
        while (read < partEnd) {
          int n = in.read(buffer, 0, (int) Math.min(buffer.length, partEnd - read));
          if (n < 0) {
            throw new EOFException("content ended after " + read + " of " + size + " bytes");
          }
          sha256.update(buffer, 0, n);
          md5.update(buffer, 0, n);
          read += n;
        }
        partMd5s.add(Base64.getEncoder().encodeToString(md5.digest()));
        partEnd = Math.min(partEnd + partSize, size);
      } while (read < size);
    }
    return new ContentDigests(Sha256Checksum.of(sha256.digest()), List.copyOf(partMd5s));
  }

  private static MessageDigest digest(String algorithm) {
    try {
      return MessageDigest.getInstance(algorithm);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has " + algorithm, e);
    }
  }
}
