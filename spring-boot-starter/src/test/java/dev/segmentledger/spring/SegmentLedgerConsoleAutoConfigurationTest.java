package dev.segmentledger.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.segmentledger.console.LedgerConsole;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.testkit.InMemoryStateStore;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.servlet.handler.SimpleUrlHandlerMapping;

/** The console exists only when enabled, only with Spring Security, and only at a sound path. */
class SegmentLedgerConsoleAutoConfigurationTest {
  private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(SegmentLedgerConsoleAutoConfiguration.class))
      .withBean(StateStore.class, InMemoryStateStore::new);

  @Test
  void offUnlessEnabled() {
    runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LedgerConsole.class));
  }

  @Test
  void enabledWithSpringSecurityItIsMappedBelowItsPath() {
    runner.withPropertyValues("segment-ledger.console.enabled=true", "segment-ledger.console.path=/ops")
        .run(context -> {
          assertThat(context).hasNotFailed().hasSingleBean(LedgerConsole.class);
          SimpleUrlHandlerMapping mapping = context.getBean("segmentLedgerConsoleMapping",
              SimpleUrlHandlerMapping.class);
          assertThat(mapping.getUrlMap()).containsOnlyKeys("/ops", "/ops/**");
        });
  }

  @Test
  void enabledWithoutSpringSecurityTheApplicationDoesNotStart() {
    runner.withPropertyValues("segment-ledger.console.enabled=true")
        .withClassLoader(new FilteredClassLoader(SecurityContextHolder.class))
        .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
            .hasMessageContaining("segment-ledger.console.enabled=true needs Spring Security"));
  }

  @Test
  void aPathThatIsNotBelowTheContextIsRefused() {
    runner.withPropertyValues("segment-ledger.console.enabled=true", "segment-ledger.console.path=/")
        .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
            .hasMessageContaining("segment-ledger.console.path must start with '/'"));
  }
}
