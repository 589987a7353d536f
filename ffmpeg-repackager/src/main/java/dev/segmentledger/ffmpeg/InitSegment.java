package dev.segmentledger.ffmpeg;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Makes an fMP4 init segment ({@code ftyp+moov}) independent of the chunk it was cut from.
 *
 * <p>With {@code empty_moov+delay_moov}, ffmpeg 5.1 writes the moov after the first fragment and
 * fills the bitrate fields of the sample descriptions ({@code esds} max/avg bitrate and {@code
 * btrt}) from that fragment's samples, so the init would differ by a few bytes from chunk to
 * chunk. Those fields are advisory; they are set to 0 ("unknown", ISO/IEC 14496-1 and -12), which
 * keeps the size and every other byte, so any chunk of a rendition yields the same init.
 */
final class InitSegment {
  private static final int SAMPLE_ENTRY_HEADER = 8; // reserved(6) + data_reference_index(2)
  private static final int AUDIO_SAMPLE_ENTRY_FIELDS = 20; // version 0 AudioSampleEntry
  private static final int VISUAL_SAMPLE_ENTRY_FIELDS = 70;
  private static final int ES_DESCRIPTOR_TAG = 0x03;
  private static final int DECODER_CONFIG_DESCRIPTOR_TAG = 0x04;

  private InitSegment() {}

  /** Returns a copy of {@code init} with the bitrate fields of every sample description cleared. */
  static byte[] normalize(byte[] init) throws Mp4FormatException {
    byte[] copy = Arrays.copyOf(init, init.length);
    ByteBuffer buffer = ByteBuffer.wrap(copy);
    boolean sawMoov = false;
    for (int offset = 0; offset < copy.length; ) {
      Box box = Box.at(buffer, offset);
      if (box.type().equals("moov")) {
        sawMoov = true;
        for (Box trak : children(buffer, box, "trak")) {
          normalizeTrack(buffer, trak);
        }
      }
      offset = (int) box.end();
    }
    if (!sawMoov) {
      throw new Mp4FormatException("init segment has no moov box");
    }
    return copy;
  }

  private static void normalizeTrack(ByteBuffer buffer, Box trak) throws Mp4FormatException {
    Box mdia = child(buffer, trak, "mdia");
    Box hdlr = child(buffer, mdia, "hdlr");
    if (hdlr == null) {
      return;
    }
    // hdlr: version/flags(4) pre_defined(4) handler_type(4)
    String handler = fourCc(buffer, (int) hdlr.payloadOffset() + 8);
    int entryFields = switch (handler) {
      case "soun" -> AUDIO_SAMPLE_ENTRY_FIELDS;
      case "vide" -> VISUAL_SAMPLE_ENTRY_FIELDS;
      default -> -1;
    };
    Box stsd = child(buffer, child(buffer, child(buffer, mdia, "minf"), "stbl"), "stsd");
    if (entryFields < 0 || stsd == null) {
      return;
    }
    // stsd: version/flags(4) entry_count(4), then the sample entries
    for (int offset = (int) stsd.payloadOffset() + 8; offset < stsd.end(); ) {
      Box entry = Box.at(buffer, offset);
      int childrenStart = (int) entry.payloadOffset() + SAMPLE_ENTRY_HEADER + entryFields;
      for (int child = childrenStart; child < entry.end(); ) {
        Box box = Box.at(buffer, child);
        switch (box.type()) {
          case "btrt" -> clear(buffer, (int) box.payloadOffset() + 4, 8); // after bufferSizeDB(4): max, avg
          case "esds" -> clearEsdsBitrates(buffer, box);
          default -> { }
        }
        child = (int) box.end();
      }
      offset = (int) entry.end();
    }
  }

  /** esds: version/flags(4), ES_Descriptor, whose DecoderConfigDescriptor holds max/avg bitrate. */
  private static void clearEsdsBitrates(ByteBuffer buffer, Box esds) throws Mp4FormatException {
    int pos = (int) esds.payloadOffset() + 4;
    pos = expectDescriptor(buffer, pos, ES_DESCRIPTOR_TAG);
    int flags = buffer.get(pos + 2) & 0xff; // after ES_ID(2)
    pos += 3;
    if ((flags & 0x80) != 0) {
      pos += 2; // dependsOn_ES_ID
    }
    if ((flags & 0x40) != 0) {
      pos += 1 + (buffer.get(pos) & 0xff); // URL
    }
    if ((flags & 0x20) != 0) {
      pos += 2; // OCR_ES_Id
    }
    pos = expectDescriptor(buffer, pos, DECODER_CONFIG_DESCRIPTOR_TAG);
    // objectTypeIndication(1) streamType(1) bufferSizeDB(3), then maxBitrate(4) avgBitrate(4)
    clear(buffer, pos + 5, 8);
  }

  /** Checks the descriptor tag at {@code pos} and returns where its body starts. */
  private static int expectDescriptor(ByteBuffer buffer, int pos, int tag) throws Mp4FormatException {
    if ((buffer.get(pos) & 0xff) != tag) {
      throw new Mp4FormatException("esds: expected descriptor tag " + tag + " at " + pos);
    }
    pos++;
    for (int i = 0; i < 4 && (buffer.get(pos++) & 0x80) != 0; i++) {
      // expandable size: high bit set means another size byte follows
    }
    return pos;
  }

  private static void clear(ByteBuffer buffer, int from, int length) throws Mp4FormatException {
    if (from + length > buffer.limit()) {
      throw new Mp4FormatException("bitrate field at " + from + " lies outside the init segment");
    }
    for (int i = 0; i < length; i++) {
      buffer.put(from + i, (byte) 0);
    }
  }

  private static Box child(ByteBuffer buffer, Box parent, String type) throws Mp4FormatException {
    if (parent == null) {
      return null;
    }
    List<Box> found = children(buffer, parent, type);
    return found.isEmpty() ? null : found.get(0);
  }

  private static List<Box> children(ByteBuffer buffer, Box parent, String type)
      throws Mp4FormatException {
    List<Box> found = new ArrayList<>();
    for (int offset = (int) parent.payloadOffset(); offset < parent.end(); ) {
      Box box = Box.at(buffer, offset);
      if (box.type().equals(type)) {
        found.add(box);
      }
      offset = (int) box.end();
    }
    return found;
  }

  private static String fourCc(ByteBuffer buffer, int offset) {
    byte[] type = new byte[4];
    buffer.get(offset, type);
    return new String(type, StandardCharsets.ISO_8859_1);
  }
}
