package dev.segmentledger.testkit;

import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.UnfinishedUpload;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.UploadContent;
import java.util.List;
import java.util.Optional;

/**
 * An {@link ObjectSink} that forwards every call to {@link #delegate()}. Extend it and override only
 * what a test observes or changes (a PUT log, a fault, a crash point, a listing without checksums):
 * a wrapper written this way forwards every method the SPI has, including those it gains later,
 * instead of silently falling back to a default. Thread-safe if the delegate and the overrides are.
 */
public abstract class ForwardingObjectSink implements ObjectSink {
  /** For subclasses. */
  protected ForwardingObjectSink() {}

  /** The sink every call goes to; may change between calls (a sink swapped while a ledger runs). */
  protected abstract ObjectSink delegate();

  @Override
  public StoredObjectInfo put(String key, UploadContent content, boolean mayExist) {
    return delegate().put(key, content, mayExist);
  }

  @Override
  public Optional<StoredObjectInfo> findIdentical(String key, UploadContent content) {
    return delegate().findIdentical(key, content);
  }

  @Override
  public Optional<StoredObjectInfo> head(String key) {
    return delegate().head(key);
  }

  @Override
  public List<StoredObjectInfo> list(String prefix) {
    return delegate().list(prefix);
  }

  @Override
  public List<StoredObjectInfo> list(String prefix, String startAfter, int maxKeys) {
    return delegate().list(prefix, startAfter, maxKeys);
  }

  @Override
  public boolean supportsUnfinishedUploads() {
    return delegate().supportsUnfinishedUploads();
  }

  @Override
  public List<UnfinishedUpload> listUnfinishedUploads(String prefix) {
    return delegate().listUnfinishedUploads(prefix);
  }

  @Override
  public boolean abortUnfinishedUpload(UnfinishedUpload upload) {
    return delegate().abortUnfinishedUpload(upload);
  }
}
