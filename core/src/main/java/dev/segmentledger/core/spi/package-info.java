/**
 * Extension points implemented by adapters: {@link dev.segmentledger.core.spi.StateStore} (the
 * ledger table) and {@link dev.segmentledger.core.spi.ObjectSink} (the bucket). Every
 * implementation should pass the abstract contract tests of the testkit module.
 */
package dev.segmentledger.core.spi;
