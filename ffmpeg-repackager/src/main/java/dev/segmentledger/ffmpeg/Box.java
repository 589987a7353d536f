package dev.segmentledger.ffmpeg;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;

/**
 * The header of an ISO BMFF (MP4) box: its four-character type, where it starts, the size of its
 * header (8, or 16 with a 64-bit size) and its total size.
 */
record Box(String type, long offset, int headerSize, long size) {

  long payloadOffset() {
    return offset + headerSize;
  }

  long end() {
    return offset + size;
  }

  /** Reads the box starting at {@code offset} of {@code buffer}, which must hold all of it. */
  static Box at(ByteBuffer buffer, int offset) throws Mp4FormatException {
    if (buffer.limit() - offset < 8) {
      throw new Mp4FormatException("truncated box header at " + offset);
    }
    long size = Integer.toUnsignedLong(buffer.getInt(offset));
    String type = type(buffer, offset + 4);
    int headerSize = 8;
    if (size == 1) {
      if (buffer.limit() - offset < 16) {
        throw new Mp4FormatException("truncated 64-bit box header at " + offset);
      }
      size = buffer.getLong(offset + 8);
      headerSize = 16;
    } else if (size == 0) {
      size = buffer.limit() - offset;
    }
    return checked(new Box(type, offset, headerSize, size), buffer.limit());
  }

  /** Reads the box header starting at {@code offset} of {@code file}. */
  static Box at(FileChannel file, long offset) throws IOException, Mp4FormatException {
    ByteBuffer header = ByteBuffer.allocate(16);
    while (header.hasRemaining() && file.read(header, offset + header.position()) > 0) {
      // keep reading: positional reads may return fewer bytes than asked
    }
    header.flip();
    if (header.limit() < 8) {
      throw new Mp4FormatException("truncated box header at " + offset);
    }
    long size = Integer.toUnsignedLong(header.getInt(0));
    String type = type(header, 4);
    int headerSize = 8;
    if (size == 1) {
      if (header.limit() < 16) {
        throw new Mp4FormatException("truncated 64-bit box header at " + offset);
      }
      size = header.getLong(8);
      headerSize = 16;
    } else if (size == 0) {
      size = file.size() - offset;
    }
    return checked(new Box(type, offset, headerSize, size), file.size());
  }

  private static Box checked(Box box, long limit) throws Mp4FormatException {
    if (box.size < box.headerSize || box.end() > limit) {
      throw new Mp4FormatException("box '" + box.type + "' at " + box.offset + " has bad size " + box.size);
    }
    return box;
  }

  private static String type(ByteBuffer buffer, int offset) {
    byte[] type = new byte[4];
    buffer.get(offset, type);
    return new String(type, StandardCharsets.ISO_8859_1);
  }
}
