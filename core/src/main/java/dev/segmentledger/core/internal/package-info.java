/**
 * The ledger engine. <b>Unsupported: not API.</b> Nothing here is part of Segment Ledger's public
 * interface; classes, methods and behaviour may change or disappear in any release without notice.
 * The core's {@code module-info} does not export this package, and {@code ArchitectureTest}
 * (integration-tests) fails the build if any class outside the core uses it. Build a ledger with
 * {@code Ledger.builder()} (package {@code dev.segmentledger.core}) and extend it through
 * {@code dev.segmentledger.core.spi}.
 *
 * <p>For orientation only (docs/design.md, "Reading the engine"): {@code DefaultLedger} is a facade
 * that wires the parts. <b>Register:</b> {@code Registrar} checks each file ({@code PathGuard}),
 * plans its rows (with a repackager also the INIT and a waiting PLAYBACK row) and has
 * {@code RowWriter} make them durable in a shared transaction ({@code GroupCommit}). <b>Row:</b>
 * only then is a PENDING row offered through {@code Intake} to the bounded {@code WorkQueue}, where
 * it is an {@code InFlight} handle holding its row's slot until released, exactly once.
 * <b>Worker:</b> {@code WorkerPool} hands each handle to {@code ItemProcessor}, which takes the
 * lease ({@code Leases}), applies {@code AbandonedAttempts}, produces a derived file
 * ({@code PlaybackProducer}). <b>Sink:</b> {@code Uploader} opens the file ({@code PathGuard}:
 * {@code BoundaryCheck}, {@code NoFollowOpener}, {@code RegisteredFile} → {@code VerifiedFile}) and
 * PUTs it through {@code SinkBreaker}. <b>Confirm:</b> {@code Confirmer} confirms by compare-and-set
 * in a {@code GroupCommit} and releases the handle. {@code Failures} records every failure on its
 * row; {@code SweepScheduler} runs {@code Sweeper} rounds that re-collect unconfirmed rows;
 * {@code Reopener} re-opens terminal rows. <b>Playlists:</b> {@code PlaylistScheduler} runs
 * {@code PlaylistPublisher} rounds that claim the playlists the store marked as changed, render them
 * ({@code PlaylistTexts}) and PUT them through the same sink and breaker.
 */
package dev.segmentledger.core.internal;
