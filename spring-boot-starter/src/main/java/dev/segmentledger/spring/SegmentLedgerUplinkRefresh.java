package dev.segmentledger.spring;

import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.Uplink;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.Environment;

/**
 * Turns the running ledger's uplink when a Spring Cloud refresh ({@code /actuator/refresh}, or
 * {@code ContextRefresher}) changes a {@code segment-ledger.uplink.*} property: the properties are
 * bound again from the environment and handed to {@link Ledger#uplink(Uplink)} at once. Settings
 * that do not bind or are out of range are logged at WARN with the reason, and the settings in
 * force are kept. Events that change no uplink property are ignored. Thread-safe.
 */
public class SegmentLedgerUplinkRefresh implements ApplicationListener<EnvironmentChangeEvent> {
  private static final Logger log = LoggerFactory.getLogger(SegmentLedgerUplinkRefresh.class);
  private static final String PREFIX = SegmentLedgerProperties.PREFIX + ".uplink";

  private final Ledger ledger;
  private final Environment environment;

  /** Turns {@code ledger}'s uplink from {@code environment}'s properties. */
  public SegmentLedgerUplinkRefresh(Ledger ledger, Environment environment) {
    this.ledger = Objects.requireNonNull(ledger, "ledger");
    this.environment = Objects.requireNonNull(environment, "environment");
  }

  @Override
  public void onApplicationEvent(EnvironmentChangeEvent event) {
    if (event.getKeys().stream().noneMatch(key -> key.startsWith(PREFIX + "."))) {
      return;
    }
    Uplink changed;
    try {
      changed = Binder.get(environment)
          .bindOrCreate(PREFIX, Bindable.of(SegmentLedgerProperties.UplinkProperties.class)).toUplink();
    } catch (RuntimeException e) {
      log.warn("the refreshed {}.* properties are not valid ({}); the uplink settings in force are kept: {}", PREFIX,
          e.getMessage(), ledger.uplink());
      return;
    }
    ledger.uplink(changed);
    log.info("uplink settings refreshed from {}.*: {}", PREFIX, changed);
  }
}
