package dev.segmentledger.core.spi;

import java.time.Instant;
import java.util.Objects;

/**
 * The stored lifecycle of a broadcast. A broadcast is created by its first registration and
 * is live until {@link StateStore#endBroadcast ended}.
 *
 * @param broadcastId the broadcast
 * @param createdAt when its first row was registered
 * @param endedAt when it was ended; {@code null} while live
 */
public record BroadcastRecord(String broadcastId, Instant createdAt, Instant endedAt) {
  public BroadcastRecord {
    Objects.requireNonNull(broadcastId, "broadcastId");
    Objects.requireNonNull(createdAt, "createdAt");
  }

  /** Whether the broadcast accepts no new registrations. */
  public boolean ended() {
    return endedAt != null;
  }
}
