package dev.segmentledger.core.internal;

import dev.segmentledger.core.Backoff;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.StateStore;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/** The immutable settings of one ledger, copied from the builder. */
public record LedgerConfig(
    StateStore stateStore,
    ObjectSink objectSink,
    Path allowedRoot,
    Clock clock,
    int queueCapacity,
    int workers,
    int sweepBatchSize,
    Duration sweepInterval,
    Duration shutdownTimeout,
    Backoff backoff,
    List<LedgerListener> listeners) {}
