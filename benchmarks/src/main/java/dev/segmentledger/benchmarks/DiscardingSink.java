package dev.segmentledger.benchmarks;

import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.UploadContent;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Optional;

/** A sink that reads every byte and keeps nothing: its memory use is constant. */
final class DiscardingSink implements ObjectSink {
  @Override
  public StoredObjectInfo put(String key, UploadContent content, boolean mayExist) {
    long read = 0;
    byte[] buffer = new byte[8192];
    try (InputStream in = content.openStream()) {
      for (int n; (n = in.read(buffer)) >= 0; ) {
        read += n;
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new StoredObjectInfo(key, read, null);
  }

  @Override
  public Optional<StoredObjectInfo> head(String key) {
    return Optional.empty();
  }

  @Override
  public List<StoredObjectInfo> list(String prefix) {
    return List.of();
  }
}
