package dev.segmentledger.s3;

/**
 * Where the parts of one content lie: part {@code i} (0-based; S3 part number {@code i + 1}) covers
 * {@code [offset(i), offset(i) + length(i))}, every part but the last {@link #partSize()} bytes
 * long. A pure function of the content's size and the sink's settings, so that every attempt of an
 * upload, in any process with the same settings, cuts the content at the same boundaries: that is
 * what lets a retry check the parts an earlier attempt stored. Immutable.
 */
record PartLayout(long size, long partSize) {
  /** S3 accepts at most this many parts per upload. */
  static final int MAX_PARTS = 10_000;

  PartLayout {
    if (size < 0 || partSize < 1) {
      throw new IllegalArgumentException("size " + size + ", part size " + partSize);
    }
  }

  /**
   * The layout of a multipart upload of {@code size} bytes: parts of {@code configuredPartSize}
   * bytes, or larger if {@value #MAX_PARTS} parts of that size would not hold the content.
   */
  static PartLayout multipart(long size, long configuredPartSize) {
    long needed = (size + MAX_PARTS - 1) / MAX_PARTS;
    return new PartLayout(size, Math.max(configuredPartSize, needed));
  }

  /** One part holding the whole content (a single {@code PutObject}). */
  static PartLayout single(long size) {
    return new PartLayout(size, Math.max(size, 1));
  }

  /** The number of parts; at least 1 (an empty content is one empty part). */
  int count() {
    return size == 0 ? 1 : (int) ((size + partSize - 1) / partSize);
  }

  long offset(int index) {
    return index * partSize;
  }

  long length(int index) {
    return Math.min(partSize, size - offset(index));
  }
}
