/**
 * Segment Ledger core: the ledger contract, its engine, and the extension points.
 *
 * <p>Only {@code dev.segmentledger.core} and {@code dev.segmentledger.core.query} (the API) and
 * {@code dev.segmentledger.core.spi} (what store, sink and tracing adapters implement) are
 * exported; the engine stays internal.
 */
module dev.segmentledger.core {
  requires dev.failsafe.core;
  requires org.slf4j;

  exports dev.segmentledger.core;
  exports dev.segmentledger.core.query;
  exports dev.segmentledger.core.spi;
}
