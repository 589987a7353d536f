package dev.segmentledger.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.testkit.FakeObjectSink;
import dev.segmentledger.testkit.InMemoryStateStore;
import dev.segmentledger.testkit.SettableClock;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The console's pages without a browser, on the testkit's in-memory store: output escaped, every
 * list bounded and paged, bad parameters answered 400 with what is allowed, re-open only after a
 * confirmation and only when enabled, the media route only for the ledger's keys.
 */
class LedgerConsoleTest {
  static final String HOSTILE = "<img src=x onerror=alert(1)>\u202Egnp.exe & \"quoted\" " + "x".repeat(300);

  private final SettableClock clock = SettableClock.at(Instant.parse("2026-11-30T12:00:00Z"));
  private final InMemoryStateStore store = new InMemoryStateStore();
  private long hostileRow;

  @BeforeEach
  void rows() {
    for (int i = 0; i < 7; i++) {
      LedgerItem row = store.register(NewItem.pending(ItemId.original("b1", "720p", i), "/rec/" + i, 10,
          clock.instant().minusSeconds(600))).item();
      if (i == 3) {
        store.markTerminal(row.rowId(), ItemState.PENDING, "node-a", ItemState.REJECTED, Reason.SINK_PERMANENT,
            HOSTILE, clock.instant());
        hostileRow = row.rowId();
      }
    }
  }

  private LedgerConsole console(boolean reopen) {
    return LedgerConsole.builder().store(store).sink(new FakeObjectSink()).clock(clock).reopenEnabled(reopen)
        .media(key -> java.util.Optional.empty()).build();
  }

  private static ConsoleResponse get(LedgerConsole console, String path, String... parameters) {
    return console.handle(request("GET", path, parameters));
  }

  private static ConsoleRequest request(String method, String path, String... parameters) {
    Map<String, List<String>> map = new HashMap<>();
    for (int i = 0; i < parameters.length; i += 2) {
      map.put(parameters[i], List.of(parameters[i + 1]));
    }
    return new ConsoleRequest(method, path, map, "/ops", "alice", Map.of("_csrf", "tok\"en"));
  }

  private static String body(ConsoleResponse response) {
    return new String(response.body(), StandardCharsets.UTF_8);
  }

  @Test
  void aHostileLastErrorIsShownAsEscapedTextAndCut() {
    String page = body(get(console(false), "/rows"));
    assertFalse(page.contains("<img"), "no markup from a row");
    assertFalse(page.contains("\u202E"), "no bidi control");
    assertTrue(page.contains("&lt;img src=x onerror=alert(1)&gt;\\u202egnp.exe &amp; &quot;quoted&quot;"), page);
    assertTrue(page.contains("...[+"), "cut in a list, with how much was left out");
    ConsoleResponse response = get(console(false), "/rows");
    assertTrue(response.headers().get("Content-Security-Policy").contains("script-src 'self'"));
  }

  @Test
  void listsArePagedWithAKeysetCursorAndBadParametersSayWhatIsAllowed() {
    LedgerConsole console = console(false);
    String first = body(get(console, "/broadcast", "id", "b1", "limit", "3"));
    assertTrue(first.contains("id=\"next\""), first);
    assertTrue(first.matches("(?s).*href=\"/ops/broadcast\\?after=[0-9]+&amp;id=b1&amp;limit=3\".*"), first);
    assertEquals(400, get(console, "/rows", "limit", "501").status());
    assertTrue(body(get(console, "/rows", "limit", "0")).contains("limit must be a whole number from 1 to 500"));
    assertTrue(body(get(console, "/rows", "state", "LOST")).contains("state must be one of [PENDING, WAITING"));
    assertTrue(body(get(console, "/broadcast", "id", "../etc")).contains("[A-Za-z0-9._-]"));
    assertEquals(404, get(console, "/broadcast", "id", "nobody").status());
    assertEquals(405, console.handle(request("POST", "/rows")).status());
  }

