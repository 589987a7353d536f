package dev.segmentledger.console;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.Printable;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.query.Page;
import dev.segmentledger.core.query.RowCount;
import dev.segmentledger.core.query.RowQuery;
import dev.segmentledger.core.spi.BroadcastRecord;
import dev.segmentledger.core.spi.PlaylistRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The pages that list rows: stuck and rejected rows across broadcasts, and one broadcast. */
final class RowPages {
  private static final List<ItemState> OPEN = List.of(ItemState.PENDING, ItemState.WAITING, ItemState.REJECTED,
      ItemState.EXCLUDED);

  private final Pages pages;

  RowPages(Pages pages) {
    this.pages = pages;
  }

  /** Rows across broadcasts, filtered, newest first, one keyset page. */
  ConsoleResponse rows(ConsoleRequest request) {
    Params p = new Params(request);
    ItemState state = p.choice("state", ItemState.class);
    Reason reason = p.choice("reason", Reason.class);
    Axis axis = p.choice("axis", Axis.class);
    String broadcast = p.broadcast("broadcast", false);
    long minAttempts = p.number("minAttempts", 0, 1_000_000, 0);
    Duration olderThan = p.duration("olderThan");
    int limit = (int) p.number("limit", 1, Pages.MAX_PAGE, 50);
    long after = p.number("after", 0, Long.MAX_VALUE, 0);
    Instant now = pages.clock.instant();
    RowQuery.Builder query = RowQuery.builder().states(state == null ? OPEN : List.of(state))
        .reasons(reason == null ? List.of() : List.of(reason)).axis(axis).broadcastId(broadcast)
        .minAttempts((int) minAttempts).limit(limit).after(after);
    if (olderThan != null) {
      query.registeredBefore(now.minus(olderThan));
    }
    Page<LedgerItem> page = pages.store.findRows(query.build());

    Html h = new Html(request.basePath());
    h.raw("<h1>Stuck and rejected rows</h1><form method=\"get\" class=\"filters\" action=\"")
        .raw(h.href("/rows", Map.of())).raw("\">");
    select(h, "state", ItemState.values(), state, "not confirmed");
    select(h, "reason", Reason.values(), reason, "any reason");
    select(h, "axis", Axis.values(), axis, "every axis");
    h.raw("<label>broadcast <input name=\"broadcast\" value=\"").t(broadcast).raw("\"></label>")
        .raw("<label>attempts &ge; <input name=\"minAttempts\" value=\"").t(minAttempts == 0 ? "" : minAttempts)
        .raw("\" size=\"4\"></label>")
        .raw("<label>older than <input name=\"olderThan\" value=\"").t(p.text("olderThan"))
        .raw("\" placeholder=\"15m, 2h, 3d\" size=\"6\"></label>")
        .raw("<label>per page <input name=\"limit\" value=\"").t(limit).raw("\" size=\"4\"></label>")
        .raw("<button type=\"submit\">Filter</button></form>");
    table(h, page.items(), now, true);
    if (page.hasNext()) {
      Map<String, Object> next = new LinkedHashMap<>();
      next.put("state", state);
      next.put("reason", reason);
      next.put("axis", axis);
      next.put("broadcast", broadcast);
      next.put("minAttempts", minAttempts == 0 ? null : minAttempts);
      next.put("olderThan", p.text("olderThan"));
      next.put("limit", limit);
      next.put("after", page.next().getAsLong());
      h.raw("<p><a id=\"next\" rel=\"next\" href=\"").raw(h.href("/rows", next)).raw("\">Next page</a></p>");
    }
    return pages.render(request, 200, "Stuck rows", h);
  }

