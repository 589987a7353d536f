package dev.segmentledger.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The file identity's time text must stay exactly {@code Instant.toString()}: rows store it. */
class InstantTextTest {

  @Test
  void writesWhatInstantToStringWrites() {
    long[] seconds = {0, -1, 1, 59, 60, 86_399, 86_400, -86_401, 951_782_400L /* 2000-02-29 */,
        -62_167_219_200L, -62_167_219_201L, 253_402_300_799L, 253_402_300_800L, 1_764_547_200L};
    int[] nanos = {0, 1, 999, 1_000, 1_000_000, 100_000_000, 120_000_000, 123_456_000, 123_456_789, 999_999_999};
    for (long s : seconds) {
      for (int n : nanos) {
        Instant instant = Instant.ofEpochSecond(s, n);
        assertEquals(instant.toString(), InstantText.of(instant));
      }
    }
    SplittableRandom random = new SplittableRandom(42);
    for (int i = 0; i < 200_000; i++) {
      long s = random.nextLong(-70_000_000_000L, 260_000_000_000L);
      int n = switch (i % 4) {
        case 0 -> 0;
        case 1 -> random.nextInt(1_000) * 1_000_000;
        case 2 -> random.nextInt(1_000_000) * 1_000;
        default -> random.nextInt(1_000_000_000);
      };
      Instant instant = Instant.ofEpochSecond(s, n);
      assertEquals(instant.toString(), InstantText.of(instant), () -> "epoch second " + s + ", nano " + n);
    }
  }
}
