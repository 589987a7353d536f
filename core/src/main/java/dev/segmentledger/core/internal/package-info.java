/**
 * The ledger engine. <b>Unsupported: not API.</b> Nothing here is part of Segment Ledger's public
 * interface; classes, methods and behaviour may change or disappear in any release without notice.
 * The core's {@code module-info} does not export this package, and {@code ArchitectureTest}
 * (integration-tests) fails the build if any class outside the core uses it. Build a ledger with
 * {@code Ledger.builder()} (package {@code dev.segmentledger.core}) and extend it through
 * {@code dev.segmentledger.core.spi}.
 *
 * <p>For orientation only (docs/design.md, "Reading the engine"): {@code DefaultLedger} wires the
 * engine and registers rows through {@code Registrar}; {@code WorkQueue} bounds the work in
 * memory; {@code ItemProcessor} makes one attempt (lease by {@code Leases}, file by
 * {@code PathGuard} and {@code VerifiedFile}, repackaging by {@code PlaybackProducer}, the PUT
 * through {@code SinkBreaker}); {@code Confirmer} confirms by compare-and-set; {@code Failures}
 * records every failure on its row; {@code Sweeper} re-collects unconfirmed rows.
 */
package dev.segmentledger.core.internal;
