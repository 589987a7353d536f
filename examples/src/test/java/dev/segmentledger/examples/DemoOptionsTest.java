package dev.segmentledger.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.URI;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DemoOptionsTest {
  @Test
  void embeddedDefaultsWithoutArgumentsOrEnvironment() {
    DemoOptions options = DemoOptions.parse(List.of(""), Map.of());
    assertNull(options.jdbcUrl());
    assertNull(options.s3Endpoint());
    assertEquals("recordings", options.bucket());
  }

  @Test
  void severalOptionsInOneArgumentAsMavenPassesThem() {
    DemoOptions options = DemoOptions.parse(List.of("--data-dir=/tmp/d",
        "--jdbc-url=jdbc:postgresql://db/ledger --jdbc-user=u --s3-endpoint=https://s3.example --bucket=b"), Map.of());
    assertEquals("jdbc:postgresql://db/ledger", options.jdbcUrl());
    assertEquals("u", options.jdbcUser());
    assertEquals(URI.create("https://s3.example"), options.s3Endpoint());
    assertEquals("b", options.bucket());
  }

  @Test
  void environmentWhenNoArgument() {
    DemoOptions options = DemoOptions.parse(List.of(), Map.of("SEGMENT_LEDGER_JDBC_URL", "jdbc:postgresql://x/y"));
    assertEquals("jdbc:postgresql://x/y", options.jdbcUrl());
  }

  @Test
  void malformedArgumentsAreRefusedClearly() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> DemoOptions.parse(List.of("jdbc-url"), Map.of()));
    assertEquals("arguments are --name=value, got: jdbc-url", e.getMessage());
  }
}