  /** One broadcast: phase, counts, playlists, player, and its rows (paged). */
  ConsoleResponse broadcast(ConsoleRequest request) {
    Params p = new Params(request);
    String id = p.broadcast("id", true);
    int limit = (int) p.number("limit", 1, Pages.MAX_PAGE, 50);
    long after = p.number("after", 0, Long.MAX_VALUE, 0);
    Instant now = pages.clock.instant();
    List<RowCount> counts = pages.store.countByBroadcast(id);
    Optional<BroadcastRecord> record = pages.store.findBroadcast(id);
    if (counts.isEmpty() && record.isEmpty()) {
      return pages.problem(request, 404, "Unknown broadcast", "the ledger has no row and no record of broadcast "
          + id);
    }
    Map<Axis, Map<ItemState, Long>> byAxis = new EnumMap<>(Axis.class);
    Map<String, Long> problems = new LinkedHashMap<>();
    long unconfirmed = 0;
    for (RowCount c : counts) {
      byAxis.computeIfAbsent(c.axis(), a -> new EnumMap<>(ItemState.class)).merge(c.state(), c.rows(), Long::sum);
      if (c.state() == ItemState.REJECTED || c.state() == ItemState.EXCLUDED) {
        problems.merge(c.axis() + " " + c.state() + " " + c.reason(), c.rows(), Long::sum);
      }
      unconfirmed += c.state().isTerminal() ? 0 : c.rows();
    }
    boolean ended = record.map(BroadcastRecord::ended).orElse(false);
    String phase = !ended ? "LIVE" : unconfirmed == 0 ? "COMPLETE" : "ENDED";

    Html h = new Html(request.basePath());
    h.raw("<h1>Broadcast <span id=\"broadcast\">").t(id).raw("</span></h1><p>Phase <strong id=\"phase\">").t(phase)
        .raw("</strong>, ").t(unconfirmed).raw(" unconfirmed. <a href=\"")
        .raw(h.href("/reconcile", Map.of("id", id))).raw("\">Reconcile with the bucket</a></p>");
    h.raw("<h2>Rows per axis and state</h2><table id=\"counts\"><thead><tr><th>axis</th>");
    for (ItemState s : ItemState.values()) {
      h.raw("<th>").t(s).raw("</th>");
    }
    h.raw("</tr></thead><tbody>");
    for (Axis axis : Axis.values()) {
      h.raw("<tr>").td(axis);
      for (ItemState s : ItemState.values()) {
        h.td(byAxis.getOrDefault(axis, Map.of()).getOrDefault(s, 0L));
      }
      h.raw("</tr>");
    }
    h.raw("</tbody></table>");
    if (!problems.isEmpty()) {
      h.raw("<h3>Rejected and excluded, per reason</h3><ul>");
      problems.forEach((what, n) -> h.raw("<li>").t(what + ": " + n).raw("</li>"));
      h.raw("</ul>");
    }
    playlists(h, id);
    h.raw("<h2>Rows</h2>");
    Page<LedgerItem> page = pages.store.findRows(RowQuery.builder().broadcastId(id)
        .order(RowQuery.Order.OLDEST_FIRST).limit(limit).after(after).build());
    table(h, page.items(), now, false);
    if (page.hasNext()) {
      h.raw("<p><a id=\"next\" rel=\"next\" href=\"")
          .raw(h.href("/broadcast", Map.of("id", id, "limit", limit, "after", page.next().getAsLong())))
          .raw("\">Next page</a></p>");
    }
    return pages.render(request, 200, "Broadcast " + id, h);
  }

