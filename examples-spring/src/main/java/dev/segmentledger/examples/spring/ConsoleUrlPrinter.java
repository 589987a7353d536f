package dev.segmentledger.examples.spring;

import dev.segmentledger.spring.SegmentLedgerConsoleProperties;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.security.autoconfigure.SecurityProperties;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/** Prints where the ledger's console is, and how to sign in, once the application is ready. */
@Component
class ConsoleUrlPrinter implements ApplicationListener<ApplicationReadyEvent> {
  private final Environment environment;
  private final ObjectProvider<SegmentLedgerConsoleProperties> console;
  private final ObjectProvider<SecurityProperties> security;

  ConsoleUrlPrinter(Environment environment, ObjectProvider<SegmentLedgerConsoleProperties> console,
      ObjectProvider<SecurityProperties> security) {
    this.environment = environment;
    this.console = console;
    this.security = security;
  }

  @Override
  public void onApplicationEvent(ApplicationReadyEvent event) {
    SegmentLedgerConsoleProperties properties = console.getIfAvailable();
    if (properties == null || !properties.isEnabled()) {
      return;
    }
    String url = "http://localhost:" + environment.getProperty("local.server.port", "8080")
        + environment.getProperty("server.servlet.context-path", "") + properties.getPath() + "/";
    SecurityProperties.User user = security.getIfAvailable() == null ? null : security.getObject().getUser();
    String signIn = user == null ? "" : " (sign in as " + user.getName()
        + (user.isPasswordGenerated() ? ", password " + user.getPassword() : "") + ")";
    System.out.println("Segment Ledger console: " + url + signIn);
  }
}
