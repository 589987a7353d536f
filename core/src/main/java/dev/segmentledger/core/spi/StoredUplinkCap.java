package dev.segmentledger.core.spi;

import dev.segmentledger.core.LedgerBuilder;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A bandwidth cap an operator stored in the ledger for one node or for every node: the way to turn
 * the cap of running nodes from outside their processes (the command line, the console). Every node
 * reads the stored caps about once a second; one stored for the node's own {@link
 * LedgerBuilder#nodeId id} takes precedence over one stored for {@link #EVERY_NODE}, and either
 * takes precedence over the cap the node was built or last set with ({@link
 * dev.segmentledger.core.Ledger#uplink(dev.segmentledger.core.Uplink)}) until it is removed.
 * Immutable.
 *
 * @param node the node id it applies to, or {@link #EVERY_NODE}; 1 to {@value LedgerBuilder#MAX_NODE_ID_LENGTH}
 *     characters, not blank
 * @param bytesPerSecond the cap on request body bytes a second; 0: no cap
 * @param requestsPerSecond the cap on request bodies started a second; 0: no cap
 * @param setAt when it was stored
 */
public record StoredUplinkCap(String node, long bytesPerSecond, long requestsPerSecond, Instant setAt) {

  /** The {@link #node} of a cap stored for every node that has none of its own: {@value}. */
  public static final String EVERY_NODE = "*";

  /** @throws IllegalArgumentException if the node is blank or too long, or a cap is negative */
  public StoredUplinkCap {
    Objects.requireNonNull(node, "node");
    Objects.requireNonNull(setAt, "setAt");
    if (node.isBlank() || node.length() > LedgerBuilder.MAX_NODE_ID_LENGTH) {
      throw new IllegalArgumentException("a cap's node must be 1.." + LedgerBuilder.MAX_NODE_ID_LENGTH
          + " characters and not blank");
    }
    if (bytesPerSecond < 0 || requestsPerSecond < 0) {
      throw new IllegalArgumentException("a cap must not be negative, got " + bytesPerSecond + " bytes and "
          + requestsPerSecond + " requests a second");
    }
  }

  /** Whether it applies to every node without a cap of its own. */
  public boolean everyNode() {
    return EVERY_NODE.equals(node);
  }

  /**
   * The cap that applies to node {@code nodeId} among {@code stored}: its own, else the one for
   * every node, else none.
   */
  public static Optional<StoredUplinkCap> applyingTo(String nodeId, List<StoredUplinkCap> stored) {
    Objects.requireNonNull(nodeId, "nodeId");
    StoredUplinkCap everyNode = null;
    for (StoredUplinkCap cap : stored) {
      if (cap.node().equals(nodeId)) {
        return Optional.of(cap);
      }
      if (cap.everyNode()) {
        everyNode = cap;
      }
    }
    return Optional.ofNullable(everyNode);
  }
}
