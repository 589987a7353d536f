package dev.segmentledger.core;

/** The state of the circuit breaker around the sink. */
public enum CircuitState {
  /** The sink is healthy: uploads run. */
  CLOSED,
  /** Too many consecutive transient or configuration sink failures: workers pause and the sweeper accepts nothing. */
  OPEN,
  /** The open delay has passed: a probe upload decides whether to close or re-open. */
  HALF_OPEN
}
