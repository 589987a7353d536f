package dev.segmentledger.testkit;

import dev.segmentledger.core.ConditionalPut;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.UnfinishedUpload;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.UploadContent;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiConsumer;

/**
 * An {@link ObjectSink} that forwards every call to {@link #delegate()}. Extend it and override only
 * what a test observes or changes (a PUT log, a fault, a crash point, a listing without checksums):
 * a wrapper written this way forwards every method the SPI has, including those it gains later,
 * instead of silently falling back to a default. {@link #beforeEachPut} is the wrapper that only
 * does something at the start of each PUT. Thread-safe if the delegate and the overrides are.
 */
public abstract class ForwardingObjectSink implements ObjectSink {
  /** For subclasses. */
  protected ForwardingObjectSink() {}

  /** The sink every call goes to; may change between calls (a sink swapped while a ledger runs). */
  protected abstract ObjectSink delegate();

  /**
   * A sink that calls {@code beforePut} with each PUT's key and content, on the PUT's thread, and
   * then forwards the PUT, and every other call, to {@code sink}: a slow uplink, a hook at the
   * first PUT, progress reported to the content. What {@code beforePut} throws is what the PUT
   * throws. Thread-safe if {@code sink} and {@code beforePut} are.
   */
  public static ObjectSink beforeEachPut(ObjectSink sink, BiConsumer<String, UploadContent> beforePut) {
    Objects.requireNonNull(sink, "sink");
    Objects.requireNonNull(beforePut, "beforePut");
    return new ForwardingObjectSink() {
      @Override
      protected ObjectSink delegate() {
        return sink;
      }

      @Override
      public StoredObjectInfo put(String key, UploadContent content, boolean mayExist) {
        beforePut.accept(key, content);
        return super.put(key, content, mayExist);
      }

      @Override
      public ConditionalPut putIfMatch(String key, UploadContent content, String expectedEtag) {
        if (sink.supportsConditionalPuts()) { // else it goes through put, which calls beforePut
          beforePut.accept(key, content);
        }
        return super.putIfMatch(key, content, expectedEtag);
      }
    };
  }

  @Override
  public StoredObjectInfo put(String key, UploadContent content, boolean mayExist) {
    return delegate().put(key, content, mayExist);
  }

  @Override
  public boolean supportsConditionalPuts() {
    return delegate().supportsConditionalPuts();
  }

  /**
   * {@inheritDoc} Forwarded if the delegate writes conditionally; otherwise the default, {@code
   * put(key, content, true)} on this sink, so that an override of {@link #put} sees it.
   */
  @Override
  public ConditionalPut putIfMatch(String key, UploadContent content, String expectedEtag) {
    ObjectSink sink = delegate();
    return sink.supportsConditionalPuts() ? sink.putIfMatch(key, content, expectedEtag)
        : ObjectSink.super.putIfMatch(key, content, expectedEtag);
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
