package dev.segmentledger.s3;

import dev.segmentledger.core.Sha256Checksum;
import dev.segmentledger.core.spi.UploadContent;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.util.Random;

/** Upload contents for the tests. */
final class TestContent {
  private TestContent() {}

  static byte[] randomBytes(int size, long seed) {
    byte[] data = new byte[size];
    new Random(seed).nextBytes(data);
    return data;
  }

  static UploadContent of(byte[] data) {
    return new UploadContent() {
      @Override
      public long size() {
        return data.length;
      }

      @Override
      public InputStream openStream() {
        return new ByteArrayInputStream(data);
      }
    };
  }

  static UploadContent of(Path file) throws IOException {
    long size = Files.size(file);
    return new UploadContent() {
      @Override
      public long size() {
        return size;
      }

      @Override
      public InputStream openStream() throws IOException {
        return Files.newInputStream(file);
      }
    };
  }

  /** A file of {@code size} pseudo-random bytes (seeded by the size) in {@code dir}. */
  static Path randomFile(Path dir, long size) throws IOException {
    Path file = dir.resolve("segment-" + size + ".ts");
    Random random = new Random(size);
    byte[] chunk = new byte[1024 * 1024];
    try (OutputStream out = Files.newOutputStream(file)) {
      for (long written = 0; written < size; written += chunk.length) {
        random.nextBytes(chunk);
        out.write(chunk, 0, (int) Math.min(chunk.length, size - written));
      }
    }
    return file;
  }

  /** {@code length} bytes of {@code file} from {@code offset}. */
  static byte[] range(Path file, long offset, long length) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate((int) length);
    try (FileChannel channel = FileChannel.open(file)) {
      while (buffer.hasRemaining() && channel.read(buffer, offset + buffer.position()) > 0) {
        // positional reads until full
      }
    }
    return buffer.array();
  }

  /** The SHA-256 of the stream in the sink's notation, {@code sha256:<base64>}; closes it. */
  static String sha256(InputStream stream) throws Exception {
    MessageDigest digest = MessageDigest.getInstance("SHA-256");
    try (InputStream in = new DigestInputStream(stream, digest)) {
      in.transferTo(OutputStream.nullOutputStream());
    }
    return Sha256Checksum.of(digest.digest());
  }
}
