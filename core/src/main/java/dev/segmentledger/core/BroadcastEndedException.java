package dev.segmentledger.core;

/**
 * Thrown when a file is registered for a broadcast that has ended. Nothing is written. Rows
 * registered before the end are still recovered and uploaded.
 */
public class BroadcastEndedException extends IllegalStateException {
  private final String broadcastId;

  public BroadcastEndedException(String broadcastId) {
    super("broadcast " + broadcastId + " has ended and accepts no new registrations");
    this.broadcastId = broadcastId;
  }

  /** The ended broadcast. */
  public String broadcastId() {
    return broadcastId;
  }
}
