package dev.segmentledger.core;

import dev.segmentledger.core.internal.PrintableText;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What a {@link Reconciler} found when it compared the ledger rows of one broadcast with the
 * objects under the broadcast's prefix, per {@link Axis}. Immutable and thread-safe.
 *
 * <p>Per axis there are three kinds of difference: a confirmed row whose object is
 * {@linkplain Kind#OBJECT_MISSING missing}, a confirmed row whose object has another
 * {@linkplain Kind#SIZE_MISMATCH size} or {@linkplain Kind#CHECKSUM_MISMATCH checksum}, and an
 * {@linkplain Kind#ORPHAN orphan}: an object without a confirmed row. Objects whose key is not a key
 * of the {@link ObjectKeys} contract belong to no axis and are listed apart as
 * {@linkplain Kind#UNRECOGNIZED_KEY unrecognized}. Each difference says whether the repair
 * {@linkplain Difference#reopened() re-opened} its row; orphans and unrecognized objects are only
 * ever reported.
 *
 * <p>{@linkplain #unfinishedUploads() Unfinished uploads} under the prefix (multipart uploads of a
 * killed process, {@link UnfinishedUpload}) are listed apart and are <em>not</em> differences: they
 * hold no object, so the ledger and the bucket can agree while they exist, and one may be an upload
 * in progress. {@link #isConsistent()} ignores them; a repairing run aborts the old ones.
 *
 * @param broadcastId the broadcast compared
 * @param checkedAt when the comparison started (the reconciler's clock)
 * @param repair whether this was a repairing run ({@link Reconciler#reconcileAndRepair})
 * @param axes one entry per {@link Axis}
 * @param unrecognizedObjects objects under the prefix whose key is outside the contract
 * @param unfinishedUploads the unfinished uploads under the prefix, in key order; empty if they were
 *     not listed
 * @param unfinishedUploadsNotListed {@code null} if the unfinished uploads were listed; otherwise why
 *     not (the sink does not support them, or the listing failed)
 * @param playlists the playlists of the broadcast whose object is missing or not the one the
 *     ledger recorded as published ({@link Kind#PLAYLIST_MISSING}, {@link Kind#PLAYLIST_DIFFERENT});
 *     a playlist awaiting a newer publication, or being published, is not compared
 */
public record ReconciliationReport(String broadcastId, Instant checkedAt, boolean repair, Map<Axis, AxisReport> axes,
    List<Difference> unrecognizedObjects, List<Unfinished> unfinishedUploads, String unfinishedUploadsNotListed,
    List<Difference> playlists) {

  public ReconciliationReport {
    Objects.requireNonNull(broadcastId, "broadcastId");
    Objects.requireNonNull(checkedAt, "checkedAt");
    axes = Map.copyOf(axes);
    for (Axis axis : Axis.values()) {
      if (!axes.containsKey(axis)) {
        throw new IllegalArgumentException("no report for axis " + axis);
      }
    }
    unrecognizedObjects = List.copyOf(unrecognizedObjects);
    unfinishedUploads = List.copyOf(unfinishedUploads);
    playlists = List.copyOf(playlists);
    for (Difference d : playlists) {
      if (!d.kind().isPlaylist()) {
        throw new IllegalArgumentException("not a playlist difference: " + d);
      }
    }
    if (unfinishedUploadsNotListed != null && !unfinishedUploads.isEmpty()) {
      throw new IllegalArgumentException("unfinished uploads given although not listed");
    }
    if (!repair && unfinishedUploads.stream().anyMatch(Unfinished::aborted)) {
      throw new IllegalArgumentException("a report-only run aborts nothing");
    }
  }

  /**
   * One unfinished upload under the broadcast's prefix, and what the repair did with it.
   *
   * @param upload the upload, as the sink listed it
   * @param age how long before {@link ReconciliationReport#checkedAt()} it was initiated (zero if
   *     after, through clock skew); {@code null} if the sink does not say when it was initiated
   * @param aborted whether this run aborted it ({@code false} in a report-only run, for an upload
   *     younger than the reconciler's age limit or of unknown age, at a key outside the contract,
   *     already gone when aborted, or whose abort failed)
   * @param abortFailure why the abort failed; {@code null} if it was not tried or succeeded
   */
  public record Unfinished(UnfinishedUpload upload, Duration age, boolean aborted, String abortFailure) {
    public Unfinished {
      Objects.requireNonNull(upload, "upload");
      if (age != null && age.isNegative()) {
        throw new IllegalArgumentException("age must not be negative, got " + age);
      }
      if (aborted && abortFailure != null) {
        throw new IllegalArgumentException("aborted, yet failed: " + abortFailure);
      }
    }

    /** The key the upload would have written. */
    public String key() {
      return upload.key();
    }

    /** The axis of the upload's key; empty if the key is not a key of the contract. */
    public Optional<Axis> axis() {
      return ObjectKeys.idOf(upload.key()).map(ItemId::axis);
    }

    /** One readable line: key, upload id, initiation and age, and what the repair did. */
    public String describe() {
      String line = upload.key() + " (upload " + upload.uploadId() + ", initiated "
          + (upload.initiated() == null ? "at an unknown time" : upload.initiated() + ", " + age + " old") + ")";
      if (aborted) {
        return line + " [aborted]";
      }
      return abortFailure == null ? line : line + " [abort failed: " + abortFailure + "]";
    }

    @Override
    public String toString() {
      return "UNFINISHED_UPLOAD " + describe();
    }
  }

  /** The kinds of difference between a row and the object at its key. */
  public enum Kind {
    /** A confirmed row whose key holds no object. Repairable: the row is re-opened. */
    OBJECT_MISSING(true),
    /** A confirmed row whose object has another size. Repairable: the row is re-opened. */
    SIZE_MISMATCH(true),
    /**
     * A confirmed row whose object has the same size but another checksum: an algorithm both name has
     * another value ({@link Checksums#contradict}); compared only when both the row and the object
     * carry a checksum. Repairable: the row is re-opened.
     */
    CHECKSUM_MISMATCH(true),
    /**
     * An object at a contract key without a confirmed row: no row at all, or a row that is not
     * confirmed (an upload in flight or interrupted before its confirm, or a row rejected after its
     * PUT). Reported only: an orphan is never deleted.
     */
    ORPHAN(false),
    /** An object under the broadcast's prefix whose key is not a contract key. Reported only. */
    UNRECOGNIZED_KEY(false),
    /**
     * A playlist the ledger records as published (and not awaiting a newer publication) whose key
     * holds no object. Repairable: the playlist is published again.
     */
    PLAYLIST_MISSING(true),
    /**
     * A playlist the ledger records as published whose object has another checksum than the one
     * recorded at its publication: it is not what the ledger published (an older or foreign text,
     * possibly listing fewer entries). Compared only when the sink reports a checksum. Repairable:
     * the playlist is published again.
     */
    PLAYLIST_DIFFERENT(true);

    private final boolean repairable;

    Kind(boolean repairable) {
      this.repairable = repairable;
    }

    /**
     * Whether the repair re-opens the row of a difference of this kind (for a playlist: requests its
     * publication again).
     */
    public boolean isRepairable() {
      return repairable;
    }

    /** Whether this is a difference of a playlist rather than of a row's object. */
    public boolean isPlaylist() {
      return this == PLAYLIST_MISSING || this == PLAYLIST_DIFFERENT;
    }
  }

  /**
   * One difference.
   *
   * @param kind what differs
   * @param key the object key
   * @param row the ledger row at the key, as read; {@code null} if there is none
   * @param object the object at the key, as listed (or read by HEAD for a checksum); {@code null} if
   *     there is none
   * @param reopened whether the repair re-opened the row ({@code false} in a report-only run, for
   *     orphans, and when the row had changed since it was read)
   */
  public record Difference(Kind kind, String key, LedgerItem row, StoredObjectInfo object, boolean reopened) {
    public Difference {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(key, "key");
      if (kind.isRepairable() && !kind.isPlaylist() && row == null) {
        throw new IllegalArgumentException(kind + " needs a row");
      }
      if (kind != Kind.OBJECT_MISSING && kind != Kind.PLAYLIST_MISSING && object == null) {
        throw new IllegalArgumentException(kind + " needs an object");
      }
      if (reopened && !kind.isRepairable()) {
        throw new IllegalArgumentException(kind + " is never repaired");
      }
    }

    /** The axis of the difference; empty for an {@link Kind#UNRECOGNIZED_KEY unrecognized} key. */
    public Optional<Axis> axis() {
      if (row != null) {
        return Optional.of(row.id().axis());
      }
      return ObjectKeys.idOf(key).map(ItemId::axis);
    }

    /** One readable line: the key, the row and object facts, and the repair if any. */
    public String describe() {
      String line = switch (kind) {
        case OBJECT_MISSING -> key + " (row " + row.rowId() + ", " + row.sizeBytes() + " bytes): no object";
        case SIZE_MISMATCH -> key + " (row " + row.rowId() + "): row has " + row.sizeBytes() + " bytes, object has "
            + object.sizeBytes();
        case CHECKSUM_MISMATCH -> key + " (row " + row.rowId() + ", " + row.sizeBytes() + " bytes): row checksum "
            + row.checksum() + ", object checksum " + object.checksum();
        case ORPHAN -> key + " (" + object.sizeBytes() + " bytes): "
            + (row == null ? "no row" : "row " + row.rowId() + " is " + row.state());
        case UNRECOGNIZED_KEY -> key + " (" + object.sizeBytes() + " bytes)";
        case PLAYLIST_MISSING -> key + ": playlist recorded as published, no object";
        case PLAYLIST_DIFFERENT -> key + " (" + object.sizeBytes() + " bytes): object checksum " + object.checksum()
            + " is not the published playlist's";
      };
      // keys and checksums listed from the bucket are outside input
      String shown = PrintableText.escape(line);
      return reopened ? shown + (kind.isPlaylist() ? " [publication requested]" : " [re-opened]") : shown;
    }

    @Override
    public String toString() {
      return kind + " " + describe();
    }
  }

  /**
   * One axis of the comparison.
   *
   * @param axis the axis
   * @param confirmedRows the number of CONFIRMED rows of the axis
   * @param objects the number of objects of the axis (at contract keys) under the prefix
   * @param missing confirmed rows without their object
   * @param mismatched confirmed rows whose object has another size or checksum
   * @param orphans objects without a confirmed row
   */
  public record AxisReport(Axis axis, int confirmedRows, int objects, List<Difference> missing,
      List<Difference> mismatched, List<Difference> orphans) {

    public AxisReport {
      Objects.requireNonNull(axis, "axis");
      missing = List.copyOf(missing);
      mismatched = List.copyOf(mismatched);
      orphans = List.copyOf(orphans);
    }

    /** Every difference of this axis: missing, then mismatched, then orphans. */
    public List<Difference> differences() {
      List<Difference> all = new ArrayList<>(missing);
      all.addAll(mismatched);
      all.addAll(orphans);
      return List.copyOf(all);
    }
  }

  /** The report of {@code axis}. */
  public AxisReport axis(Axis axis) {
    return axes.get(Objects.requireNonNull(axis, "axis"));
  }

  /** Every difference: each axis in axis order, then the unrecognized objects, then the playlists. */
  public List<Difference> differences() {
    List<Difference> all = new ArrayList<>();
    for (Axis axis : Axis.values()) {
      all.addAll(axes.get(axis).differences());
    }
    all.addAll(unrecognizedObjects);
    all.addAll(playlists);
    return List.copyOf(all);
  }

  /** Whether the ledger and the bucket agree for this broadcast (no difference at all). */
  public boolean isConsistent() {
    return differences().isEmpty();
  }

  /** The number of rows the repair re-opened (0 for a report-only run). */
  public int reopened() {
    return (int) differences().stream().filter(d -> d.reopened() && !d.kind().isPlaylist()).count();
  }

  /** The number of playlists whose publication the repair requested again (0 for a report-only run). */
  public int playlistsRepublished() {
    return (int) playlists.stream().filter(Difference::reopened).count();
  }

  /** Whether the unfinished uploads under the prefix were listed ({@link #unfinishedUploads()} is complete). */
  public boolean unfinishedUploadsListed() {
    return unfinishedUploadsNotListed == null;
  }

  /** The number of unfinished uploads the repair aborted (0 for a report-only run). */
  public int abortedUploads() {
    return (int) unfinishedUploads.stream().filter(Unfinished::aborted).count();
  }

  /** A multi-line listing: the totals, counts per axis, then every difference. */
  public String describe() {
    List<Difference> all = differences();
    StringBuilder out = new StringBuilder("broadcast ").append(broadcastId).append(" at ").append(checkedAt)
        .append(": ").append(all.size()).append(all.size() == 1 ? " difference" : " differences")
        .append(" between ledger and bucket");
    if (repair) {
      out.append(", ").append(reopened()).append(" rows re-opened for upload");
      if (!unfinishedUploads.isEmpty()) {
        out.append(", ").append(abortedUploads()).append(" unfinished uploads aborted");
      }
    }
    for (Axis axis : Axis.values()) {
      AxisReport report = axes.get(axis);
      out.append("\n  ").append(axis).append(": ").append(report.confirmedRows()).append(" confirmed rows, ")
          .append(report.objects()).append(" objects, ").append(report.differences().size())
          .append(report.differences().size() == 1 ? " difference" : " differences");
      report.missing().forEach(d -> out.append("\n    confirmed row without its object: ").append(d.describe()));
      report.mismatched().forEach(d -> out.append("\n    confirmed row with another object: ").append(d.describe()));
      report.orphans().forEach(d -> out.append("\n    object without a confirmed row: ").append(d.describe()));
    }
    unrecognizedObjects.forEach(d -> out.append("\n  object with a key outside the contract: ").append(d.describe()));
    playlists.forEach(d -> out.append("\n  playlist: ").append(d.describe()));
    if (unfinishedUploadsNotListed != null) {
      out.append("\n  unfinished uploads not listed: ").append(unfinishedUploadsNotListed);
    } else if (!unfinishedUploads.isEmpty()) {
      out.append("\n  ").append(unfinishedUploads.size())
          .append(unfinishedUploads.size() == 1 ? " unfinished upload" : " unfinished uploads")
          .append(" (no object; not counted as differences):");
      unfinishedUploads.forEach(u -> out.append("\n    unfinished upload: ").append(u.describe()));
    }
    return out.toString();
  }

  @Override
  public String toString() {
    return describe();
  }
}
