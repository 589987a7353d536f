package dev.segmentledger.s3;

import dev.segmentledger.core.Checksums;
import dev.segmentledger.core.Sha256Checksum;
import dev.segmentledger.core.spi.UploadContent;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The digests of one upload, read from the content before any request: the object's SHA-256 in the
 * {@code sha256:<base64>} notation ({@link Sha256Checksum}), and the MD5 of each part of its {@link
 * PartLayout} (base64, for {@code Content-MD5}, so that S3 rejects a body that differs from the
 * bytes the checksum was taken from; in hex it is also the ETag S3 gives the part, which is how a
 * retry recognises the parts an earlier attempt stored), and the CRC32C of the whole object (base64
 * of its four bytes, big-endian: the value of {@code x-amz-checksum-crc32c}), updated in the same
 * pass as the SHA-256, with the CRC32C of each part (what {@code UploadPart} sends, and what the
 * completion of a {@code FULL_OBJECT} CRC32C upload lists).
 *
 * <p>Design note. With one part, or one lane, the content is read once and both digests are
 * updated from the same buffer. With several parts and lanes, the SHA-256 (one sequential pass:
 * it cannot be split) is the first task and the MD5 of each part a task of its own over that part's
 * range, so the lanes share the work. The CPU spent stays the same (SHA-256 about 0.55 s and MD5
 * about 1.35 s per GiB on one core of this project's machine), plus a second read of the content
 * (from the page cache, as a rule); what shortens is the wall time, when a second core is free: a
 * 1 GiB pass took 1.0 to 1.2 s on 4 lanes against 1.8 s on one (see the module README). Every read
 * is bounded to the content's size, in blocks of {@value #BLOCK} bytes, one buffer per lane.
 */
record ContentDigests(String checksum, List<String> partMd5s, String crc32c, List<String> partCrc32cs) {
  static final int BLOCK = 64 * 1024;
  /** The algorithm name of the CRC32C entry in the ledger's checksum notation ({@link Checksums}). */
  static final String CRC32C_ENTRY = "crc32c";

  /**
   * The checksum of this content as the sink reports it and the ledger records it: the SHA-256 and,
   * where the server checks CRC32Cs ({@link Integrity#CHECKSUMS}), the full-object CRC32C ({@code
   * sha256:<base64> crc32c:<base64>}).
   */
  String recorded(Integrity integrity) {
    return integrity == Integrity.CHECKSUMS ? Checksums.with(checksum, CRC32C_ENTRY, crc32c) : checksum;
  }

  /**
   * Whether a stored object's checksum says it holds this content: it has this content's SHA-256 (the
   * checksum metadata; never judged on a CRC32C alone) and no entry that differs from this content's
   * (a server's CRC32C of other bytes under copied metadata).
   */
  boolean describedBy(String storedChecksum) {
    return Checksums.agree(checksum, storedChecksum)
        && !Checksums.contradict(Checksums.with(checksum, CRC32C_ENTRY, crc32c), storedChecksum);
  }

  /** The digests of {@code content}, cut as {@code layout} says, computed on {@code lanes}. */
  static ContentDigests of(UploadContent content, PartLayout layout, Lanes lanes) throws IOException {
    if (layout.count() == 1 || lanes.width() == 1) {
      return inOnePass(content, layout);
    }
    String[] md5s = new String[layout.count()];
    String[] crcs = new String[layout.count()];
    String[] sha256 = new String[2];
    lanes.run(layout.count() + 1, task -> {
      if (task == 0) {
        String[] both = sha256AndCrc32c(content);
        sha256[0] = both[0];
        sha256[1] = both[1];
      } else {
        MessageDigest md5 = digest("MD5");
        CRC32C crc = new CRC32C();
        int part = task - 1;
        try (InputStream in = ContentRange.open(content, layout.offset(part), layout.length(part))) {
          update(in, layout.length(part), new byte[BLOCK], md5, null, crc, null, layout.offset(part), layout.size());
        }
        md5s[part] = Base64.getEncoder().encodeToString(md5.digest());
        crcs[part] = crc32c(crc);
      }
    });
    return new ContentDigests(sha256[0], List.of(md5s), sha256[1], List.of(crcs));
  }

  /** The whole object's digests of {@code content} (SHA-256 and CRC32C, one read), without parts. */
  static ContentDigests whole(UploadContent content) throws IOException {
    String[] both = sha256AndCrc32c(content);
    return new ContentDigests(both[0], List.of(), both[1], List.of());
  }

  /** The SHA-256 (sinks' notation) and the CRC32C (base64) of {@code content}, from one read. */
  private static String[] sha256AndCrc32c(UploadContent content) throws IOException {
    MessageDigest sha256 = digest("SHA-256");
    CRC32C crc = new CRC32C();
    try (InputStream in = content.openStream()) {
      update(in, content.size(), new byte[BLOCK], sha256, null, crc, null, 0, content.size());
    }
    return new String[] {Sha256Checksum.of(sha256.digest()), crc32c(crc)};
  }

  /** A CRC32C value as S3 writes it: base64 of its four bytes, most significant first. */
  static String crc32c(CRC32C crc) {
    return Base64.getEncoder().encodeToString(ByteBuffer.allocate(4).putInt((int) crc.getValue()).array());
  }

  /** The MD5 of part {@code index} in hex, lower case: S3's ETag of that part without its quotes. */
  String partMd5Hex(int index) {
    return HexFormat.of().formatHex(Base64.getDecoder().decode(partMd5s.get(index)));
  }

  private static ContentDigests inOnePass(UploadContent content, PartLayout layout) throws IOException {
    MessageDigest sha256 = digest("SHA-256");
    MessageDigest md5 = digest("MD5");
    CRC32C crc = new CRC32C();
    String[] md5s = new String[layout.count()];
    String[] crcs = new String[layout.count()];
    byte[] buffer = new byte[BLOCK];
    try (InputStream in = content.openStream()) {
      for (int part = 0; part < md5s.length; part++) {
        CRC32C partCrc = new CRC32C();
        update(in, layout.length(part), buffer, sha256, md5, crc, partCrc, layout.offset(part), layout.size());
        md5s[part] = Base64.getEncoder().encodeToString(md5.digest());
        crcs[part] = crc32c(partCrc);
      }
    }
    return new ContentDigests(Sha256Checksum.of(sha256.digest()), List.of(md5s), crc32c(crc), List.of(crcs));
  }

  /** Feeds exactly {@code length} bytes of {@code in} to the digests; a shorter stream is an error. */
  private static void update(InputStream in, long length, byte[] buffer, MessageDigest first, MessageDigest second,
      CRC32C crc, CRC32C partCrc, long offset, long size) throws IOException {
    long read = 0;
    while (read < length) {
      int n = in.read(buffer, 0, (int) Math.min(buffer.length, length - read));
      if (n < 0) {
        throw new EOFException("content ended after " + (offset + read) + " of " + size + " bytes");
      }
      first.update(buffer, 0, n);
      if (second != null) {
        second.update(buffer, 0, n);
      }
      if (crc != null) {
        crc.update(buffer, 0, n);
      }
      if (partCrc != null) {
        partCrc.update(buffer, 0, n);
      }
      read += n;
    }
  }

  private static MessageDigest digest(String algorithm) {
    try {
      return MessageDigest.getInstance(algorithm);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has " + algorithm, e);
    }
  }
}
