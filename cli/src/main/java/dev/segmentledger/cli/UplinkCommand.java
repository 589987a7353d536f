package dev.segmentledger.cli;

import dev.segmentledger.core.LedgerBuilder;
import dev.segmentledger.core.Uplink;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.core.spi.StoredUplinkCap;
import dev.segmentledger.jdbi.JdbiStateStore;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code uplink}: the bandwidth caps stored in the ledger for one node or for every node, which
 * running nodes follow within about a second over their configured cap ({@link StoredUplinkCap}).
 * Without options it lists them; with {@code --node} or {@code --every-node} and a cap it stores
 * one (an option not given keeps that node's stored value, none if nothing was stored); with
 * {@code --clear} it removes one, exiting {@value SegmentLedgerCli#EXIT_DIFFERENCES} if there was
 * none.
 */
@Command(name = "uplink", description = "The bandwidth caps stored for running nodes: lists them; with --node or "
    + "--every-node and --bytes-per-second/--requests-per-second stores one (nodes follow within about a second, "
    + "over their configured cap; a node's own cap over the one for every node); with --clear removes one.")
final class UplinkCommand extends LedgerCommand {
  @ArgGroup(exclusive = true)
  Target target;

  /** The node a cap is stored for: one. */
  static final class Target {
    @Option(names = "--node", paramLabel = "NODE", required = true,
        description = "The node id (LedgerBuilder.nodeId) the cap is for.")
    String node;

    @Option(names = "--every-node", required = true, description = "The cap for every node without one of its own.")
    boolean everyNode;

    String node() {
      return everyNode ? StoredUplinkCap.EVERY_NODE : node;
    }
  }

  @Option(names = "--bytes-per-second", paramLabel = "SIZE",
      description = "Request body bytes a second: a number of bytes, or with KiB, MiB or GiB (20MiB, 1.5MiB); "
          + "0 or off: no cap.")
  String bytesPerSecond;

  @Option(names = "--requests-per-second", paramLabel = "N",
      description = "Request bodies (PUTs and parts) started a second; 0: no cap.")
  Long requestsPerSecond;

  @Option(names = "--clear", description = "Remove the cap stored for the node (or for every node).")
  boolean clear;

  @Override
  public Integer call() {
    boolean setting = bytesPerSecond != null || requestsPerSecond != null;
    if (target == null && (setting || clear)) {
      throw new IllegalArgumentException("name the node the cap is for: --node NODE or --every-node");
    }
    if (target != null && setting == clear) {
      throw new IllegalArgumentException(clear ? "--clear takes no cap"
          : "give --bytes-per-second and/or --requests-per-second, or --clear");
    }
    if (target != null && !target.everyNode
        && (target.node.isBlank() || target.node.length() > LedgerBuilder.MAX_NODE_ID_LENGTH)) {
      throw new IllegalArgumentException("--node must be 1.." + LedgerBuilder.MAX_NODE_ID_LENGTH
          + " characters and not blank");
    }
    long bytes = bytesPerSecond == null ? -1 : bytesPerSecond(bytesPerSecond);
    if (requestsPerSecond != null && requestsPerSecond < 0) {
      throw new IllegalArgumentException("--requests-per-second must not be negative, got " + requestsPerSecond);
    }
    StateStore store = JdbiStateStore.create(database.connect());
    try {
      if (target == null) {
        return list(store.uplinkCaps());
      }
      if (clear) {
        boolean removed = store.removeUplinkCap(target.node());
        report(removed ? "removed the uplink cap of " + describe(target.node()) + "; it follows "
            + (target.everyNode ? "its configured cap" : "the cap for every node, or its configured cap")
            + " within about a second" : "no uplink cap was stored for " + describe(target.node()), removed, null);
        return removed ? SegmentLedgerCli.EXIT_OK : SegmentLedgerCli.EXIT_DIFFERENCES;
      }
      Optional<StoredUplinkCap> before = store.uplinkCaps().stream()
          .filter(cap -> cap.node().equals(target.node())).findFirst();
      StoredUplinkCap cap = new StoredUplinkCap(target.node(),
          bytes >= 0 ? bytes : before.map(StoredUplinkCap::bytesPerSecond).orElse(0L),
          requestsPerSecond != null ? requestsPerSecond : before.map(StoredUplinkCap::requestsPerSecond).orElse(0L),
          now());
      store.putUplinkCap(cap);
      report("stored for " + describe(cap.node()) + ": " + rate(cap.bytesPerSecond()) + ", "
          + requests(cap.requestsPerSecond()) + "; running nodes follow within about a second", true, cap);
      return SegmentLedgerCli.EXIT_OK;
    } catch (UnsupportedOperationException e) {
      throw new CliFailure("this ledger's store keeps no uplink caps: " + e.getMessage());
    }
  }

  private int list(List<StoredUplinkCap> caps) {
    if (json) {
      List<Map<String, Object>> docs = new ArrayList<>();
      caps.forEach(cap -> docs.add(doc(cap)));
      out().println(Json.write(Map.of("caps", docs)));
      return SegmentLedgerCli.EXIT_OK;
    }
    if (caps.isEmpty()) {
      out().println("no uplink cap is stored: every node follows its configured cap");
      return SegmentLedgerCli.EXIT_OK;
    }
    Table table = new Table("node", "bytes a second", "requests a second", "set at");
    caps.forEach(cap -> table.row(cap.node(), rate(cap.bytesPerSecond()),
        cap.requestsPerSecond() == 0 ? "none" : cap.requestsPerSecond(), cap.setAt()));
    table.print(out());
    return SegmentLedgerCli.EXIT_OK;
  }

  private void report(String line, boolean changed, StoredUplinkCap cap) {
    if (json) {
      Map<String, Object> doc = cap == null ? new LinkedHashMap<>(Map.of("node", target.node())) : doc(cap);
      doc.put(clear ? "removed" : "stored", changed);
      out().println(Json.write(doc));
    } else {
      out().println(line);
    }
  }

  private static Map<String, Object> doc(StoredUplinkCap cap) {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("node", cap.node());
    doc.put("bytesPerSecond", cap.bytesPerSecond());
    doc.put("requestsPerSecond", cap.requestsPerSecond());
    doc.put("setAt", cap.setAt().toString());
    return doc;
  }

  private static String describe(String node) {
    return StoredUplinkCap.EVERY_NODE.equals(node) ? "every node" : "node " + node;
  }

  private static String requests(long perSecond) {
    return perSecond == 0 ? "no request cap" : perSecond + " requests a second";
  }

  /** {@code bytes} a second as an operator reads it: {@code 20 MiB/s}, or {@code none}. */
  static String rate(long bytes) {
    if (bytes == 0) {
      return "none";
    }
    String[] units = {"B", "KiB", "MiB", "GiB"};
    int unit = 0;
    BigDecimal value = BigDecimal.valueOf(bytes);
    while (unit < units.length - 1 && value.compareTo(BigDecimal.valueOf(1024)) >= 0) {
      value = value.divide(BigDecimal.valueOf(1024));
      unit++;
    }
    return value.setScale(Math.min(2, Math.max(0, value.stripTrailingZeros().scale())), java.math.RoundingMode.HALF_UP)
        .toPlainString() + " " + units[unit] + "/s";
  }

  /**
   * A size a second as an operator writes it ({@link Uplink#parseBytesPerSecond}).
   *
   * @throws IllegalArgumentException naming the option and why the size was refused
   */
  static long bytesPerSecond(String text) {
    try {
      return Uplink.parseBytesPerSecond(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--bytes-per-second is " + e.getMessage(), e);
    }
  }
}
