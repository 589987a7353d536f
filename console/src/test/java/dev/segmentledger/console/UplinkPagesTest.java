package dev.segmentledger.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.spi.StoredUplinkCap;
import dev.segmentledger.testkit.FakeObjectSink;
import dev.segmentledger.testkit.InMemoryStateStore;
import dev.segmentledger.testkit.SettableClock;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The uplink page: lists the stored caps; where the console may change the ledger, stores one for a
 * node or for every node and removes one, on POST only, carrying the host's fields; refused when
 * changes are disabled; bad input answered 400 with what is allowed.
 */
class UplinkPagesTest {
  private final SettableClock clock = SettableClock.at(Instant.parse("2026-12-05T07:00:00Z"));
  private final InMemoryStateStore store = new InMemoryStateStore();

  private LedgerConsole console(boolean changes) {
    return LedgerConsole.builder().store(store).sink(new FakeObjectSink()).clock(clock).reopenEnabled(changes).build();
  }

  private static ConsoleRequest request(String method, String... parameters) {
    Map<String, List<String>> map = new HashMap<>();
    for (int i = 0; i < parameters.length; i += 2) {
      map.put(parameters[i], List.of(parameters[i + 1]));
    }
    return new ConsoleRequest(method, "/uplink", map, "/ops", "alice", Map.of("_csrf", "token"));
  }

  private static String body(ConsoleResponse response) {
    return new String(response.body(), StandardCharsets.UTF_8);
  }

  @Test
  void capsAreStoredListedAndRemovedFromTheConsole() {
    LedgerConsole console = console(true);
    assertTrue(body(console.handle(request("GET"))).contains("No cap is stored"));

    ConsoleResponse stored = console.handle(request("POST", "action", "set", "node", "recorder-1", "bytes", "20",
        "unit", "MiB", "requests", "50"));
    assertEquals(200, stored.status());
    assertTrue(body(stored).contains("Stored for node recorder-1: 20 MiB/s, 50 requests a second"), body(stored));
    console.handle(request("POST", "action", "set", "node", "*", "bytes", "512", "unit", "KiB"));
    assertEquals(List.of(new StoredUplinkCap("*", 512 * 1024, 0, clock.instant()),
        new StoredUplinkCap("recorder-1", 20L << 20, 50, clock.instant())), store.uplinkCaps());

    String page = body(console.handle(request("GET")));
    assertTrue(page.contains("<td>recorder-1</td><td>20 MiB/s</td><td>50</td>"), page);
    assertTrue(page.contains("name=\"_csrf\" value=\"token\""), "the host's fields go back with every form");
    assertTrue(page.contains("Uplink caps</a>"), "in the navigation");

    ConsoleResponse removed = console.handle(request("POST", "action", "clear", "node", "recorder-1"));
    assertTrue(body(removed).contains("Removed the cap of node recorder-1."), body(removed));
    assertTrue(body(console.handle(request("POST", "action", "clear", "node", "recorder-1")))
        .contains("No cap was stored for node recorder-1."));
    assertEquals(1, store.uplinkCaps().size());
  }

  @Test
  void changesAreRefusedWhenDisabledAndBadInputSaysWhatIsAllowed() {
    LedgerConsole readOnly = console(false);
    assertEquals(403, readOnly.handle(request("POST", "action", "set", "node", "n1", "bytes", "1")).status());
    assertFalse(body(readOnly.handle(request("GET"))).contains("<form method=\"post\""), "no forms when disabled");

    LedgerConsole console = console(true);
    ConsoleResponse noNode = console.handle(request("POST", "action", "set", "bytes", "1"));
    assertEquals(400, noNode.status());
    assertTrue(body(noNode).contains("node is required"));
    assertTrue(body(console.handle(request("POST", "action", "set", "node", "n1", "bytes", "-1")))
        .contains("bytes must be a whole number from 0"));
    assertTrue(body(console.handle(request("POST", "action", "set", "node", "n1", "bytes", "1", "unit", "MB")))
        .contains("unit must be one of [B, KiB, MiB, GiB]"));
    assertEquals(List.of(), store.uplinkCaps(), "nothing stored");
  }
}
