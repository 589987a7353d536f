package dev.segmentledger.testkit;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ObjectKeys;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The inverse of {@link ObjectKeys#keyOf(ItemId)}: recognises a key of the documented contract
 * and returns its identity. A key is recognised only if {@code keyOf} of the result gives back the
 * very same key, so anything not produced by the contract (stray files, other zero-padding) is
 * reported as unrecognised rather than guessed at.
 */
final class ObjectKeyParser {
  private static final Pattern KEY = Pattern.compile(
      "([^/]+)/([^/]+)/(?:(original)/(\\d{10,19})\\.ts|(playback)/(\\d{10,19})\\.m4s|(init)\\.mp4)");

  private ObjectKeyParser() {}

  static Optional<ItemId> parse(String key) {
    Matcher m = KEY.matcher(key);
    if (!m.matches()) {
      return Optional.empty();
    }
    try {
      ItemId id;
      if (m.group(3) != null) {
        id = ItemId.original(m.group(1), m.group(2), Long.parseLong(m.group(4)));
      } else if (m.group(5) != null) {
        id = ItemId.playback(m.group(1), m.group(2), Long.parseLong(m.group(6)));
      } else {
        id = new ItemId(m.group(1), Axis.INIT, m.group(2), 0);
      }
      return id.objectKey().equals(key) ? Optional.of(id) : Optional.empty();
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
