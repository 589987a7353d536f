package dev.segmentledger.ffmpeg;

/** ffmpeg wrote an MP4 file whose box structure is not what the repackager expects. */
final class Mp4FormatException extends Exception {
  Mp4FormatException(String message) {
    super(message);
  }
}
