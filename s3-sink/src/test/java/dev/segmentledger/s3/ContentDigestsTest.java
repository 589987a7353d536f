package dev.segmentledger.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.segmentledger.core.spi.UploadContent;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.zip.CRC32C;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ContentDigestsTest {
  private static final int PART = 100_000;
  private final Lanes oneLane = new Lanes(Lanes.helperPool("digests-test"), 1);
  private final Lanes fourLanes = new Lanes(Lanes.helperPool("digests-test"), 4);

  @ParameterizedTest
  @ValueSource(ints = {1, PART - 1, PART, PART + 1, 7 * PART + 12_345})
  void severalLanesGiveWhatOnePassGives(int size) throws Exception {
    byte[] data = TestContent.randomBytes(size, size);
    PartLayout layout = PartLayout.multipart(size, PART);

    ContentDigests parallel = ContentDigests.of(TestContent.of(data), layout, fourLanes);
    ContentDigests sequential = ContentDigests.of(TestContent.of(data), layout, oneLane);

    assertEquals(sequential, parallel);
    assertEquals(TestContent.sha256(new ByteArrayInputStream(data)), parallel.checksum());
    ContentDigests whole = ContentDigests.whole(TestContent.of(data));
    assertEquals(whole.checksum(), parallel.checksum());
    assertEquals(whole.crc32c(), parallel.crc32c());
    CRC32C crc = new CRC32C();
    crc.update(data);
    assertEquals(ContentDigests.crc32c(crc), parallel.crc32c());
    for (int i = 0; i < layout.count(); i++) {
      byte[] md5 = MessageDigest.getInstance("MD5").digest(Arrays.copyOfRange(data, (int) layout.offset(i),
          (int) (layout.offset(i) + layout.length(i))));
      assertEquals(Base64.getEncoder().encodeToString(md5), parallel.partMd5s().get(i));
      assertEquals(HexFormat.of().formatHex(md5), parallel.partMd5Hex(i));
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 4})
  void theCrc32cIsTheBigEndianBase64OfTheStandardCheckValue(int lanes) throws Exception {
    byte[] data = "123456789".getBytes(StandardCharsets.US_ASCII);

    ContentDigests digests = ContentDigests.of(TestContent.of(data), PartLayout.single(data.length),
        lanes == 1 ? oneLane : fourLanes);

    assertEquals(Base64.getEncoder().encodeToString(new byte[] {(byte) 0xE3, 0x06, (byte) 0x92, (byte) 0x83}),
        digests.crc32c());
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 4})
  void aContentShorterThanItsSizeIsRefused(int lanes) {
    UploadContent lying = new UploadContent() {
      @Override
      public long size() {
        return 3L * PART;
      }

      @Override
      public InputStream openStream() {
        return new ByteArrayInputStream(new byte[2 * PART]);
      }
    };

    assertThrows(EOFException.class,
        () -> ContentDigests.of(lying, PartLayout.multipart(3L * PART, PART), lanes == 1 ? oneLane : fourLanes));
  }
}
