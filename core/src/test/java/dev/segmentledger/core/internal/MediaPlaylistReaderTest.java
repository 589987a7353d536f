package dev.segmentledger.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.spi.PlaylistPart;
import dev.segmentledger.core.spi.PlaylistStore;
import dev.segmentledger.core.spi.StateStore;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A media playlist read from sealed parts and the rows after them is byte for byte the playlist
 * rendered from every row ({@link PlaylistTexts#media(String, String, List, boolean, int)}), and a
 * publication reads a bounded number of rows.
 */
class MediaPlaylistReaderTest {
  private static final Instant T0 = Instant.parse("2026-11-30T18:00:00Z");

  private final List<LedgerItem> rows = new ArrayList<>();
  private final TreeMap<Long, PlaylistPart> parts = new TreeMap<>();
  private final AtomicInteger rowsRead = new AtomicInteger();
  private final StateStore store = store();

  private StateStore store() {
    PlaylistStore playlists = (PlaylistStore) Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {PlaylistStore.class}, (proxy, method, args) -> switch (method.getName()) {
          case "parts" -> List.copyOf(parts.values());
          case "sealedSummary" -> parts.isEmpty() ? Optional.empty() : Optional.of(summary());
          default -> throw new UnsupportedOperationException(method.getName());
        });
    return (StateStore) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {StateStore.class},
        (proxy, method, args) -> switch (method.getName()) {
          case "playlists" -> playlists;
          case "find" -> rows.stream().filter(r -> r.id().equals(args[0])).findFirst();
          case "findSegments" -> {
            List<LedgerItem> page = rows.stream()
                .filter(r -> r.id().axis() == Axis.PLAYBACK && r.id().sequence() >= (long) args[2])
                .sorted(Comparator.comparingLong(r -> r.id().sequence())).limit((int) args[3]).toList();
            rowsRead.addAndGet(page.size());
            yield page;
          }
          default -> throw new UnsupportedOperationException(method.getName());
        });
  }

  /** The parts summed up as a store keeps them: what {@link PlaylistStore#sealedSummary} returns. */
  private PlaylistPart summary() {
    PlaylistPart first = parts.firstEntry().getValue();
    return new PlaylistPart("b1", "720p", first.firstSequence(), parts.lastEntry().getValue().nextSequence(),
        parts.values().stream().mapToInt(PlaylistPart::entries).sum(),
        parts.values().stream().mapToInt(PlaylistPart::discontinuities).sum(),
        parts.values().stream().mapToInt(PlaylistPart::targetSeconds).max().orElse(1),
        parts.values().stream().mapToLong(PlaylistPart::peakBandwidth).max().orElse(0), "");
  }

  private static LedgerItem row(ItemId id, ItemState state, Duration duration, Instant recordedAt) {
    return new LedgerItem(id.sequence() + 1, id, "/p/" + id.sequence(), "/r/" + id.sequence(), 1000 + id.sequence(),
        state, 0, null, null, T0, T0, state == ItemState.CONFIRMED ? T0 : null, null, duration, null, recordedAt,
        null, null);
  }

  /** Sequences {@code from} to {@code to}, every 7th rejected (never produced), a long segment at 151, times on some. */
  private void segments(long from, long to) {
    for (long s = from; s < to; s++) {
      ItemState state = s % 7 == 3 ? ItemState.REJECTED : ItemState.CONFIRMED;
      Duration duration = state == ItemState.REJECTED ? null : s == 151 ? Duration.ofMillis(6500)
          : Duration.ofMillis(4000 - (s % 3) * 100);
      rows.add(row(ItemId.playback("b1", "720p", s), state, duration, s % 2 == 0 ? T0.plusSeconds(4 * s) : null));
    }
  }

  /** Publishes like the publisher: reads, then seals what it may; returns the full text. */
  private MediaPlaylistReader.Media publish(MediaPlaylistReader reader, int floor, boolean complete) {
    MediaPlaylistReader.Media media = reader.read("b1", "720p", floor, complete);
    for (PlaylistPart part : media.sealable()) {
      parts.putIfAbsent(part.firstSequence(), part);
    }
    return media;
  }

  @Test
  void theFullPlaylistFromPartsAndTailRowsIsByteIdenticalToTheOneFromEveryRow() {
    rows.add(row(ItemId.init("b1", "720p"), ItemState.CONFIRMED, null, null));
    MediaPlaylistReader reader = new MediaPlaylistReader(store, 6);
    int floor = 0;
    for (long end = 10; end <= 460; end += 10) {
      segments(end - 10, end);
      MediaPlaylistReader.Media media = publish(reader, floor, false);
      assertEquals(PlaylistTexts.media("b1", "720p", rows, false, floor).text(), media.full().text(),
          "at " + end + " segments, " + parts.size() + " parts");
      floor = Math.max(floor, media.full().entries());
    }
    assertEquals(4, parts.size(), "blocks of 100 behind the window are sealed: " + parts.keySet());
    assertTrue(PlaylistTexts.media("b1", "720p", rows, false, floor).text().contains("#EXT-X-TARGETDURATION:7\n"));

    // A re-open removes the part covering it (the store does): the rows are read again, the text stays the same.
    parts.remove(100L);
    int at = rows.indexOf(rows.stream().filter(r -> r.id().sequence() == 120).findFirst().orElseThrow());
    rows.set(at, row(rows.get(at).id(), ItemState.PENDING, rows.get(at).mediaDuration(), null));
    MediaPlaylistReader.Media reopened = publish(reader, floor, false);
    assertEquals(PlaylistTexts.media("b1", "720p", rows, false, floor).text(), reopened.full().text());
    assertEquals(floor, reopened.full().entries(), "the floor keeps the re-opened position, as a gap");
    assertFalse(parts.containsKey(100L), "a block with an unsettled row is not sealed");

    // Completion, with a sequence hole bridged by a discontinuity.
    rows.set(at, row(rows.get(at).id(), ItemState.CONFIRMED, Duration.ofSeconds(4), null));
    segments(461, 480);
    MediaPlaylistReader.Media complete = publish(reader, floor, true);
    String expected = PlaylistTexts.media("b1", "720p", rows, true, floor).text();
    assertEquals(expected, complete.full().text());
    assertTrue(expected.contains("#EXT-X-DISCONTINUITY\n"), expected.substring(expected.length() - 600));
    assertTrue(expected.endsWith("#EXT-X-ENDLIST\n"));
    assertEquals(expected, publish(reader, floor, true).full().text(), "after sealing what completion allowed");
  }

  @Test
  void aLiveOnlyReadReadsOneSummaryOfThePartsAndGivesTheSameWindowAsAReadWithTexts() {
    rows.add(row(ItemId.init("b1", "720p"), ItemState.CONFIRMED, null, null));
    MediaPlaylistReader reader = new MediaPlaylistReader(store, 6);
    int floor = 0;
    for (long end = 10; end <= 460; end += 10) {
      segments(end - 10, end);
      floor = Math.max(floor, publish(reader, floor, false).full().entries());
      // "partSummaries" is not answered by the stub store: the live-only read must not ask for it.
      MediaPlaylistReader.Media live = reader.read("b1", "720p", floor, MediaPlaylistReader.Completion.known(false),
          false);
      MediaPlaylistReader.Media full = reader.read("b1", "720p", floor, false);
      assertEquals(full.live().text().text(), live.live().text().text(), "at " + end + " segments");
      assertEquals(full.entries(), live.entries());
      assertEquals(full.peakBandwidth(), live.peakBandwidth());
      assertEquals(full.target(), live.target());
    }
    assertEquals(4, parts.size());
  }

  @Test
  void aPublicationReadsBoundedRowsWhateverTheLength() {
    rows.add(row(ItemId.init("b1", "720p"), ItemState.CONFIRMED, null, null));
    MediaPlaylistReader reader = new MediaPlaylistReader(store, 6);
    int floor = 0;
    int most = 0;
    for (long end = 1; end <= 3_000; end++) {
      segments(end - 1, end);
      rowsRead.set(0);
      floor = Math.max(floor, publish(reader, floor, false).full().entries());
      most = Math.max(most, rowsRead.get());
    }
    assertEquals(3_000, floor);
    assertTrue(most <= 2 * PlaylistTexts.PART_ENTRIES + MediaPlaylistReader.PAGE, "read at most " + most);
  }

  @Test
  void theLiveWindowOfAReadPlaylistListsItsLastEntriesWithTheirSequenceNumbers() {
    rows.add(row(ItemId.init("b1", "720p"), ItemState.CONFIRMED, null, null));
    segments(5, 305); // the first registered sequence is 5: entry i has media sequence number 5 + i
    MediaPlaylistReader reader = new MediaPlaylistReader(store, 6);
    publish(reader, 0, false);
    LiveWindow.Window window = publish(reader, 0, false).live();
    assertFalse(parts.isEmpty());
    assertEquals(5 + window.firstIndex(), window.mediaSequence());
    assertTrue(window.text().text().endsWith("playback/0000000304.m4s\n"), window.text().text());
    assertTrue(window.text().text().contains("#EXT-X-MEDIA-SEQUENCE:" + window.mediaSequence() + "\n"));
    assertFalse(window.text().text().contains("PLAYLIST-TYPE"));
  }

  @Test
  void nothingIsPublishedBeforeTheInitIsConfirmed() {
    segments(0, 3);
    assertEquals(null, new MediaPlaylistReader(store, 6).read("b1", "720p", 0, false));
    assertEquals(Optional.empty(), store.find(ItemId.init("b1", "720p")));
  }
}
