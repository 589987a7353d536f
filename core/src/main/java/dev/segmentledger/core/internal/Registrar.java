package dev.segmentledger.core.internal;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.BroadcastEndedException;
import dev.segmentledger.core.ClosedFile;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Lane;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.Registration;
import dev.segmentledger.core.Registration.Offer;
import dev.segmentledger.core.RegistrationConflictException;
import dev.segmentledger.core.RootReplacedException;
import dev.segmentledger.core.StoreException;
import dev.segmentledger.core.internal.PrintableText;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.RegisterResult;
import dev.segmentledger.core.spi.Tracing;
import dev.segmentledger.core.spi.Tracing.Span;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registers closed files: the row first, then the offer.
 *
 * <p>Design note. For each file it checks the boundary ({@link PathGuard}) and plans the rows of
 * the registration: PENDING with the file's identity, or REJECTED with a reason if the file fails
 * the check (except ROOT_REPLACED, the root's refusal: it writes nothing for the whole call and
 * is thrown as {@link RootReplacedException}, for the caller to register again); with a
 * repackager, for an original also the rendition's INIT and a WAITING PLAYBACK row. The {@link RowWriter} makes the rows of one call durable in one transaction (possibly shared
 * with concurrent calls). Only then is each PENDING row offered through the {@link Intake}; a full
 * queue drops the offer and the row waits for the sweeper. A row this call creates is leased to
 * this instance from its insertion (a short lease, which saves a claim before the PUT) when the
 * queue has room for it; a leased row the queue did not take after all is released at once. While
 * the queue is full the rows are written unleased, so registration stays one commit.
 *
 * <p>A store failure reaches the caller as a {@link StoreException} that says whether the rows may
 * have been written ({@link StoreException#writeOutcome()}); once the write returned, nothing after it
 * (the offer, giving back a lease) makes the call fail, so a call that returns means durable rows
 * and a call that throws leaves the caller to register again. Thread-safe.
 */
final class Registrar {
  private static final Logger log = LoggerFactory.getLogger(Registrar.class);

  private final PathGuard guard;
  private final Leases leases;
  private final RowWriter writer;
  private final Intake intake;
  private final Events events;
  private final Clock clock;
  /** Where derived files are produced; {@code null} without a repackager (no derived rows). */
  private final PlaybackProducer producer;
  /** The storage group of this node, given to every row it writes; {@code null}: shared storage. */
  private final String storageGroup;
  private final Tracing tracing;
  private final LaneOf lanes;

  Registrar(PathGuard guard, Leases leases, RowWriter writer, Intake intake, Events events, Clock clock,
      PlaybackProducer producer, String storageGroup, Tracing tracing, LaneOf lanes) {
    this.guard = guard;
    this.leases = leases;
    this.writer = writer;
    this.intake = intake;
    this.events = events;
    this.clock = clock;
    this.producer = producer;
    this.storageGroup = storageGroup;
    this.tracing = tracing;
    this.lanes = lanes;
  }

  /** Registers {@code files} in one transaction; see {@code Ledger.registerAll}. */
  List<Registration> registerAll(List<ClosedFile> files) {
    return registerAll(files, (Lane) null);
  }

  /**
   * {@link #registerAll(List)}, the rows of each segment (not the rendition's INIT, which every
   * segment shares) in {@code lane}, stored with them; {@code null}: no hint.
   */
  List<Registration> registerAll(List<ClosedFile> files, Lane lane) {
    Span span = tracing.registration(files.size());
    try {
      List<Registration> registrations = registerAll(files, span.context(), lane);
      span.end();
      return registrations;
    } catch (RuntimeException | Error e) {
      span.end(e);
      throw e;
    }
  }

  /** {@link #registerAll(List, Lane)}, the rows carrying {@code traceContext} (may be {@code null}). */
  private List<Registration> registerAll(List<ClosedFile> files, String traceContext, Lane lane) {
    Instant now = clock.instant();
    // Lease a file's rows only if the queue has room for them: a leased row the queue refuses must
    // be released, a second durable commit on the recorder's thread for every file while the queue
    // is full (an S3 outage: register p99 3.4 x steady in the outage benchmark). An unleased row is the sweeper's.
    Instant leaseUntil = leases.registrationLeaseUntil();
    int room = intake.room();
    List<NewItem> rows = new ArrayList<>(files.size());
    int[] firstRowOf = new int[files.size()];
    for (int f = 0; f < files.size(); f++) {
      ClosedFile file = Objects.requireNonNull(files.get(f), "files contains null");
      firstRowOf[f] = rows.size();
      for (NewItem row : rowsFor(file.id(), file.file(), now, f < room ? leaseUntil : null)) {
        NewItem timed = file.recordedAt() == null ? row : row.withRecordedAt(file.recordedAt()); // derived rows inherit it
        NewItem hinted = row.id().axis() == Axis.INIT ? timed : timed.inLane(lane);
        rows.add(hinted.inStorageGroup(storageGroup).withTraceContext(traceContext));
      }
    }
    List<RegisterResult> results;
    try {
      results = writer.write(rows);
    } catch (RegistrationConflictException | BroadcastEndedException | StoreException e) {
      throw e;
    } catch (RuntimeException e) {
      // A store that let its driver's exception out: still the documented type, and it cannot say
      // what it wrote (the recorder registers again, which is safe either way).
      throw new StoreException("the state store failed to register " + rows.size() + " rows: "
          + e.getClass().getName(), e, StoreException.Outcome.UNKNOWN);
    }
    Offer[] offers = new Offer[results.size()];
    for (int i = 0; i < results.size(); i++) {
      offers[i] = settle(rows.get(i), results.get(i));
    }
    List<Registration> registrations = new ArrayList<>(files.size());
    for (int f = 0; f < files.size(); f++) {
      RegisterResult first = results.get(firstRowOf[f]);
      registrations.add(new Registration(first.item(), first.created(), offers[firstRowOf[f]]));
    }
    return registrations;
  }

  /**
   * After the rows are durable: reports a refusal, offers a pending row to the queue, and gives
   * back the lease on a row this call leased but the queue did not take.
   */
  private Offer settle(NewItem row, RegisterResult result) {
    LedgerItem item = result.item();
    if (result.created() && row.lane() != null && item.lane() == null) {
      lanes.hintUnstoredSegment(item.id(), row.lane()); // a store that keeps no hints
    }
    if (result.created() && item.state() == ItemState.REJECTED) {
      log.warn("refused {} at registration: {} ({})", item.id(), item.reason(), item.lastError());
      events.onFailed(item, item.reason(), item.lastError(), true);
    }
    if (result.created() && item.state() == ItemState.WAITING && item.id().axis() == Axis.PLAYBACK) {
      intake.waitingForInit(item); // offered by this node's confirm of the INIT, if it is this node's
    }
    if (item.state() != ItemState.PENDING || !result.created() && !ofThisGroup(item)) {
      // A row another host registered first (same identity) stays with that host's group: its file
      // is on that host's disk, and this node could only fail to read it.
      return Offer.NOT_OFFERED;
    }
    boolean leasedHere = result.created() && row.leased();
    // A row that was already there (a restarted recorder registering again) is offered like a swept
    // one: re-read before upload, and uploaded as a retry (mayExist), since a dead process may have
    // stored its object or left an unfinished multipart upload at its key.
    Offer offer = intake.offer(item, !result.created(), leasedHere ? row.leaseUntil() : null);
    if (leasedHere && offer != Offer.ACCEPTED) {
      leases.release(item, Duration.ZERO); // the sweeper will find it
    }
    return offer;
  }

  /** {@code row} leased to {@code owner} until {@code leaseUntil}; unleased if that is {@code null}. */
  private static NewItem leased(NewItem row, String owner, Instant leaseUntil) {
    return leaseUntil == null ? row : row.leasedTo(owner, leaseUntil);
  }

  /** Whether this node may upload {@code item}: a row of its storage group, or of none. */
  private boolean ofThisGroup(LedgerItem item) {
    return item.storageGroup() == null || item.storageGroup().equals(storageGroup);
  }

  /**
   * The rows one registration writes, in one transaction: the item itself (REJECTED with its
   * reason if the file fails the boundary; PENDING with the file's identity, which the upload
   * requires unchanged), then, for an original when repackaging, the
   * rendition's INIT and the segment's PLAYBACK row. A PLAYBACK row always waits for its INIT.
   * The caller adds the recording time to every row.
   * PENDING rows are leased to this instance until {@code leaseUntil}: it is about to upload them.
   *
   * @throws dev.segmentledger.core.UnsupportedFileNameException if the file's name cannot be
   *     stored exactly; thrown before any row of the batch is written
   * @throws RootReplacedException if the allowed root is replaced and not re-opened (ROOT_REPLACED);
   *     thrown before any row of the batch is written
   */
  private List<NewItem> rowsFor(ItemId id, Path file, Instant now, Instant leaseUntil) {
    BoundaryCheck.Checked checked;
    try {
      checked = guard.check(file);
    } catch (FileRejectedException e) {
      guard.requireRepresentable(file, null);
      if (e.reason() == Reason.ROOT_REPLACED) {
        // The root's refusal, not the file's: a REJECTED row of size 0 could never be registered
        // again with the file's size once the root is back. No row; the caller registers again.
        throw new RootReplacedException(PrintableText.escape(file), e.getMessage());
      }
      return List.of(NewItem.rejected(id, guard.absolute(file).toString(), 0, e.reason(), e.getMessage(), now));
    }
    guard.requireRepresentable(file, checked.realPath());
    String path = checked.realPath().toString();
    try {
      RegisteredFile.requireNotEmpty(PrintableText.escape(file), checked.size());
    } catch (FileRejectedException e) {
      return List.of(NewItem.rejected(id, path, 0, e.reason(), e.getMessage(), now));
    }
    String owner = leases.owner();
    if (id.axis() == Axis.PLAYBACK) {
      return List.of(new NewItem(id, path, null, checked.size(), ItemState.WAITING, null, null, now, null, null, null, null, null, null)
          .withFileIdentity(checked.identity()));
    }
    NewItem row = leased(NewItem.pending(id, path, checked.size(), now), owner, leaseUntil)
        .withFileIdentity(checked.identity());
    if (producer == null || id.axis() != Axis.ORIGINAL) {
      return List.of(row);
    }
    ItemId init = ItemId.init(id.broadcastId(), id.rendition());
    ItemId playback = ItemId.playback(id.broadcastId(), id.rendition(), id.sequence());
    return List.of(row,
        leased(NewItem.derived(init, producer.targetFor(init).toString(), path, now), owner, leaseUntil),
        NewItem.derived(playback, producer.targetFor(playback).toString(), path, now));
  }
}
