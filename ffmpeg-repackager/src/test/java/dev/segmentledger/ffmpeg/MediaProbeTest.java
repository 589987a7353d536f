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
}
