package dev.segmentledger.core.spi;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Lane;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import java.time.Instant;
import java.util.Objects;

/**
 * A row to insert. Normally {@link ItemState#PENDING}; a registration refused at the file
 * boundary is inserted directly as {@link ItemState#REJECTED} with its reason, so that nothing
 * a recorder registered is ever silently dropped. PLAYBACK rows are inserted
 * {@link ItemState#WAITING} for their rendition's INIT (the store turns them PENDING at once if
 * the INIT is already confirmed).
 *
 * @param id the natural identity (unique in the store)
 * @param sourcePath the file to upload (for PLAYBACK and INIT, where the repackager will write it)
 * @param originPath for PLAYBACK and INIT, the recorded original they are produced from
 * @param sizeBytes the size to upload and confirm, {@code >= 0}, or
 *     {@link LedgerItem#UNKNOWN_SIZE} for a PLAYBACK or INIT row not produced yet
 * @param state the initial state
 * @param reason why the row starts terminal; {@code null} otherwise
 * @param detail a human-readable detail for {@code reason}; may be {@code null}
 * @param registeredAt the registration time, also the first {@code nextAttemptAt} of an unleased row
 * @param leaseOwner the ledger instance the row is {@linkplain StateStore#claim leased} to from
 *     its insertion, or {@code null}; only for a PENDING row. A registering instance that will
 *     upload the row itself at once leases it here and saves the claim (one statement per item)
 * @param leaseUntil the end of that lease, also the row's first {@code nextAttemptAt}; {@code null}
 *     exactly when {@code leaseOwner} is
 * @param fileIdentity the recorded file's identity at registration (see
 *     {@link LedgerItem#fileIdentity()}), stored with the row; {@code null} if not recorded
 * @param recordedAt when the recording of the original's media began ({@link LedgerItem#recordedAt()}),
 *     stored with the row; {@code null} if unknown
 * @param storageGroup the {@linkplain dev.segmentledger.core.LedgerBuilder#storageGroup storage group}
 *     whose nodes can read the row's file (for PLAYBACK and INIT, its original's file); {@code null}
 *     for shared storage, which every node without a group reads
 * @param traceContext the trace context of the registration that writes the row
 *     ({@link Tracing.Span#context()}), stored with it so that its upload continues that trace;
 *     {@code null} without tracing
 * @param lane the lane the recorder asked for the row ({@link LedgerItem#lane()}), stored with it;
 *     {@code null} if none
 */
