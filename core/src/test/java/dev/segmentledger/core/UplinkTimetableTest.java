package dev.segmentledger.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** The cap by time of day or of week: which entry is in force, and what is refused with a named reason. */
class UplinkTimetableTest {
  private static final long KIB = 1024;
  private static final long MIB = 1024 * KIB;

  @Test
  void eachDailyEntryIsInForceUntilTheNextAndTheLastRunsOnPastMidnight() {
    UplinkTimetable table = UplinkTimetable.parse("18:00,off 08:00,512KiB  12:00,10M", ZoneOffset.UTC);
    assertEquals(0, table.bytesPerSecondAt(at("2026-01-01T07:59:59Z")), "before the first: yesterday's last");
    assertEquals(512 * KIB, table.bytesPerSecondAt(at("2026-01-01T08:00:00Z")));
    assertEquals(512 * KIB, table.bytesPerSecondAt(at("2026-01-01T11:59:59Z")));
    assertEquals(10 * MIB, table.bytesPerSecondAt(at("2026-01-01T12:00:00Z")));
    assertEquals(0, table.bytesPerSecondAt(at("2026-01-01T23:30:00Z")));
    assertEquals("08:00,524288 12:00,10485760 18:00,off (Z)", table.toString(), "sorted by time");
  }

  @Test
  void timesAreReadInTheTimetablesZone() {
    UplinkTimetable table = UplinkTimetable.parse("08:00,1MiB 18:00,off", ZoneId.of("Europe/Berlin"));
    assertEquals(MIB, table.bytesPerSecondAt(at("2026-01-01T07:30:00Z")), "08:30 in Berlin in winter");
    assertEquals(0, table.bytesPerSecondAt(at("2026-01-01T06:30:00Z")), "07:30 in Berlin");
  }

  @Test
  void weeklyEntriesRunOnIntoTheNextWeek() {
    UplinkTimetable table = UplinkTimetable.parse("Mon-08:00,1MiB Sat-00:00,off", ZoneOffset.UTC);
    // 2026-01-01 is a Thursday, 2026-01-03 a Saturday, 2026-01-05 a Monday.
    assertEquals(MIB, table.bytesPerSecondAt(at("2026-01-01T03:00:00Z")));
    assertEquals(0, table.bytesPerSecondAt(at("2026-01-03T00:00:00Z")));
    assertEquals(0, table.bytesPerSecondAt(at("2026-01-05T07:59:00Z")), "Monday before 08:00: Saturday's");
    assertEquals(MIB, table.bytesPerSecondAt(at("2026-01-05T08:00:00Z")));
  }

  @Test
  void sizesTakeBinaryUnitsDecimalsAndOff() {
    assertEquals(1536 * KIB, UplinkTimetable.bytesPerSecond("1.5MiB"));
    assertEquals(2 * KIB, UplinkTimetable.bytesPerSecond("2k"));
    assertEquals(3L << 30, UplinkTimetable.bytesPerSecond("3G"));
    assertEquals(100, UplinkTimetable.bytesPerSecond("100"));
    assertEquals(0, UplinkTimetable.bytesPerSecond("off"));
    assertEquals(0, UplinkTimetable.bytesPerSecond("0"));
  }

  @Test
  void whatCannotBeReadIsRefusedNamingTheEntry() {
    refused("08:00", "TIME,SIZE");
    refused("8h,1MiB", "not HH:MM");
    refused("Xyz-08:00,1MiB", "not Mon to Sun");
    refused("08:00,ten", "is not a number");
    refused("08:00,1TB", "KiB, MiB, GiB");
    refused("08:00,0.5", "under one byte");
    refused("08:00,1MiB 08:00,2MiB", "same time");
    refused("Mon-08:00,1MiB 18:00,off", "names a day");
    refused("   ", "at least one entry");
  }

  private static void refused(String text, String why) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> UplinkTimetable.parse(text, ZoneOffset.UTC), text);
    assertTrue(e.getMessage().contains(why), text + ": " + e.getMessage());
  }

  private static Instant at(String instant) {
    return Instant.parse(instant);
  }
}
