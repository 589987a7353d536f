/**
 * The executable specification of the SPI: {@link dev.segmentledger.testkit.contract.StateStoreContract}
 * and {@link dev.segmentledger.testkit.contract.ObjectSinkContract}. Extend one in a test of your
 * store or sink, give it a fresh instance per test, and it runs every case of the contract: the
 * store's cases are grouped by SPI area in {@code @Nested} classes (registration, sweep and reads,
 * confirmation, failures and terminal states, reopen, cutoff and broadcasts, operations queries,
 * leases, lease renewals, the evidence of attempts, retention, playlists, storage groups, original
 * formats). The in-memory store and the fake sinks of {@link dev.segmentledger.testkit} pass them,
 * as do the project's PostgreSQL store and S3 sink.
 */
package dev.segmentledger.testkit.contract;
