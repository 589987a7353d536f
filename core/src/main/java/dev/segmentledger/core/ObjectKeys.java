package dev.segmentledger.core;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The object key contract: a pure function from {@link ItemId} to the key an item is stored
 * under. Every attempt for an item, first or retry, on any node, targets this key, so that a
 * duplicate PUT overwrites identical bytes.
 *
 * <pre>
 *   ORIGINAL  {broadcast}/{rendition}/original/{sequence:10 digits}.{ts|m4s|mp4}
 *   PLAYBACK  {broadcast}/{rendition}/playback/{sequence:10 digits}.m4s
 *   INIT      {broadcast}/{rendition}/init.mp4
 * </pre>
 *
 * <p>The extension of an original is its {@linkplain ItemId#format() format}'s
 * ({@link MediaFormat#extension()}): {@code .ts} for MPEG-TS (the default), {@code .m4s} for an
 * fMP4/CMAF segment, {@code .mp4} for an MP4 file. The other axes have one format each.
 *
 * <p>Playlists, published by the ledger when it repackages (see docs/design.md, "Playlists"), lie
 * beside the items but are not items: {@link #idOf} recognises none of them.
 *
 * <pre>
 *   media playlist of a rendition   {broadcast}/{rendition}/media.m3u8
 *   live window of a rendition      {broadcast}/{rendition}/live.m3u8
 *   multivariant playlist           {broadcast}/master.m3u8
 *   live multivariant playlist      {broadcast}/live.m3u8
 * </pre>
 *
 * <p>For example {@code ItemId.original("b42", "720p", 7)} is stored at
 * {@code b42/720p/original/0000000007.ts}. Identifiers are validated so that a key can never leave
 * {@link #broadcastPrefix(String)}. A sink may place all keys under a fixed prefix of its own (a
 * bucket folder); that prefix is not part of this contract. The contract is stable: changing it
 * would orphan every object already stored.
 */
public final class ObjectKeys {
  private static final Pattern KEY = Pattern.compile(
      "([^/]+)/([^/]+)/(?:(original)/(\\d{10,19})\\.(ts|m4s|mp4)|(playback)/(\\d{10,19})\\.m4s|(init)\\.mp4)");

  private ObjectKeys() {}

  /** The key of {@code id} ({@link ItemId#objectKey()}). */
  public static String keyOf(ItemId id) {
    return id.objectKey();
  }

  /** The file name of a media playlist, in its rendition's folder. */
  public static final String MEDIA_PLAYLIST_NAME = "media.m3u8";
  /** The file name of the multivariant playlist, in its broadcast's folder. */
  public static final String MULTIVARIANT_PLAYLIST_NAME = "master.m3u8";
  /**
   * The file name of a live playlist: a rendition's live window in its rendition's folder, and the
   * live multivariant playlist (listing those windows) in its broadcast's folder.
   */
  public static final String LIVE_PLAYLIST_NAME = "live.m3u8";

  /**
   * The key of the HLS media playlist of one rendition: {@code {broadcast}/{rendition}/media.m3u8}.
   * Its segment URIs are relative to that folder. A pure function, like {@link #keyOf}.
   *
   * @throws IllegalArgumentException if either identifier is invalid
   */
  public static String mediaPlaylistKey(String broadcastId, String rendition) {
    return broadcastPrefix(broadcastId) + Identifiers.requireValid("rendition", rendition) + "/"
        + MEDIA_PLAYLIST_NAME;
  }

  /**
   * The key of the live window of one rendition: {@code {broadcast}/{rendition}/live.m3u8}, the
   * last few entries of its media playlist (a live HLS playlist without a playlist type, whose
   * media sequence number advances as entries leave its front). Its URIs are relative to the same
   * folder as the media playlist's. A pure function.
   *
   * @throws IllegalArgumentException if either identifier is invalid
   */
  public static String liveMediaPlaylistKey(String broadcastId, String rendition) {
    return broadcastPrefix(broadcastId) + Identifiers.requireValid("rendition", rendition) + "/"
        + LIVE_PLAYLIST_NAME;
  }

  /**
   * The key of the live multivariant playlist of a broadcast: {@code {broadcast}/live.m3u8}. It
   * lists each rendition's live window by the relative URI {@code {rendition}/live.m3u8}.
   *
   * @throws IllegalArgumentException if the identifier is invalid
   */
  public static String liveMultivariantPlaylistKey(String broadcastId) {
    return broadcastPrefix(broadcastId) + LIVE_PLAYLIST_NAME;
  }

  /**
   * The key of the HLS multivariant playlist of a broadcast: {@code {broadcast}/master.m3u8}. It
   * lists each rendition's media playlist by the relative URI {@code {rendition}/media.m3u8}.
   *
   * @throws IllegalArgumentException if the identifier is invalid
   */
  public static String multivariantPlaylistKey(String broadcastId) {
    return broadcastPrefix(broadcastId) + MULTIVARIANT_PLAYLIST_NAME;
  }

  /** The prefix under which every key of the broadcast lies, ending with {@code /}. */
  public static String broadcastPrefix(String broadcastId) {
    return Identifiers.requireValid("broadcastId", broadcastId) + "/";
  }

  /** {@code sequence} (never negative) as at least ten decimal digits, zero-padded: {@code %010d} without a Formatter. */

  /**
   * The inverse of {@link #keyOf}: the identity whose key is {@code key}, or empty if {@code key}
   * is not a key of this contract. A key is recognised only if {@code keyOf} of the result gives
   * back the very same key, so stray objects and other zero-paddings are never guessed at. Lets a
   * sink's per-object settings (such as the S3 sink's request options) decide by axis or broadcast.
   */
  public static Optional<ItemId> idOf(String key) {
    Matcher m = KEY.matcher(key);
    if (!m.matches()) {
      return Optional.empty();
    }
    try {
      ItemId id;
      if (m.group(3) != null) {
        id = ItemId.original(m.group(1), m.group(2), Long.parseLong(m.group(4)), formatOf(m.group(5)));
      } else if (m.group(6) != null) {
        id = ItemId.playback(m.group(1), m.group(2), Long.parseLong(m.group(7)));
      } else {
        id = ItemId.init(m.group(1), m.group(2));
      }
      return keyOf(id).equals(key) ? Optional.of(id) : Optional.empty();
    } catch (IllegalArgumentException e) { // invalid identifier, or a sequence beyond a long
      return Optional.empty();
    }
  }

  /** The original's format of a key extension the pattern accepted. */
  private static MediaFormat formatOf(String extension) {
    for (MediaFormat format : MediaFormat.values()) {
      if (format.extension().equals(extension)) {
        return format;
      }
    }
    throw new IllegalArgumentException("no format has the extension " + extension);
  }
}
