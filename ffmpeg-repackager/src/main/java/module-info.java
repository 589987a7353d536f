/**
 * Segment Ledger ffmpeg repackager: a {@link dev.segmentledger.core.spi.Repackager} that remuxes
 * MPEG-TS recordings into fragmented MP4 (an HLS init segment and {@code .m4s} media segments)
 * by running an external ffmpeg binary, without re-encoding.
 */
module dev.segmentledger.ffmpeg {
  requires transitive dev.segmentledger.core;
  requires org.slf4j;

  exports dev.segmentledger.ffmpeg;
}
