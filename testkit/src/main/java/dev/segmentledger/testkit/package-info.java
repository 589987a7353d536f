/**
 * What a user of Segment Ledger tests with: fakes of the SPI, the contracts every store and sink
 * must pass, a PostgreSQL fixture, a settable clock and the ledger/bucket consistency check. The
 * crash points and hooks are in {@link dev.segmentledger.testkit.crash}.
 *
 * <p>Fakes:
 * <ul>
 *   <li>{@link dev.segmentledger.testkit.InMemoryStateStore}: a {@code StateStore} in memory.
 *   <li>{@link dev.segmentledger.testkit.FakeObjectSink}: an {@code ObjectSink} in memory that
 *       records every PUT ({@link dev.segmentledger.testkit.PutAttempt}) and injects faults
 *       ({@link dev.segmentledger.testkit.SinkFault}).
 *   <li>{@link dev.segmentledger.testkit.DirectoryObjectSink}: an {@code ObjectSink} on a
 *       directory, durable across processes.
 *   <li>{@link dev.segmentledger.testkit.ForwardingObjectSink}: the base of a sink wrapper.
 *   <li>{@link dev.segmentledger.testkit.FakeRepackager}: a {@code Repackager} without ffmpeg.
 * </ul>
 *
 * <p>Contracts (abstract JUnit 5 tests to extend):
 * {@link dev.segmentledger.testkit.contract.StateStoreContract}, its tests in {@code @Nested} groups by SPI
 * area, and {@link dev.segmentledger.testkit.contract.ObjectSinkContract}.
 *
 * <p>Fixtures and checks: {@link dev.segmentledger.testkit.PostgresExtension} (a fresh PostgreSQL
 * schema per test class; never skips), {@link dev.segmentledger.testkit.SettableClock},
 * {@link dev.segmentledger.testkit.LedgerEvents} (wait on ledger events instead of sleeping),
 * {@link dev.segmentledger.testkit.ConsistencyAssertions} (the core {@code Reconciler}'s report,
 * report-only, as a test assertion), {@link dev.segmentledger.testkit.TestMedia} (a synthetic
 * recorded broadcast, made with ffmpeg) and {@link dev.segmentledger.testkit.PlaybackBucketServer}
 * (an in-process S3 server with an anonymous port that players read the bucket from; needs S3Proxy,
 * an optional dependency, on the class path).
 *
 * <p>The project's own rig (the {@code FaultProxy} wire fault relay, the acceptance-protocol
 * harness) is not here: it is the unpublished {@code test-rig} module.
 */
package dev.segmentledger.testkit;
