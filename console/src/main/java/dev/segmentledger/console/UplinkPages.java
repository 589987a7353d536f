package dev.segmentledger.console;

import dev.segmentledger.core.LedgerBuilder;
import dev.segmentledger.core.spi.StoredUplinkCap;
import java.util.List;
import java.util.Map;

/**
 * The uplink page: the bandwidth caps stored for running nodes ({@link StoredUplinkCap}; every node
 * follows its own, else the one for every node, within about a second), and, where the console may
 * change the ledger ({@code reopenEnabled}), a form that stores one and a button per cap that
 * removes it. Changes only on POST. Stateless; thread-safe.
 */
final class UplinkPages {
  private static final List<String> UNITS = List.of("B", "KiB", "MiB", "GiB");
  private final Pages pages;

  UplinkPages(Pages pages) {
    this.pages = pages;
  }

  ConsoleResponse show(ConsoleRequest request) {
    return page(request, 200, null);
  }

  ConsoleResponse change(ConsoleRequest request) {
    if (!pages.reopenEnabled) {
      return pages.problem(request, 403, "Changes are disabled", "this console does not change the ledger: its host"
          + " enables it (segment-ledger.console.reopen-enabled=true, or the console command's --reopen-enabled)");
    }
    Params p = new Params(request);
    String given = p.text("node");
    String node = given == null ? "" : given.trim();
    if (node.isEmpty() || node.length() > LedgerBuilder.MAX_NODE_ID_LENGTH) {
      throw new BadInput("node is required: a node id of 1 to " + LedgerBuilder.MAX_NODE_ID_LENGTH
          + " characters, or * for every node");
    }
    if ("clear".equals(p.text("action"))) {
      String cleared = node;
      boolean removed = store(() -> pages.store.removeUplinkCap(cleared));
      return page(request, 200, removed ? "Removed the cap of " + describe(node) + "."
          : "No cap was stored for " + describe(node) + ".");
    }
    long amount = p.number("bytes", 0, Long.MAX_VALUE >> 30, 0);
    String unit = p.text("unit") == null ? "B" : p.text("unit");
    int shift = UNITS.indexOf(unit) * 10;
    if (shift < 0) {
      throw new BadInput("unit must be one of " + UNITS + ", got \"" + unit + "\"");
    }
    long requests = p.number("requests", 0, Long.MAX_VALUE, 0);
    StoredUplinkCap cap = new StoredUplinkCap(node, amount << shift, requests, pages.clock.instant());
    store(() -> {
      pages.store.putUplinkCap(cap);
      return true;
    });
    return page(request, 200, "Stored for " + describe(node) + ": " + rate(cap.bytesPerSecond()) + ", "
        + (requests == 0 ? "no request cap" : requests + " requests a second")
        + ". Running nodes follow within about a second.");
  }

  private interface Change {
    boolean run();
  }

  private static boolean store(Change change) {
    try {
      return change.run();
    } catch (UnsupportedOperationException e) {
      throw new BadInput("this ledger's store keeps no uplink caps: " + e.getMessage());
    }
  }

  private ConsoleResponse page(ConsoleRequest request, int status, String done) {
    List<StoredUplinkCap> caps;
    try {
      caps = pages.store.uplinkCaps();
    } catch (UnsupportedOperationException e) {
      return pages.problem(request, 501, "No stored caps", "this ledger's store keeps no uplink caps: each node"
          + " follows the cap it was configured with");
    }
    Html h = new Html(request.basePath());
    h.raw("<h1>Uplink caps</h1><p>Bandwidth caps stored for running nodes. Every node reads them each second:"
        + " its own cap, else the one for every node (<code>*</code>), is in force over the cap it was configured"
        + " with; removed, the next applies again.</p>");
    if (done != null) {
      h.raw("<p id=\"done\">").t(done).raw("</p>");
    }
    if (caps.isEmpty()) {
      h.raw("<p id=\"caps\">No cap is stored: every node follows its configured cap.</p>");
    } else {
      h.raw("<table id=\"caps\"><thead><tr><th>node</th><th>bytes a second</th><th>requests a second</th>"
          + "<th>set at</th>").raw(pages.reopenEnabled ? "<th></th>" : "").raw("</tr></thead><tbody>");
      for (StoredUplinkCap cap : caps) {
        h.raw("<tr>").td(cap.node()).td(rate(cap.bytesPerSecond()))
            .td(cap.requestsPerSecond() == 0 ? "none" : cap.requestsPerSecond()).td(cap.setAt());
        if (pages.reopenEnabled) {
          h.raw("<td>").raw(form(request, h)).raw("<input type=\"hidden\" name=\"action\" value=\"clear\">")
              .raw("<input type=\"hidden\" name=\"node\" value=\"").t(cap.node())
              .raw("\"><button type=\"submit\">Remove</button></form></td>");
        }
        h.raw("</tr>");
      }
      h.raw("</tbody></table>");
    }
    if (pages.reopenEnabled) {
      h.raw("<h2>Store a cap</h2>").raw(form(request, h))
          .raw("<input type=\"hidden\" name=\"action\" value=\"set\">")
          .raw("<label>node <input name=\"node\" required placeholder=\"node id, or * for every node\"></label> ")
          .raw("<label>bytes a second <input name=\"bytes\" type=\"number\" min=\"0\" value=\"0\"></label>")
          .raw("<select name=\"unit\" aria-label=\"unit\">");
      UNITS.forEach(unit -> h.raw("<option").raw(unit.equals("MiB") ? " selected" : "").raw(">").t(unit)
          .raw("</option>"));
      h.raw("</select> <label>requests a second <input name=\"requests\" type=\"number\" min=\"0\" value=\"0\">"
          + "</label> <button type=\"submit\" id=\"store\">Store</button> (0: no cap)</form>");
    }
    return pages.render(request, status, "Uplink caps", h);
  }

  private static String form(ConsoleRequest request, Html h) {
    return "<form method=\"post\" action=\"" + h.href("/uplink", Map.of()) + "\">" + Pages.hiddenFields(request);
  }

  private static String describe(String node) {
    return StoredUplinkCap.EVERY_NODE.equals(node) ? "every node" : "node " + node;
  }

  /** {@code bytes} a second as {@code 20 MiB/s}, in the largest unit that divides it; {@code none} for 0. */
  static String rate(long bytes) {
    if (bytes == 0) {
      return "none";
    }
    int unit = 0;
    long value = bytes;
    while (unit < UNITS.size() - 1 && value % 1024 == 0) {
      value /= 1024;
      unit++;
    }
    return value + " " + UNITS.get(unit) + "/s";
  }
}