  private void playlists(Html h, String id) {
    List<PlaylistRecord> records = pages.store.playlists().find(id);
    h.raw("<h2>Published playlists</h2>");
    if (records.isEmpty()) {
      h.raw("<p>None: the broadcast has no playback axis, or nothing was published yet.</p>");
    } else {
      h.raw("<table id=\"playlists\"><thead><tr><th>playlist</th><th>key</th><th>published / wanted</th>"
          + "<th>entries</th><th>final</th><th>attempts</th><th>last error</th></tr></thead><tbody>");
      for (PlaylistRecord r : records) {
        String key = r.multivariant() ? ObjectKeys.multivariantPlaylistKey(id) : ObjectKeys.mediaPlaylistKey(id,
            r.rendition());
        h.raw("<tr>").td(r.multivariant() ? "multivariant" : r.rendition()).td(key)
            .td(r.published() + " / " + r.wanted()).td(r.publishedEntries()).td(r.publishedFinal() ? "yes" : "no")
            .td(r.attempts()).td(Printable.truncate(r.lastError(), Pages.LAST_ERROR_IN_LISTS)).raw("</tr>");
      }
      h.raw("</tbody></table>");
    }
    boolean master = records.stream().anyMatch(r -> r.multivariant() && r.published() > 0);
    if (!pages.player) {
      h.raw("<p>No player: the host has no media source configured.</p>");
    } else if (!master) {
      h.raw("<p>No player yet: the multivariant playlist has not been published.</p>");
    } else {
      h.raw("<h2>Player</h2><video id=\"player\" controls muted playsinline width=\"640\" data-src=\"")
          .raw(h.href("/media/" + ObjectKeys.multivariantPlaylistKey(id), Map.of()))
          .raw("\"></video><p id=\"player-status\">loading</p>");
      if (pages.hlsJsUrl != null) {
        h.raw("<script src=\"").t(pages.hlsJsUrl).raw("\"></script>");
      } else {
        h.raw("<script src=\"").raw(h.href("/assets/hls.min.js", Map.of())).raw("\"></script>");
      }
      h.raw("<script src=\"").raw(h.href("/assets/player.js", Map.of())).raw("\"></script>");
    }
  }

  private void table(Html h, List<LedgerItem> rows, Instant now, boolean withBroadcast) {
    if (rows.isEmpty()) {
      h.raw("<p id=\"no-rows\">No rows match.</p>");
      return;
    }
    h.raw("<table id=\"rows\"><thead><tr><th>row</th>").raw(withBroadcast ? "<th>broadcast</th>" : "")
        .raw("<th>axis</th><th>rendition</th><th>sequence</th><th>state</th><th>reason</th><th>attempts</th>"
            + "<th>registered</th><th>next attempt</th><th>last error</th><th></th></tr></thead><tbody>");
    for (LedgerItem row : rows) {
      h.raw("<tr data-row=\"").t(row.rowId()).raw("\">").td(row.rowId());
      if (withBroadcast) {
        h.raw("<td><a href=\"").raw(h.href("/broadcast", Map.of("id", row.id().broadcastId()))).raw("\">")
            .t(row.id().broadcastId()).raw("</a></td>");
      }
      h.td(row.id().axis()).td(row.id().rendition()).td(row.id().sequence()).td(row.state()).td(row.reason())
          .td(row.attempts()).td(Html.age(row.registeredAt(), now))
          .td(row.state().isTerminal() ? null : Html.age(row.nextAttemptAt(), now))
          .raw("<td class=\"error\">").t(Printable.truncate(row.lastError(), Pages.LAST_ERROR_IN_LISTS)).raw("</td>");
      boolean reopenable = row.state() == ItemState.REJECTED || row.state() == ItemState.EXCLUDED;
      h.raw("<td>");
      if (pages.reopenEnabled && reopenable) {
        h.raw("<a class=\"reopen\" href=\"").raw(h.href("/reopen", Map.of("row", row.rowId()))).raw("\">Re-open</a>");
      }
      h.raw("</td></tr>");
    }
    h.raw("</tbody></table>");
  }

  private static <E extends Enum<E>> void select(Html h, String name, E[] values, E selected, String none) {
    h.raw("<label>").t(name).raw(" <select name=\"").t(name).raw("\"><option value=\"\">").t(none).raw("</option>");
    for (E value : values) {
      h.raw("<option").raw(value == selected ? " selected" : "").raw(">").t(value).raw("</option>");
    }
    h.raw("</select></label>");
  }
}
