package dev.segmentledger.s3;

import dev.segmentledger.core.spi.UploadContent;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
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
}