public record NewItem(
    ItemId id, String sourcePath, String originPath, long sizeBytes, ItemState state, Reason reason,
    String detail, Instant registeredAt, String leaseOwner, Instant leaseUntil, String fileIdentity,
    Instant recordedAt,
    String storageGroup,
    String traceContext,
    Lane lane) {

  public NewItem {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(sourcePath, "sourcePath");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(registeredAt, "registeredAt");
    if ((leaseOwner == null) != (leaseUntil == null)) {
      throw new IllegalArgumentException("leaseOwner and leaseUntil are both set or both null");
    }
    if (leaseOwner != null && state != ItemState.PENDING) {
      throw new IllegalArgumentException("only a PENDING row can be leased, not a " + state + " one");
    }
    if (sizeBytes < LedgerItem.UNKNOWN_SIZE) {
      throw new IllegalArgumentException("sizeBytes must be >= 0 or UNKNOWN_SIZE, got " + sizeBytes);
    }
    if (sizeBytes == LedgerItem.UNKNOWN_SIZE && id.axis() == Axis.ORIGINAL) {
      throw new IllegalArgumentException("an ORIGINAL row needs a known size");
    }
  }

  /**
   * This row leased to {@code owner} until {@code until} from its insertion, as if {@code owner}
   * had {@linkplain StateStore#claim claimed} it at once. If the identity exists already, the
   * existing row is returned as it is, unleased by this call.
   *
   * @throws IllegalArgumentException if this row is not PENDING
   */
  public NewItem leasedTo(String owner, Instant until) {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(until, "until");
    return new NewItem(id, sourcePath, originPath, sizeBytes, state, reason, detail, registeredAt, owner, until,
        fileIdentity, recordedAt, storageGroup, traceContext, lane);
  }

  /** This row with the recorded file's identity {@code identity} (may be {@code null}). */
  public NewItem withFileIdentity(String identity) {
    return new NewItem(id, sourcePath, originPath, sizeBytes, state, reason, detail, registeredAt, leaseOwner,
        leaseUntil, identity, recordedAt, storageGroup, traceContext, lane);
  }

  /** This row with the recording time {@code time} (may be {@code null}). */
  public NewItem withRecordedAt(Instant time) {
    return new NewItem(id, sourcePath, originPath, sizeBytes, state, reason, detail, registeredAt, leaseOwner,
        leaseUntil, fileIdentity, time, storageGroup, traceContext, lane);
  }

  /** This row in the storage group {@code group} ({@code null}: shared storage). */
  public NewItem inStorageGroup(String group) {
    return new NewItem(id, sourcePath, originPath, sizeBytes, state, reason, detail, registeredAt, leaseOwner,
        leaseUntil, fileIdentity, recordedAt, group, traceContext, lane);
  }

  /** This row carrying the trace context {@code context} of its registration. */
  public NewItem withTraceContext(String context) {
    return new NewItem(id, sourcePath, originPath, sizeBytes, state, reason, detail, registeredAt, leaseOwner,
        leaseUntil, fileIdentity, recordedAt, storageGroup, context, lane);
  }

  /** This row in the lane {@code lane} the recorder asked for ({@code null}: none). */
  public NewItem inLane(Lane lane) {
    return new NewItem(id, sourcePath, originPath, sizeBytes, state, reason, detail, registeredAt, leaseOwner,
        leaseUntil, fileIdentity, recordedAt, storageGroup, traceContext, lane);
  }

  /**
   * A row without a lane hint ({@code lane} {@code null}): the constructor of the components before
   * hints were stored, kept for code written against it.
   */
  public NewItem(ItemId id, String sourcePath, String originPath, long sizeBytes, ItemState state, Reason reason,
      String detail, Instant registeredAt, String leaseOwner, Instant leaseUntil, String fileIdentity,
      Instant recordedAt, String storageGroup, String traceContext) {
    this(id, sourcePath, originPath, sizeBytes, state, reason, detail, registeredAt, leaseOwner, leaseUntil,
        fileIdentity, recordedAt, storageGroup, traceContext, null);
  }

  /** Whether this row is leased from its insertion. */
  public boolean leased() {
    return leaseOwner != null;
  }

  /** The row's first {@code nextAttemptAt}: the end of its lease if leased, else its registration time. */
  public Instant nextAttemptAt() {
    return leased() ? leaseUntil : registeredAt;
  }

  /** A plain PENDING row for a recorded file. */
  public static NewItem pending(ItemId id, String sourcePath, long sizeBytes, Instant registeredAt) {
    return new NewItem(id, sourcePath, null, sizeBytes, ItemState.PENDING, null, null, registeredAt, null, null, null, null, null, null);
  }

  /** A row refused at registration, terminal from the start. */
  public static NewItem rejected(ItemId id, String sourcePath, long sizeBytes, Reason reason, String detail,
      Instant registeredAt) {
    return new NewItem(id, sourcePath, null, sizeBytes, ItemState.REJECTED, reason, detail, registeredAt, null, null, null, null, null, null);
  }

  /**
   * A PLAYBACK or INIT row, to be produced from {@code originPath} into {@code targetPath}.
   * INIT rows start PENDING, PLAYBACK rows WAITING for their INIT.
   */
  public static NewItem derived(ItemId id, String targetPath, String originPath, Instant registeredAt) {
    if (id.axis() == Axis.ORIGINAL) {
      throw new IllegalArgumentException("an ORIGINAL row is not derived: " + id);
    }
    Objects.requireNonNull(originPath, "originPath");
    ItemState state = id.axis() == Axis.PLAYBACK ? ItemState.WAITING : ItemState.PENDING;
    return new NewItem(id, targetPath, originPath, LedgerItem.UNKNOWN_SIZE, state, null, null, registeredAt, null, null, null, null, null, null);
  }
}
