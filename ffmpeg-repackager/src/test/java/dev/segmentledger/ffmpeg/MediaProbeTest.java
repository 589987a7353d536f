package dev.segmentledger.ffmpeg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.spi.RepackageException;
import dev.segmentledger.ffmpeg.MediaProbe.MediaStream;
import dev.segmentledger.ffmpeg.MediaProbe.PacketSpan;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class MediaProbeTest {
  @Test
  void parsesEachStreamOnce() {
    String output = """
        program|stream|index=0|codec_name=h264|codec_type=video
        stream|index=1|codec_name=aac|codec_type=audio

        stream|index=0|codec_name=h264|codec_type=video
        stream|index=1|codec_name=aac|codec_type=audio
        stream|index=2|codec_name=scte_35|codec_type=data
        """;

    List<MediaStream> streams = MediaProbe.parseStreams(output);

    assertEquals(List.of(new MediaStream(0, "video", "h264"), new MediaStream(1, "audio", "aac"),
        new MediaStream(2, "data", "scte_35")), streams);
    assertEquals(2, RemuxCommand.keptStreams(streams).size());
  }

  @Test
  void aStreamWithoutANumericIndexIsRefused() {
    assertThrows(NumberFormatException.class, () -> MediaProbe.parseStreams("stream|index=x|codec_type=video\n"));
  }

  /**
   * The duration is the packets' span, never the container's: in a fragmented MP4 whose fragments
   * carry the recording's timeline (tfdt), ffprobe's container duration counts from zero.
   */
  @Test
  void theDurationIsFromTheEarliestPacketStartToTheLatestPacketEnd() throws Exception {
    PacketSpan span = new PacketSpan(Path.of("x.mp4"));
    // Packets out of order (B-frames) and of two streams, a packet without a time, a blank line,
    // side data after the packet (a trailing comma).
    for (String line : List.of("5.480000,0.040000", "5.405333,0.021333,", "5.560000,0.040000", "N/A,0.040000", "",
        "9.440000,0.040000")) {
      span.line(line);
    }
    assertEquals(Duration.ofNanos(4_074_667_000L), span.result());
    // ffprobe lists the first audio packet of a fragmented MP4 without a duration: it still starts the media.
    span.line("5.300000,N/A");
    assertEquals(Duration.ofNanos(4_180_000_000L), span.result());
  }

  @Test
  void noTimedPacketIsAFailure() throws Exception {
    PacketSpan span = new PacketSpan(Path.of("x.mp4"));
    span.line("N/A,N/A");
    assertThrows(RepackageException.class, span::result);
  }

  @Test
  void aLineThatIsNoPacketTimeIsRefusedByName() {
    PacketSpan span = new PacketSpan(Path.of("x.mp4"));
    RepackageException e = assertThrows(RepackageException.class, () -> span.line("1.5,garbage\u0007"));
    assertTrue(e.getMessage().contains("'1.5,garbage\\u0007' is not 'pts_time,duration_time'"), e.getMessage());
  }
}
