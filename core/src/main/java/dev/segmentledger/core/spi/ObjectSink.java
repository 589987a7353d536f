package dev.segmentledger.core.spi;

import dev.segmentledger.core.StoredObjectInfo;
import java.util.List;
import java.util.Optional;

/**
 * The bucket. Keys are those of {@link dev.segmentledger.core.ObjectKeys}; a sink may place them
 * under a fixed prefix of its own. Implementations must be thread-safe, must report every failure
 * as a {@link SinkException} (nothing swallowed), and should pass
 * {@code dev.segmentledger.testkit.ObjectSinkContract}.
 */
public interface ObjectSink {

  /**
   * Stores {@code content} at {@code key}, overwriting whatever is there. Returns only once the
   * object is durably stored with exactly {@code content.size()} bytes.
   *
   * @param mayExist {@code true} when an earlier attempt may already have stored this object
   *     (any retry). The sink may then check the existing object (size and checksum) and skip the
   *     upload if it is identical; it must never skip on size alone.
   * @return what is now stored at {@code key}
   * @throws SinkException on any failure, classified retryable or permanent; an unknown outcome
   *     (timeout, reset after sending) is retryable
   */
  StoredObjectInfo put(String key, UploadContent content, boolean mayExist);

  /** What is stored at {@code key}, or empty if nothing is. */
  Optional<StoredObjectInfo> head(String key);

  /** Every object whose key starts with {@code prefix}, in key order. */
  List<StoredObjectInfo> list(String prefix);
}
