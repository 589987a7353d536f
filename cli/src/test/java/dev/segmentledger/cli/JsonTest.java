package dev.segmentledger.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {
  @Test
  void writesValuesInOrderWithEscapes() {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("s", "a\"b\\c\nd\te\u0001\u2028");
    doc.put("n", 42L);
    doc.put("b", true);
    doc.put("null", null);
    doc.put("list", Arrays.asList(1, "x", null));
    doc.put("at", Instant.parse("2026-01-01T00:00:00Z"));
    doc.put("nested", Map.of("k", List.of()));

    assertEquals("{\"s\":\"a\\\"b\\\\c\\nd\\te\\u0001\\u2028\",\"n\":42,\"b\":true,\"null\":null,"
        + "\"list\":[1,\"x\",null],\"at\":\"2026-01-01T00:00:00Z\",\"nested\":{\"k\":[]}}", Json.write(doc));
  }

  @Test
  void keepsPrintableUnicode() {
    assertEquals("\"récital 🎥\"", Json.write("récital 🎥"));
  }
}
