package dev.segmentledger.core;

/**
 * The object key contract: a pure function from {@link ItemId} to the key an item is stored
 * under. Every attempt for an item, first or retry, on any node, targets this key, so that a
 * duplicate PUT overwrites identical bytes.
 *
 * <pre>
 *   ORIGINAL  {broadcast}/{rendition}/original/{sequence:10 digits}.ts
 *   PLAYBACK  {broadcast}/{rendition}/playback/{sequence:10 digits}.m4s
 *   INIT      {broadcast}/{rendition}/init.mp4
 * </pre>
 *
 * <p>For example {@code ItemId.original("b42", "720p", 7)} is stored at
 * {@code b42/720p/original/0000000007.ts}. Identifiers are validated so that a key can never leave
 * {@link #broadcastPrefix(String)}. A sink may place all keys under a fixed prefix of its own (a
 * bucket folder); that prefix is not part of this contract. The contract is stable: changing it
 * would orphan every object already stored.
 */
public final class ObjectKeys {
  private ObjectKeys() {}

  /** The key of {@code id}. */
  public static String keyOf(ItemId id) {
    String base = id.broadcastId() + "/" + id.rendition() + "/";
    return switch (id.axis()) {
      case ORIGINAL -> base + "original/" + sequence(id.sequence()) + ".ts";
      case PLAYBACK -> base + "playback/" + sequence(id.sequence()) + ".m4s";
      case INIT -> base + "init.mp4";
    };
  }

  /** The prefix under which every key of the broadcast lies, ending with {@code /}. */
  public static String broadcastPrefix(String broadcastId) {
    return Identifiers.requireValid("broadcastId", broadcastId) + "/";
  }

  private static String sequence(long sequence) {
    return String.format("%010d", sequence);
  }
}