  @Test
  void reopenAsksForConfirmationCarriesTheHostsFieldsAndIsRefusedWhenDisabled() {
    ConsoleResponse refused = console.handle(request("POST", "/reopen", "row", "" + hostileRow, "state", "REJECTED"));
    assertEquals(403, refused.status());
    assertEquals(ItemState.REJECTED, store.findByRowId(hostileRow).orElseThrow().state());
    assertFalse(body(get(console(false), "/rows")).contains("Re-open"), "no re-open link when disabled");

    LedgerConsole enabled = console(true);
    String confirm = body(get(enabled, "/reopen", "row", "" + hostileRow));
    assertTrue(confirm.contains("method=\"post\""), confirm);
    assertTrue(confirm.contains("name=\"_csrf\" value=\"tok&quot;en\""), "the host's CSRF field, escaped: " + confirm);
    assertEquals(ItemState.REJECTED, store.findByRowId(hostileRow).orElseThrow().state(), "a GET changes nothing");
    ConsoleResponse done = enabled.handle(request("POST", "/reopen", "row", "" + hostileRow, "state", "REJECTED"));
    assertEquals(200, done.status(), body(done));
    LedgerItem row = store.findByRowId(hostileRow).orElseThrow();
    assertEquals(ItemState.PENDING, row.state());
    assertTrue(row.lastError().contains("re-opened from the console by alice"), row.lastError());
    assertEquals(409, enabled.handle(request("POST", "/reopen", "row", "" + hostileRow, "state", "REJECTED")).status());
  }

  private final LedgerConsole console = console(false);

  @Test
  void theMediaRouteServesOnlyTheLedgersKeys() {
    assertEquals(404, get(console, "/media/../../etc/passwd").status());
    assertEquals(404, get(console, "/media/b1/notes.txt").status());
    assertTrue(body(get(console, "/media/b1/notes.txt")).contains("not a key the player reads"));
    assertEquals(404, get(console, "/media/b1/720p/original/0000000001.ts").status(), "an original is no player's");
    assertEquals(404, get(console, "/media/b1/master.m3u8").status());
    assertTrue(body(get(console, "/media/b1/master.m3u8")).contains("no such object"));
    assertEquals(200, get(console, "/assets/player.js").status());
    assertEquals(404, get(console, "/assets/hls.min.js").status(), "no hls.js file given");
  }

  @Test
  void theOverviewShowsTheBacklogPerAxisWithTheOldestAge() {
    String page = body(get(console, "/"));
    assertTrue(page.contains("<td>ORIGINAL</td><td>6</td><td>10m 0s"), page);
    assertTrue(page.contains("<th>bytes to upload</th>"), page);
    assertTrue(page.contains("<td>60</td></tr>"), "6 unconfirmed rows of 10 bytes: " + page);
  }

  /**
   * A host written before streamed bodies writes only {@link ConsoleResponse#body()}: unless the
   * host says it copies a streamed body through ({@link LedgerConsole.Builder#streamedBodies}), a
   * media object comes whole in the body, and the console closes what it opened.
   */
  @Test
  void aMediaObjectIsInTheBodyUnlessTheHostStreams() {
    byte[] segment = "a playback segment".getBytes(StandardCharsets.UTF_8);
    java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();
    MediaSource source = new MediaSource() {
      @Override
      public java.util.Optional<Media> read(String key) {
        throw new AssertionError("the console opens, never reads whole");
      }

      @Override
      public java.util.Optional<MediaStream> open(String key) {
        return java.util.Optional.of(new MediaStream("application/octet-stream", segment.length,
            new java.io.ByteArrayInputStream(segment) {
              @Override
              public void close() {
                closed.set(true);
              }
            }));
      }
    };
    String key = "/media/" + ItemId.playback("b1", "720p", 1).objectKey();
    ConsoleResponse whole = get(LedgerConsole.builder().store(store).clock(clock).media(source).build(), key);
    assertEquals(200, whole.status());
    assertEquals(null, whole.streamed(), "a host of the first release candidate writes only the body");
    assertEquals("a playback segment", body(whole));
    assertEquals("video/iso.segment", whole.contentType());
    assertTrue(whole.headers().get("Content-Security-Policy").contains("sandbox"));
    assertTrue(closed.get(), "the console closes what it opened");

    closed.set(false);
    ConsoleResponse streamed = get(LedgerConsole.builder().store(store).clock(clock).media(source)
        .streamedBodies(true).build(), key);
    assertEquals(0, streamed.body().length);
    assertEquals(segment.length, streamed.streamed().length());
    assertFalse(closed.get(), "the host closes a streamed body once written");
  }
}
