package dev.segmentledger.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

class BackoffTest {
  private final RandomGenerator random = RandomGenerator.of("L64X128MixRandom");

  @Test
  void growsExponentiallyUpToTheCap() {
    Backoff noJitter = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(10), 2.0, 0.0);
    assertEquals(Duration.ofSeconds(1), noJitter.delayAfter(1, random));
    assertEquals(Duration.ofSeconds(2), noJitter.delayAfter(2, random));
    assertEquals(Duration.ofSeconds(8), noJitter.delayAfter(4, random));
    assertEquals(Duration.ofSeconds(10), noJitter.delayAfter(5, random));
    assertEquals(Duration.ofSeconds(10), noJitter.delayAfter(10_000, random));
  }

  @Test
  void jitterStaysWithinItsFraction() {
    Backoff backoff = new Backoff(Duration.ofSeconds(10), Duration.ofSeconds(10), 2.0, 0.2);
    for (int i = 0; i < 1_000; i++) {
      long millis = backoff.delayAfter(3, random).toMillis();
      assertTrue(millis >= 8_000 && millis <= 10_000, "delay " + millis);
    }
  }

  @Test
  void rejectsNonsense() {
    assertThrows(IllegalArgumentException.class, () -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1), 2, 0));
    assertThrows(IllegalArgumentException.class, () -> new Backoff(Duration.ZERO, Duration.ofSeconds(1), 0.5, 0));
    assertThrows(IllegalArgumentException.class, () -> new Backoff(Duration.ZERO, Duration.ofSeconds(1), 2, 1.5));
  }
}
