package dev.segmentledger.core.spi;

import dev.segmentledger.core.Lane;
import java.time.Instant;
import java.util.Objects;

/**
 * The stored lifecycle of a broadcast. A broadcast is created by its first registration and
 * is live until {@link StateStore#endBroadcast ended}.
 *
 * @param broadcastId the broadcast
 * @param createdAt when its first row was registered
 * @param endedAt when it was ended; {@code null} while live
 * @param lane the lane the recorder put every row of the broadcast in
 *     ({@link dev.segmentledger.core.Ledger#prioritize}, stored by {@link StateStore#prioritize});
 *     {@code null} if none, or if the store keeps no hints
 */
public record BroadcastRecord(String broadcastId, Instant createdAt, Instant endedAt, Lane lane) {
  public BroadcastRecord {
    Objects.requireNonNull(broadcastId, "broadcastId");
    Objects.requireNonNull(createdAt, "createdAt");
  }

  /** A broadcast without a lane hint: the constructor of the components before hints were stored. */
  public BroadcastRecord(String broadcastId, Instant createdAt, Instant endedAt) {
    this(broadcastId, createdAt, endedAt, null);
  }

  /** Whether the broadcast accepts no new registrations. */
  public boolean ended() {
    return endedAt != null;
  }
}
