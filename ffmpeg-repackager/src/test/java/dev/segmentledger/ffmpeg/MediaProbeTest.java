package dev.segmentledger.ffmpeg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.segmentledger.core.spi.RepackageException;
import dev.segmentledger.ffmpeg.MediaProbe.MediaStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class MediaProbeTest {
  @Test
  void parsesStreamsOnceAndTheDuration() throws Exception {
    String output = """
        program|stream|index=0|codec_name=h264|codec_type=video
        stream|index=1|codec_name=aac|codec_type=audio

        stream|index=0|codec_name=h264|codec_type=video
        stream|index=1|codec_name=aac|codec_type=audio
        stream|index=2|codec_name=scte_35|codec_type=data
        format|duration=4.021333
        """;

    MediaProbe.ProbedMedia media = MediaProbe.parse(output, Path.of("x.ts"));

    assertEquals(List.of(new MediaStream(0, "video", "h264"), new MediaStream(1, "audio", "aac"),
        new MediaStream(2, "data", "scte_35")), media.streams());
    assertEquals(Duration.ofNanos(4_021_333_000L), media.duration());
    assertEquals(2, RemuxCommand.keptStreams(media.streams()).size());
  }

  @Test
  void missingDurationIsAFailure() {
    assertThrows(RepackageException.class, () -> MediaProbe.parse("format|duration=N/A\n", Path.of("x.ts")));
  }

  @Test
  void anMp4IsRecognisedByItsFormatNameAndMeasuredOverItsPackets() throws Exception {
    assertEquals(true, MediaProbe.isMp4("stream|index=0|codec_type=video\nformat|duration=9.4|format_name=mov,mp4,m4a,3gp,3g2,mj2\n"));
    assertEquals(false, MediaProbe.isMp4("format|duration=4.0|format_name=mpegts\n"));
    // Packets out of order (B-frames) and of two streams: from the earliest start to the latest end.
    String packets = "5.480000,0.040000\n5.405333,0.021333\n5.560000,0.040000\nN/A,0.040000\n\n9.440000,0.040000\n";
    assertEquals(Duration.ofNanos(4_074_667_000L), MediaProbe.packetSpan(packets, Path.of("x.mp4")));
    assertThrows(RepackageException.class, () -> MediaProbe.packetSpan("N/A,N/A\n", Path.of("x.mp4")));
  }
}
