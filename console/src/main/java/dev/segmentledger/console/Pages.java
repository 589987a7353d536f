package dev.segmentledger.console;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.query.Backlog;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.StateStore;
import java.net.URI;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;

/**
 * The console's pages: routing, the layout every page shares, the overview and the problem page.
 * The rows, broadcast, reconcile and re-open pages are in {@link RowPages} and {@link ActionPages}.
 * Stateless between requests; thread-safe.
 */
final class Pages {
  /** The most rows one page lists. */
  static final int MAX_PAGE = 500;
  /** The most checks of one reconcile step from the console. */
  static final int MAX_RECONCILE_CHECKS = 10_000;
  /** The characters of a row's last error a list shows. */
  static final int LAST_ERROR_IN_LISTS = 200;

  final StateStore store;
  final ObjectSink sink;
  final Clock clock;
  final boolean reopenEnabled;
  final boolean player;
  /** The hls.js the player page loads from elsewhere; {@code null}: served by the console, or none. */
  final String hlsJsUrl;
  private final String scriptOrigin;
  private final RowPages rows;
  private final ActionPages actions;
  private final UplinkPages uplink;

  Pages(StateStore store, ObjectSink sink, Clock clock, boolean reopenEnabled, boolean player, String hlsJsUrl) {
    this.store = store;
    this.sink = sink;
    this.clock = clock;
    this.reopenEnabled = reopenEnabled;
    this.player = player;
    this.hlsJsUrl = hlsJsUrl;
    if (hlsJsUrl == null) {
      this.scriptOrigin = null;
    } else {
      URI uri = URI.create(hlsJsUrl);
      this.scriptOrigin = uri.getScheme() + "://" + uri.getRawAuthority();
    }
    this.rows = new RowPages(this);
    this.actions = new ActionPages(this);
    this.uplink = new UplinkPages(this);
  }

  ConsoleResponse page(ConsoleRequest request) {
    String path = request.path();
    boolean post = request.method().equals("POST");
    if (!post && !request.method().equals("GET") && !request.method().equals("HEAD")) {
      return problem(request, 405, "Method not allowed", request.method() + " is not served: GET pages, POST forms");
    }
    switch (path) {
      case "/", "" -> {
        return post ? notAllowed(request) : overview(request);
      }
      case "/rows" -> {
        return post ? notAllowed(request) : rows.rows(request);
      }
      case "/broadcast" -> {
        return post ? notAllowed(request) : rows.broadcast(request);
      }
      case "/reconcile" -> {
        return post ? actions.reconcileStep(request) : actions.reconcileForm(request);
      }
      case "/reopen" -> {
        return post ? actions.reopen(request) : actions.confirmReopen(request);
      }
      case "/uplink" -> {
        return post ? uplink.change(request) : uplink.show(request);
      }
      default -> {
        return problem(request, 404, "No such page", "the console has no page " + path);
      }
    }
  }

  private ConsoleResponse notAllowed(ConsoleRequest request) {
    return problem(request, 405, "Method not allowed", request.path() + " is a page: use GET");
  }

  private ConsoleResponse overview(ConsoleRequest request) {
    Instant now = clock.instant();
    Backlog backlog = store.backlog(now);
    Html h = new Html(request.basePath());
    h.raw("<h1>Backlog</h1><p>Rows not yet confirmed, across every broadcast and node, at ").t(now)
        .raw(". The oldest row's age is what to watch.</p>");
    h.raw("<table id=\"backlog\"><thead><tr><th>axis</th><th>unconfirmed</th><th>oldest</th><th>due</th>"
        + "<th>leased</th><th>in backoff</th><th>waiting for init</th><th>bytes to upload</th></tr></thead><tbody>");
    for (Axis axis : Axis.values()) {
      Backlog.AxisBacklog a = backlog.axis(axis);
      h.raw("<tr>").td(axis).td(a.unconfirmed()).td(a.oldestRegisteredAt() == null ? null
          : Html.span(a.oldestAge(now)) + " (" + a.oldestRegisteredAt() + ")").td(a.due()).td(a.leased())
          .td(a.inBackoff()).td(a.waitingForInit()).td(a.unconfirmedBytes() < 0 ? null : a.unconfirmedBytes())
          .raw("</tr>");
    }
    h.raw("</tbody></table>");
    h.raw("<p>Playlists awaiting publication: ").t(store.playlists().countAwaitingPublication()).raw("</p>");
    h.raw("<ul><li><a href=\"").raw(h.href("/rows", Map.of())).raw("\">Stuck and rejected rows</a></li>")
        .raw("<li><a href=\"").raw(h.href("/rows", Map.of("state", "PENDING", "minAttempts", "3")))
        .raw("\">Pending rows with 3 or more attempts</a></li>")
        .raw("<li><a href=\"").raw(h.href("/rows", Map.of("state", "REJECTED")))
        .raw("\">Rejected rows</a></li></ul>");
    return render(request, 200, "Backlog", h);
  }

  /** A page that says what went wrong. */
  ConsoleResponse problem(ConsoleRequest request, int status, String title, String message) {
    Html h = new Html(request.basePath());
    h.raw("<h1>").t(title).raw("</h1><p class=\"problem\" id=\"problem\">").t(message).raw("</p>");
    return render(request, status, title, h);
  }

  /** The hidden fields of the host every form carries back. */
  static String hiddenFields(ConsoleRequest request) {
    StringBuilder s = new StringBuilder();
    request.formFields().forEach((name, value) -> s.append("<input type=\"hidden\" name=\"").append(Html.text(name))
        .append("\" value=\"").append(Html.text(value)).append("\">"));
    return s.toString();
  }

  /** The whole document: head, navigation, then {@code body}. */
  ConsoleResponse render(ConsoleRequest request, int status, String title, Html body) {
    Html h = new Html(request.basePath());
    h.raw("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
        + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>")
        .t(title + " - Segment Ledger").raw("</title><link rel=\"stylesheet\" href=\"")
        .raw(h.href("/assets/console.css", Map.of())).raw("\"></head><body><header><nav>")
        .raw("<a class=\"brand\" href=\"").raw(h.href("/", Map.of())).raw("\">Segment Ledger</a>")
        .raw("<a href=\"").raw(h.href("/", Map.of())).raw("\">Backlog</a>")
        .raw("<a href=\"").raw(h.href("/rows", Map.of())).raw("\">Stuck rows</a>")
        .raw("<a href=\"").raw(h.href("/uplink", Map.of())).raw("\">Uplink caps</a>")
        .raw("<form method=\"get\" action=\"").raw(h.href("/broadcast", Map.of()))
        .raw("\"><input name=\"id\" placeholder=\"broadcast id\" aria-label=\"broadcast id\" required>"
            + "<button type=\"submit\">Open</button></form>")
        .raw("<span class=\"who\">").t(request.user()).raw(reopenEnabled ? " &middot; re-open enabled" : "")
        .raw("</span></nav></header><main>").raw(body.toString()).raw("</main></body></html>");
    return ConsoleResponse.html(status, h.toString(), scriptOrigin);
  }
}
