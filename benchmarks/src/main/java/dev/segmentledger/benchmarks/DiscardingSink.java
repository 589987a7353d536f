package dev.segmentledger.benchmarks;

import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.UploadContent;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Optional;

/**
 * A sink that reads every byte and keeps nothing: its memory use is constant, and its CPU is that
 * of reading the bytes. It reports a checksum of a real sink's length (the 64 hex digits of a
 * SHA-256, a constant here), so that the confirm writes what it writes in production; computing a
 * digest is the sink's own cost, not the ledger's, and is left out of the measures that use it.
 */
final class DiscardingSink implements ObjectSink {
  /** What the confirm stores as the object's checksum: the length of a SHA-256 in hex. */
  static final String CHECKSUM = "0".repeat(64);
  /** This sink as the throughput measures' conditions describe it. */
  static final String DESCRIPTION = "DiscardingSink (zero latency; reads every byte, keeps nothing, reports a"
      + " constant 64-hex checksum: no digest, which is the sink's cost; FakeObjectSink's SHA-256 and in-memory"
      + " map of every object were 27 % of the workers' Java CPU samples and 2.6 us of their CPU per item)";

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
    return new StoredObjectInfo(key, read, CHECKSUM);
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
