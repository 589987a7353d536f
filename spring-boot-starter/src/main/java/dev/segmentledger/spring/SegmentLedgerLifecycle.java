package dev.segmentledger.spring;

import dev.segmentledger.core.Ledger;
import dev.segmentledger.micrometer.LedgerBacklogMetrics;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the ledger (its workers and sweeper) and the backlog refresher when the application
 * context has been refreshed, and stops them when it closes: {@link Ledger#close()} waits up to
 * {@code segment-ledger.shutdown-timeout} for in-flight uploads.
 *
 * <p>Why a {@link SmartLifecycle} and not {@code ApplicationReadyEvent}: a lifecycle has a start
 * <em>and</em> an ordered, graceful stop, in the phases the web server also uses. Its phase,
 * {@value #PHASE}, is late (every bean exists, the context is refreshed) yet below the web server's
 * phases: the ledger runs before the first request arrives, and on shutdown it stops only after the
 * web server has stopped taking requests and finished those in flight, so a request that registers
 * a file never meets a closed ledger. Rows registered are durable either way; the ledger only
 * uploads them.
 */
public final class SegmentLedgerLifecycle implements SmartLifecycle {
  /** The lifecycle phase: below the web server's ({@code DEFAULT_PHASE - 2048} and {@code - 1024}). */
  public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

  private static final Logger log = LoggerFactory.getLogger(SegmentLedgerLifecycle.class);

  private final Ledger ledger;
  private final LedgerBacklogMetrics backlog;
  private volatile boolean running;

  /** Runs {@code ledger} and, if not null, the refresher of {@code backlog}. */
  public SegmentLedgerLifecycle(Ledger ledger, LedgerBacklogMetrics backlog) {
    this.ledger = Objects.requireNonNull(ledger, "ledger");
    this.backlog = backlog;
  }

  @Override
  public void start() {
    ledger.start();
    if (backlog != null) {
      backlog.start();
    }
    running = true;
    log.info("segment ledger started");
  }

  @Override
  public void stop() {
    running = false;
    if (backlog != null) {
      backlog.close();
    }
    ledger.close();
    log.info("segment ledger stopped");
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }
}
