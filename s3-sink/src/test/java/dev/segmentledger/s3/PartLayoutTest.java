package dev.segmentledger.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class PartLayoutTest {
  private static final long MIB = 1024 * 1024;

  @Test
  void partsOfTheConfiguredSizeThenTheRest() {
    PartLayout layout = PartLayout.multipart(20 * MIB + 3, 8 * MIB);

    assertEquals(3, layout.count());
    assertEquals(8 * MIB, layout.offset(1));
    assertEquals(8 * MIB, layout.length(1));
    assertEquals(16 * MIB, layout.offset(2));
    assertEquals(4 * MIB + 3, layout.length(2));
  }

  @Test
  void anExactMultipleHasNoEmptyLastPart() {
    PartLayout layout = PartLayout.multipart(16 * MIB, 8 * MIB);

    assertEquals(2, layout.count());
    assertEquals(8 * MIB, layout.length(1));
  }

  @Test
  void partsGrowWhenTenThousandWouldNotHoldTheContent() {
    long size = 100_000 * MIB; // ~98 GiB
    PartLayout layout = PartLayout.multipart(size, 8 * MIB);

    assertEquals(10 * MIB, layout.partSize());
    assertEquals(10_000, layout.count());
  }

  @Test
  void theSameSizeAndSettingsGiveTheSameBoundaries() {
    assertEquals(PartLayout.multipart(1_234_567_890, 8 * MIB), PartLayout.multipart(1_234_567_890, 8 * MIB));
  }

  @Test
  void aSinglePartHoldsEverythingEvenNothing() {
    assertEquals(1, PartLayout.single(0).count());
    assertEquals(0, PartLayout.single(0).length(0));
    assertEquals(1, PartLayout.single(5).count());
    assertEquals(5, PartLayout.single(5).length(0));
  }
}
