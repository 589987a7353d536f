package dev.segmentledger.ffmpeg;

import dev.segmentledger.ffmpeg.MediaProbe.MediaStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The ffmpeg argument list that remuxes one recording into a fragmented MP4 file
 * ({@code ftyp moov moof mdat moof mdat ...}) without re-encoding. The README explains each flag.
 */
final class RemuxCommand {
  /**
   * Bitstream filters per codec. {@code aac_adtstoasc} turns ADTS AAC (as carried in MPEG-TS)
   * into the raw AAC plus AudioSpecificConfig MP4 needs. The {@code *_metadata} filters re-write
   * the parameter sets through ffmpeg's coded bitstream layer, which drops trailing zero bytes
   * that the TS demuxer otherwise leaves on SPS/PPS depending on what follows them in the chunk;
   * without it the {@code avcC} of the init would differ from chunk to chunk.
   */
  private static final Map<String, String> BITSTREAM_FILTERS = Map.of(
      "aac", "aac_adtstoasc",
      "h264", "h264_metadata",
      "hevc", "hevc_metadata");

  private static final String MOVFLAGS = String.join("+",
      "frag_keyframe",     // a fragment (moof+mdat) per GOP, so memory stays bounded
      "empty_moov",        // the moov carries no samples: a pure init segment
      "delay_moov",        // ...written once the codec configuration (AAC ASC) is known
      "default_base_moof", // sample offsets relative to the moof: segments are self-contained
      "frag_discont",      // tfdt = the first packet's original timestamp, not 0
      "skip_trailer");     // no mfra index at the end: it is not part of an HLS segment

  private RemuxCommand() {}

  /** The media streams a remux keeps: video and audio. Data streams (SCTE-35, ID3) cannot go into MP4. */
  static List<MediaStream> keptStreams(List<MediaStream> streams) {
    return streams.stream().filter(s -> s.type().equals("video") || s.type().equals("audio")).toList();
  }

  static List<String> of(String ffmpeg, Path input, List<MediaStream> kept, Path output) {
    List<String> command = new ArrayList<>(List.of(
        ffmpeg, "-nostdin", "-hide_banner", "-loglevel", "error", "-y",
        "-copyts", // keep the recording's timestamps so that chunk N+1 continues chunk N
        "-i", input.toString()));
    for (MediaStream stream : kept) {
      command.addAll(List.of("-map", "0:" + stream.index()));
    }
    command.addAll(List.of("-c", "copy"));
    for (int out = 0; out < kept.size(); out++) {
      String filter = BITSTREAM_FILTERS.get(kept.get(out).codec());
      if (filter != null) {
        command.addAll(List.of("-bsf:" + out, filter));
      }
    }
    command.addAll(List.of(
        "-map_metadata", "-1", "-map_chapters", "-1",
        "-fflags", "+bitexact", "-flags", "+bitexact", // no version strings or creation times
        "-use_editlist", "0",                           // timing lives in tfdt, never in an edit list
        "-avoid_negative_ts", "disabled",               // do not shift timestamps towards zero
        "-movflags", "+" + MOVFLAGS,
        "-flush_packets", "1",                          // each fragment reaches the file when written: progress
        "-f", "mp4", output.toString()));
    return List.copyOf(command);
  }
}
