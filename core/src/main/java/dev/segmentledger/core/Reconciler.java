package dev.segmentledger.core;

import dev.segmentledger.core.internal.DefaultReconciler;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.StateStore;
import java.time.Clock;
import java.time.Duration;

/**
 * Compares the ledger with the bucket, one broadcast at a time, and optionally repairs the
 * ledger. The check the design ends every scenario with, made available to applications: after an
 * operator restored a bucket, after a lifecycle rule or a person deleted objects, or on a schedule.
 *
 * <p><b>What is compared.</b> The rows of the broadcast ({@link StateStore#findByBroadcast}, read
 * first) with the objects under {@link ObjectKeys#broadcastPrefix} ({@link ObjectSink#list}, read
 * second), each axis on its own. A confirmed row must have an object at its key with the row's
 * size; if both the row and the object carry a checksum they must be equal. A listing often carries
 * no checksum (S3's does not), so for each confirmed row that has a checksum while its listed
 * object has none, the object is read with {@link ObjectSink#head}: one HEAD request per such row.
 * Checksums are compared as strings in the sink's own notation, and only when both sides have one:
 * an object written behind the ledger's back without the sink's checksum (for example by a plain
 * PUT) is compared on its size alone, so a same-size replacement of that kind is not detected. A
 * missing checksum is never taken as a difference, since a sink that reports none on HEAD would
 * then have every row re-opened on every run. Every object must have a confirmed row; one that has
 * not is an orphan.
 *
 * <p><b>Repair.</b> {@link #reconcileAndRepair} re-opens every confirmed row whose object is
 * missing or different: {@link StateStore#reopen} back to {@link ItemState#PENDING} with
 * {@link Reason#OBJECT_MISSING} or {@link Reason#OBJECT_MISMATCH}, due at once, its attempts
 * starting over at 0 (the detail names the attempts before), as {@link StateStore#reopen} does. The
 * sweeper then uploads the row again from its file to the same key and confirms it by
 * compare-and-set, as for any unconfirmed row. If the file is gone by then, the row ends
 * {@link ItemState#REJECTED} with {@link Reason#MISSING_FILE}: reported, never silently confirmed.
 * <b>Orphans are never deleted</b> and no object is ever removed from the bucket: an orphan may be an
 * upload whose confirm is still to come, or the only copy of data the ledger has forgotten; it is
 * reported for a person to decide.
 *
 * <p><b>Unfinished uploads.</b> If the sink {@linkplain ObjectSink#supportsUnfinishedUploads()
 * supports} them, the uploads under the prefix that were started and neither completed nor aborted
 * (multipart uploads of a killed process) are listed third ({@link ObjectSink#listUnfinishedUploads})
 * and reported apart, not as differences: they hold no object, and one may be an upload in
 * progress. {@link #reconcileAndRepair} aborts those at a contract key of the broadcast whose age
 * (from their initiation to the start of the run, on this reconciler's clock) is at least the age
 * limit given to {@link #create(StateStore, ObjectSink, Clock, Duration)} (default {@link
 * #DEFAULT_ABORT_UNFINISHED_AFTER}, 1 day: far longer than any upload, so an upload in progress is
 * never aborted). Uploads of unknown age or at other keys are reported only. Aborting deletes no
 * object, only the parts of an upload nothing will complete. This housekeeping never fails a run: a
 * failed listing or abort is logged and written into the report.
 *
 * <p><b>Guarantees and limits.</b> The comparison is a snapshot of two systems read one after the
 * other, so it is exact only while the broadcast is quiet. Reading rows before objects means an
 * upload that completes meanwhile shows at worst as an orphan (reported, never acted upon), never as
 * a missing object. A re-open is a compare-and-set on {@link ItemState#CONFIRMED}: a row that changed
 * since it was read is left alone (the difference says it was not re-opened). Two reconcilers
 * repairing at once may cause one extra upload of identical bytes, the price the ledger always
 * accepts over losing work. Store and sink failures propagate unchanged (except those of the unfinished-upload
 * housekeeping, see above); a repairing run re-opens nothing unless both reads succeeded.
 *
 * <p>Implementations are immutable and thread-safe. Obtain one from {@link #create} or use {@link Ledger#reconcile} and
 * {@link Ledger#reconcileAndRepair}.
 */
public interface Reconciler {
  /** The default age from which a repairing run aborts an unfinished upload: 1 day. */
  Duration DEFAULT_ABORT_UNFINISHED_AFTER = Duration.ofDays(1);

  /**
   * A reconciler of {@code store} against {@code sink}; {@code clock} dates reports and re-opens and
   * ages unfinished uploads. A repairing run aborts unfinished uploads at least {@link
   * #DEFAULT_ABORT_UNFINISHED_AFTER} old.
   */
  static Reconciler create(StateStore store, ObjectSink sink, Clock clock) {
    return new DefaultReconciler(store, sink, clock, DEFAULT_ABORT_UNFINISHED_AFTER);
  }

  /**
   * A reconciler like {@link #create(StateStore, ObjectSink, Clock)} whose repairing runs abort the
   * unfinished uploads at least {@code abortUnfinishedAfter} old (measured on {@code clock} against
   * the initiation time the sink reports). Choose it well above your longest upload plus the clock
   * skew between this host and the object store: an upload in progress that is aborted fails and is
   * retried (its row is never lost, but the bytes are sent again).
   *
   * @throws IllegalArgumentException if {@code abortUnfinishedAfter} is zero or negative
   */
  static Reconciler create(StateStore store, ObjectSink sink, Clock clock, Duration abortUnfinishedAfter) {
    return new DefaultReconciler(store, sink, clock, abortUnfinishedAfter);
  }

  /** Compares the broadcast's rows with its objects and reports every difference. Changes nothing. */
  ReconciliationReport reconcile(String broadcastId);

  /**
   * Compares like {@link #reconcile}, then re-opens each confirmed row whose object is missing or
   * different, so that the sweeper uploads it again, and aborts the unfinished uploads at the
   * broadcast's contract keys that are at least the age limit old. Orphans are reported, never
   * deleted.
   */
  ReconciliationReport reconcileAndRepair(String broadcastId);

  /**
   * One bounded step of a pass over a broadcast: at most {@link ReconcileRequest#maxChecks()} rows
   * and objects checked, for at most {@link ReconcileRequest#maxDuration()} on this reconciler's
   * clock, from {@link ReconcileRequest#cursor()}; with {@link ReconcileRequest#repair()}, repairs
   * what it found as {@link #reconcileAndRepair} does. See {@link ReconcileRequest} for the order
   * of the pass. Rows are read before the object they are compared with, and objects before the
   * row at their key, so an upload that completes meanwhile shows at worst as an orphan, as in a
   * whole run. A pass over a broadcast that changes while it runs checks each row and object as it
   * finds them: a row confirmed behind the cursor is checked by the next pass. A bucket that cannot
   * be read fails the step with the sink's exception; what the step re-opened before stays
   * re-opened.
   */
  ReconcileStep reconcile(ReconcileRequest request);
}
