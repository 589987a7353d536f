package dev.segmentledger.core;

/**
 * The container of an item's file, which fixes the extension of its object key and its default
 * content type. It is part of an {@link ItemId}: for an {@link Axis#ORIGINAL} the recorder chooses
 * it ({@link #MPEG_TS} unless it says otherwise), a {@link Axis#PLAYBACK} segment is always
 * {@link #FMP4} and an {@link Axis#INIT} always {@link #MP4}. Immutable and thread-safe.
 */
public enum MediaFormat {
  /** MPEG transport stream: key extension {@code .ts}, content type {@code video/mp2t}. */
  MPEG_TS("ts", "video/mp2t"),
  /**
   * A fragmented-MP4 (fMP4/CMAF) media segment or chunk: key extension {@code .m4s}, content type
   * {@code video/iso.segment} (RFC 8216).
   */
  FMP4("m4s", "video/iso.segment"),
  /**
   * An MP4 file with its own {@code moov} (plain or fragmented), and the init segment of a
   * rendition: key extension {@code .mp4}, content type {@code video/mp4}.
   */
  MP4("mp4", "video/mp4");

  private final String extension;
  private final String contentType;

  MediaFormat(String extension, String contentType) {
    this.extension = extension;
    this.contentType = contentType;
  }

  /** The extension of the object key, without the dot: {@code ts}, {@code m4s}, {@code mp4}. */
  public String extension() {
    return extension;
  }

  /** The MIME type of the object, which the S3 sink sets by default. */
  public String contentType() {
    return contentType;
  }

  /**
   * The format every item of {@code axis} has unless told otherwise: {@link #MPEG_TS} for
   * ORIGINAL, {@link #FMP4} for PLAYBACK, {@link #MP4} for INIT (the only format of the last two).
   */
  public static MediaFormat defaultFor(Axis axis) {
    return switch (axis) {
      case ORIGINAL -> MPEG_TS;
      case PLAYBACK -> FMP4;
      case INIT -> MP4;
    };
  }
}
