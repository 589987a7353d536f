package dev.segmentledger.spring;

import dev.segmentledger.console.LedgerConsole;
import dev.segmentledger.console.MediaSource;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.StateStore;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.handler.SimpleUrlHandlerMapping;

/**
 * The operations console ({@link LedgerConsole}) at {@code segment-ledger.console.path}, with
 * {@code segment-ledger.console.enabled=true} in a servlet web application. It needs Spring
 * Security: without it the application does not start (a console that anyone reaching the port
 * could use is never served). Users need the role {@code segment-ledger.console.role}; the
 * application's own security configuration signs them in.
 */
@AutoConfiguration(after = SegmentLedgerAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = SegmentLedgerConsoleProperties.PREFIX + ".enabled")
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({LedgerConsole.class, SimpleUrlHandlerMapping.class})
@EnableConfigurationProperties(SegmentLedgerConsoleProperties.class)
public class SegmentLedgerConsoleAutoConfiguration {

  /** With Spring Security: the console, mapped below its path. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.security.core.context.SecurityContextHolder")
  static class Secured {
    @Bean
    LedgerConsole segmentLedgerConsole(StateStore store, ObjectProvider<ObjectSink> sink,
        SegmentLedgerConsoleProperties properties) {
      LedgerConsole.Builder builder = LedgerConsole.builder().store(store).sink(sink.getIfUnique())
          .streamedBodies(true) // ConsoleRequestHandler copies a streamed body through and closes it
          .clock(Clock.systemUTC()).reopenEnabled(properties.isReopenEnabled()).hlsJsUrl(properties.getHlsJsUrl());
      if (properties.getHlsJs() != null && !properties.getHlsJs().isBlank()) {
        builder.hlsJs(Path.of(properties.getHlsJs()));
      }
      if (properties.getMediaBaseUrl() != null && !properties.getMediaBaseUrl().isBlank()) {
        builder.media(MediaSource.http(URI.create(properties.getMediaBaseUrl())));
      }
      return builder.build();
    }

    @Bean
    SimpleUrlHandlerMapping segmentLedgerConsoleMapping(LedgerConsole console,
        SegmentLedgerConsoleProperties properties) {
      String path = normalise(properties.getPath());
      ConsoleRequestHandler handler = new ConsoleRequestHandler(console, path, properties.getRole());
      SimpleUrlHandlerMapping mapping = new SimpleUrlHandlerMapping(Map.of(path, handler, path + "/**", handler));
      mapping.setOrder(-10);
      return mapping;
    }
  }

  /** Without Spring Security the console is refused, loudly. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnMissingClass("org.springframework.security.core.context.SecurityContextHolder")
  static class Unsecured {
    @Bean
    Object segmentLedgerConsoleRefused() {
      throw new IllegalStateException(SegmentLedgerConsoleProperties.PREFIX + ".enabled=true needs Spring Security"
          + " (spring-boot-starter-security): the console is served only to signed-in users with role "
          + SegmentLedgerConsoleProperties.PREFIX + ".role, never to anyone who reaches the port");
    }
  }

  static String normalise(String path) {
    if (path == null || !path.startsWith("/") || path.length() < 2 || path.endsWith("/") || path.contains("*")
        || path.contains("..")) {
      throw new IllegalStateException(SegmentLedgerConsoleProperties.PREFIX + ".path must start with '/', name a"
          + " path below the context (not '/') and not end with '/', got: " + path);
    }
    return path;
  }
}
