package dev.segmentledger.core;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A bandwidth cap that changes with the time of day, or of the week: entries such as
 * {@code "08:00,512KiB 18:00,20MiB 23:00,off"} (every day) or {@code "Mon-08:00,1MiB Sat-00:00,off"}
 * (every week), each in force from its time until the next entry's, the last one until the first
 * one of the next day (or week). Times are read in {@link #zone()}. Sizes are bytes a second:
 * a number with an optional unit ({@code B}, {@code KiB}, {@code MiB}, {@code GiB}, or rclone's
 * {@code k}, {@code M}, {@code G}, all powers of 1024), {@code 0} or {@code off} for no cap.
 * Immutable and thread-safe.
 *
 * @param entries the entries, in the order they come in a day or a week
 * @param zone the time zone the entries' times are read in
 */
public record UplinkTimetable(List<Entry> entries, ZoneId zone) {

  /**
   * One entry: from {@code at} (on {@code day}, or every day if {@code null}) the cap is
   * {@code bytesPerSecond} (0: none).
   *
   * @param day the day of the week, or {@code null} for every day
   * @param at the time of day the entry starts
   * @param bytesPerSecond the cap in force from then; 0: none
   */
  public record Entry(DayOfWeek day, LocalTime at, long bytesPerSecond) {
    public Entry {
      Objects.requireNonNull(at, "at");
      if (bytesPerSecond < 0) {
        throw new IllegalArgumentException("a cap must not be negative, got " + bytesPerSecond);
      }
    }

    @Override
    public String toString() {
      String time = at.truncatedTo(ChronoUnit.MINUTES).toString();
      String when = day == null ? time : day.name().charAt(0) + day.name().substring(1, 3).toLowerCase(Locale.ROOT)
          + "-" + time;
      return when + "," + (bytesPerSecond == 0 ? "off" : bytesPerSecond);
    }
  }

  /**
   * @throws IllegalArgumentException if there is no entry, two entries start at the same time, or
   *     some entries name a day and others do not
   */
  public UplinkTimetable {
    Objects.requireNonNull(zone, "zone");
    entries = new ArrayList<>(Objects.requireNonNull(entries, "entries"));
    if (entries.isEmpty()) {
      throw new IllegalArgumentException("a timetable needs at least one entry");
    }
    boolean weekly = entries.get(0).day() != null;
    for (Entry entry : entries) {
      if ((entry.day() != null) != weekly) {
        throw new IllegalArgumentException("either every entry of a timetable names a day, or none does: " + entries);
      }
    }
    entries.sort(Comparator.comparing(UplinkTimetable::offset));
    for (int i = 1; i < entries.size(); i++) {
      if (offset(entries.get(i)).equals(offset(entries.get(i - 1)))) {
        throw new IllegalArgumentException("two entries start at the same time: " + entries.get(i - 1) + " and "
            + entries.get(i));
      }
    }
    entries = List.copyOf(entries);
  }

  /**
   * Reads a timetable: entries separated by spaces, each {@code HH:MM,SIZE} or
   * {@code Day-HH:MM,SIZE} (Day: {@code Mon} to {@code Sun}).
   *
   * @throws IllegalArgumentException naming the entry that cannot be read
   */
  public static UplinkTimetable parse(String text, ZoneId zone) {
    Objects.requireNonNull(text, "text");
    List<Entry> entries = new ArrayList<>();
    for (String part : text.trim().split("\\s+")) {
      if (!part.isEmpty()) {
        entries.add(entry(part));
      }
    }
    return new UplinkTimetable(entries, zone);
  }

  private static Entry entry(String text) {
    int comma = text.indexOf(',');
    if (comma < 0) {
      throw new IllegalArgumentException("a timetable entry is TIME,SIZE or Day-TIME,SIZE, got '" + text + "'");
    }
    String when = text.substring(0, comma);
    DayOfWeek day = null;
    int dash = when.indexOf('-');
    if (dash >= 0) {
      day = day(when.substring(0, dash), text);
      when = when.substring(dash + 1);
    }
    LocalTime at;
    try {
      at = LocalTime.parse(when);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("the time of timetable entry '" + text + "' is not HH:MM", e);
    }
    return new Entry(day, at, bytesPerSecond(text.substring(comma + 1), text));
  }

  private static DayOfWeek day(String name, String entry) {
    for (DayOfWeek day : DayOfWeek.values()) {
      if (day.name().substring(0, 3).equalsIgnoreCase(name)) {
        return day;
      }
    }
    throw new IllegalArgumentException("the day of timetable entry '" + entry + "' is not Mon to Sun");
  }

  /**
   * Reads a size a second as {@link Uplink#parseBytesPerSecond} does, and with rclone's units too:
   * {@code k}, {@code M} and {@code G} (any case) are {@code KiB}, {@code MiB} and {@code GiB}.
   *
   * @throws IllegalArgumentException if it cannot be read, is too large, or is under one byte but not 0
   */
  public static long bytesPerSecond(String size) {
    return bytesPerSecond(size, size);
  }

  private static long bytesPerSecond(String size, String context) {
    String text = size.trim();
    String rclone = text.isEmpty() ? "" : text.substring(text.length() - 1).toLowerCase(Locale.ROOT);
    if (text.length() > 1 && Character.isDigit(text.charAt(text.length() - 2)) && "kmg".contains(rclone)) {
      text = text.substring(0, text.length() - 1) + rclone.toUpperCase(Locale.ROOT) + "iB";
    }
    try {
      return Uplink.parseBytesPerSecond(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("the size in '" + context + "' (B, KiB, MiB, GiB, or rclone's k, M, G) is "
          + e.getMessage(), e);
    }
  }

  /** The cap in force at {@code instant}, in bytes a second (0: none). */
  public long bytesPerSecondAt(Instant instant) {
    ZonedDateTime local = instant.atZone(zone);
    Duration now = weekly() ? Duration.ofDays(local.getDayOfWeek().getValue() - 1L).plus(sinceMidnight(local))
        : sinceMidnight(local);
    Entry inForce = entries.get(entries.size() - 1); // the last one runs on into the next cycle
    for (Entry entry : entries) {
      if (offset(entry).compareTo(now) <= 0) {
        inForce = entry;
      }
    }
    return inForce.bytesPerSecond();
  }

  private boolean weekly() {
    return entries.get(0).day() != null;
  }

  private static Duration sinceMidnight(ZonedDateTime local) {
    return Duration.ofNanos(local.toLocalTime().toNanoOfDay());
  }

  /** When the entry starts: from midnight (every day) or from Monday's midnight (weekly). */
  private static Duration offset(Entry entry) {
    Duration time = Duration.ofNanos(entry.at().toNanoOfDay());
    return entry.day() == null ? time : Duration.ofDays(entry.day().getValue() - 1L).plus(time);
  }

  /** The entries as {@link #parse} reads them, and the zone. */
  @Override
  public String toString() {
    StringBuilder text = new StringBuilder();
    for (Entry entry : entries) {
      text.append(text.length() == 0 ? "" : " ").append(entry);
    }
    return text + " (" + zone + ")";
  }
}
