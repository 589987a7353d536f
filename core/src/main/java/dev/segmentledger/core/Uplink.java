package dev.segmentledger.core;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How one node shares its uplink: the priority lanes' reserved shares and the bandwidth cap over
 * the request bodies the ledger sends (every PUT body and every multipart part it hands the sink;
 * not headers, nor what an SDK resends by itself). Immutable and thread-safe; set at build time with
 * {@link LedgerBuilder#uplink} and at run time with {@link Ledger#uplink(Uplink)}; the cap of
 * running nodes also by a {@link dev.segmentledger.core.spi.StoredUplinkCap stored cap}, which
 * takes precedence.
 *
 * <p>The defaults: lanes on, 20% of the work taken reserved for {@link Lane#ORIGINAL} and 20% for
 * {@link Lane#BACKFILL} while they have work waiting, backfill waiting longer than 30 s taken before
 * originals of live broadcasts (never before {@link Lane#LIVE}), and no cap. The two reserved shares
 * together are also the lower lanes' share of the cap while an upload of live work is sending: live
 * first in the bytes too.
 *
 * @param lanes whether work is taken by lane; {@code false}: one queue in arrival order
 * @param originalShare the share of the work taken reserved for {@link Lane#ORIGINAL} while it has work waiting
 * @param backfillShare the share of the work taken reserved for {@link Lane#BACKFILL} while it has work waiting
 * @param backfillAgingAfter how long backfill waits in the queue before it is taken ahead of originals
 * @param bytesPerSecond the cap on request body bytes a second over the whole node; 0: none
 * @param requestsPerSecond the cap on request bodies (PUTs and parts) started a second; 0: none
 * @param timetable the byte cap by time of day or of week, or {@code null}; when set, the entry in
 *     force is the byte cap and {@code bytesPerSecond} is not used (a running ledger reports the
 *     entry's cap there, {@link Ledger#uplink()})
 */
public record Uplink(boolean lanes, double originalShare, double backfillShare, Duration backfillAgingAfter,
    long bytesPerSecond, long requestsPerSecond, UplinkTimetable timetable) {

  /** The defaults: lanes with 20% reserved per lower lane, no cap. */
  public static final Uplink DEFAULT = builder().build();

  private static final Pattern SIZE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(B|KiB|MiB|GiB)?",
      Pattern.CASE_INSENSITIVE);

  public Uplink {
    Objects.requireNonNull(backfillAgingAfter, "backfillAgingAfter");
    if (!(originalShare >= 0 && backfillShare >= 0 && originalShare + backfillShare < 1)) {
      throw new IllegalArgumentException("the reserved shares must be at least 0 and less than 1 in all, got "
          + originalShare + " and " + backfillShare);
    }
    if (backfillAgingAfter.isNegative() || bytesPerSecond < 0 || requestsPerSecond < 0) {
      throw new IllegalArgumentException("aging and caps must not be negative");
    }
  }

  /** The byte cap at {@code instant}: the timetable's entry in force then, else {@link #bytesPerSecond}. */
  public long bytesPerSecondAt(java.time.Instant instant) {
    return timetable == null ? bytesPerSecond : timetable.bytesPerSecondAt(instant);
  }

  /**
   * Reads a byte cap as an operator writes it: a number of bytes, or with {@code KiB}, {@code MiB} or
   * {@code GiB} (binary units, case-insensitive, a space before the unit allowed, a decimal fraction
   * allowed, rounded down to whole bytes); {@code 0} or {@code off}: none.
   *
   * @throws IllegalArgumentException for anything else, more than {@link Long#MAX_VALUE} bytes, or a
   *     non-zero size under one byte (it would silently be no cap); the message names the text
   */
  public static long parseBytesPerSecond(String text) {
    String trimmed = text.trim();
    if (trimmed.equalsIgnoreCase("off")) {
      return 0;
    }
    Matcher m = SIZE.matcher(trimmed);
    if (!m.matches()) {
      throw new IllegalArgumentException("not a number of bytes, nor one with KiB, MiB or GiB (20MiB, 1.5MiB), nor"
          + " off: " + text);
    }
    String unit = m.group(2) == null ? "B" : m.group(2).toUpperCase(Locale.ROOT);
    int shift = switch (unit) {
      case "KIB" -> 10;
      case "MIB" -> 20;
      case "GIB" -> 30;
      default -> 0;
    };
    BigDecimal bytes = new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(1L << shift));
    if (bytes.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
      throw new IllegalArgumentException("too large: " + text);
    }
    long whole = bytes.setScale(0, RoundingMode.DOWN).longValueExact();
    if (whole == 0 && bytes.signum() > 0) {
      throw new IllegalArgumentException("under one byte a second (0 or off for no cap): " + text);
    }
    return whole;
  }

  /** A builder starting from the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from these settings. */
  public Builder toBuilder() {
    Builder builder = new Builder();
    builder.lanes = lanes;
    builder.originalShare = originalShare;
    builder.backfillShare = backfillShare;
    builder.backfillAgingAfter = backfillAgingAfter;
    builder.bytesPerSecond = bytesPerSecond;
    builder.requestsPerSecond = requestsPerSecond;
    builder.timetable = timetable;
    return builder;
  }

  /** Builds an {@link Uplink}; not thread-safe. */
  public static final class Builder {
    private boolean lanes = true;
    private double originalShare = 0.2;
    private double backfillShare = 0.2;
    private Duration backfillAgingAfter = Duration.ofSeconds(30);
    private long bytesPerSecond;
    private long requestsPerSecond;
    private UplinkTimetable timetable;

    private Builder() {}

    /** {@code false}: one queue in arrival order, as before lanes (default {@code true}). */
    public Builder lanes(boolean lanes) {
      this.lanes = lanes;
      return this;
    }

    /** The reserved shares of {@link Lane#ORIGINAL} and {@link Lane#BACKFILL} (default 0.2 each). */
    public Builder reservedShares(double original, double backfill) {
      this.originalShare = original;
      this.backfillShare = backfill;
      return this;
    }

    /** How long backfill waits before it goes ahead of originals of live broadcasts (default 30 s). */
    public Builder backfillAgingAfter(Duration after) {
      this.backfillAgingAfter = after;
      return this;
    }

    /** The cap on request body bytes a second; 0: none (the default). */
    public Builder bytesPerSecond(long bytesPerSecond) {
      this.bytesPerSecond = bytesPerSecond;
      return this;
    }

    /** The cap on request bodies started a second; 0: none (the default). */
    public Builder requestsPerSecond(long requestsPerSecond) {
      this.requestsPerSecond = requestsPerSecond;
      return this;
    }

    /**
     * The byte cap by time of day or of week ({@code null}: none, the default); when set, it decides
     * the byte cap instead of {@link #bytesPerSecond}.
     */
    public Builder timetable(UplinkTimetable timetable) {
      this.timetable = timetable;
      return this;
    }

    /** @throws IllegalArgumentException if a share, the aging or a cap is out of range */
    public Uplink build() {
      return new Uplink(lanes, originalShare, backfillShare, backfillAgingAfter, bytesPerSecond, requestsPerSecond,
          timetable);
    }
  }
}
