package dev.segmentledger.rig;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.UploadContent;
import dev.segmentledger.testkit.ForwardingObjectSink;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What the ledger's playlist publication costs and how late it is, seen from the bucket's side, so
 * that the same measurement holds for any publisher: a sink wrapper that counts the PUTs of every
 * {@code .m3u8} object (bytes and count, in total and by file name), and a listener that records
 * when each PLAYBACK row was confirmed.
 *
 * <p><b>Listing.</b> A PLAYBACK segment is <em>listed</em> by the first successful PUT of any
 * {@code .m3u8} object in its rendition's folder ({@code {broadcast}/{rendition}/}: today's
 * {@code media.m3u8}, a live window such as {@code live.m3u8}) whose text lists the segment's key
 * as a URI line not marked {@code #EXT-X-GAP}. URIs are resolved against the playlist's folder and
 * recognised with {@link ObjectKeys#idOf}. The instant is taken when the sink's PUT returned, that
 * is when a reader can see it. The publication lag of a segment is that instant minus the instant
 * {@link #onConfirmed} saw its PLAYBACK row confirmed; where a live window {@value #LIVE_PLAYLIST_NAME}
 * listed the segment, the lag is to that listing (what a live player reads).
 *
 * <p>Playlists list segments in sequence order, so each PUT's text is read backwards from its end
 * and only down to the oldest segment that playlist has not listed yet: the cost per PUT is the
 * new entries' (or a live window's), not the full playlist's length (the harness must not add a cost that grows with the
 * broadcast to the figures it measures).
 *
 * <p>Register it both as the ledger's object sink and as one of its listeners. Thread-safe.
 */
public final class PlaylistPutLog extends ForwardingObjectSink implements LedgerListener {
  private static final long UNKNOWN = Long.MIN_VALUE;
  private static final String PLAYLIST_SUFFIX = ".m3u8";
  /** The file name of a rendition's live window, preferred by {@link #lagNanos(String, String, long)}. */
  public static final String LIVE_PLAYLIST_NAME = "live.m3u8";

  private final ObjectSink delegate;
  private final LongAdder bytes = new LongAdder();
  private final LongAdder puts = new LongAdder();
  private final Map<String, LongAdder[]> byName = new ConcurrentHashMap<>();
  private final Map<String, LongAdder> firstListedBy = new ConcurrentHashMap<>();
  private final Map<String, Rendition> renditions = new ConcurrentHashMap<>();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition published = lock.newCondition();

  private PlaylistPutLog(ObjectSink delegate) {
    this.delegate = delegate;
  }

  /** A log in front of {@code sink}: every call is forwarded to it. */
  public static PlaylistPutLog wrapping(ObjectSink sink) {
    return new PlaylistPutLog(java.util.Objects.requireNonNull(sink, "sink"));
  }

  @Override
  protected ObjectSink delegate() {
    return delegate;
  }

  @Override
  public StoredObjectInfo put(String key, UploadContent content, boolean mayExist) {
    if (!key.endsWith(PLAYLIST_SUFFIX)) {
      return super.put(key, content, mayExist);
    }
    byte[] text = read(content);
    StoredObjectInfo stored = super.put(key, content, mayExist);
    long now = System.nanoTime();
    String name = key.substring(key.lastIndexOf('/') + 1);
    bytes.add(text.length);
    puts.increment();
    LongAdder[] counts = byName.computeIfAbsent(name, n -> new LongAdder[] {new LongAdder(), new LongAdder()});
    counts[0].add(text.length);
    counts[1].increment();
    recordListings(key.substring(0, key.lastIndexOf('/') + 1), name, text, now);
    lock.lock();
    try {
      published.signalAll();
    } finally {
      lock.unlock();
    }
    return stored;
  }

  @Override
  public void onConfirmed(LedgerItem item) {
    ItemId id = item.id();
    if (id.axis() == Axis.PLAYBACK) {
      rendition(id.broadcastId(), id.rendition()).confirmed(id.sequence(), System.nanoTime());
    }
  }

  /** Bytes of every {@code .m3u8} PUT so far (retries and rewrites included). */
  public long playlistBytes() {
    return bytes.sum();
  }

  /** The number of {@code .m3u8} PUTs so far. */
  public long playlistPuts() {
    return puts.sum();
  }

  /** Per playlist file name ({@code media.m3u8}, {@code master.m3u8}, ...): {bytes, PUTs} so far. */
  public Map<String, long[]> byFileName() {
    Map<String, long[]> out = new TreeMap<>();
    byName.forEach((n, c) -> out.put(n, new long[] {c[0].sum(), c[1].sum()}));
    return out;
  }

  /** Per playlist file name, how many segments it listed first (before any other playlist did). */
  public Map<String, Long> firstListingsByFileName() {
    Map<String, Long> out = new TreeMap<>();
    firstListedBy.forEach((n, c) -> out.put(n, c.sum()));
    return out;
  }

  /** Whether a PUT playlist of the rendition has listed this PLAYBACK segment (not as a gap). */
  public boolean isListed(String broadcastId, String rendition, long sequence) {
    Rendition r = renditions.get(folder(broadcastId, rendition));
    return r != null && r.listedAt(sequence) != UNKNOWN;
  }

  /**
   * Waits until a playlist of the rendition lists the segment; woken by each playlist PUT.
   *
   * @throws AssertionError if it is not listed within {@code timeout}
   */
  public void awaitListed(String broadcastId, String rendition, long sequence, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    lock.lock();
    try {
      while (!isListed(broadcastId, rendition, sequence)) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new AssertionError("no playlist of " + folder(broadcastId, rendition) + " listed segment " + sequence
              + " within " + timeout + "; playlist PUTs so far " + byFileName().keySet() + " x " + playlistPuts());
        }
        // Bounded so that a PUT that signalled between the check and the wait is seen soon.
        published.await(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)), TimeUnit.NANOSECONDS);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * The publication lag of a segment in nanoseconds: from its PLAYBACK row's confirm to the first
   * PUT of the rendition's live window {@value #LIVE_PLAYLIST_NAME} that listed it, if one did, and
   * otherwise to the first PUT of any playlist of the rendition that listed it; empty while unknown.
   * Never negative (a listener called after the PUT returned counts as no lag). Read it once the
   * publications of the segment are done (a live window PUT just after the full playlist's in the
   * same round is preferred only once it happened).
   */
  public Optional<Long> lagNanos(String broadcastId, String rendition, long sequence) {
    Optional<Long> live = lagNanos(broadcastId, rendition, sequence, LIVE_PLAYLIST_NAME);
    return live.isPresent() ? live : lagNanos(broadcastId, rendition, sequence, null);
  }

  /**
   * As {@link #lagNanos(String, String, long)}, to the first PUT of playlist {@code fileName} of the
   * rendition that listed the segment ({@code null}: of any playlist).
   */
  public Optional<Long> lagNanos(String broadcastId, String rendition, long sequence, String fileName) {
    Rendition r = renditions.get(folder(broadcastId, rendition));
    if (r == null) {
      return Optional.empty();
    }
    long confirmed = r.confirmedAt(sequence);
    long listed = fileName == null ? r.listedAt(sequence) : r.listedAt(fileName, sequence);
    return confirmed == UNKNOWN || listed == UNKNOWN ? Optional.empty() : Optional.of(Math.max(0, listed - confirmed));
  }

  private Rendition rendition(String broadcastId, String rendition) {
    return renditions.computeIfAbsent(folder(broadcastId, rendition), f -> new Rendition());
  }

  private static String folder(String broadcastId, String rendition) {
    return broadcastId + "/" + rendition + "/";
  }

  /**
   * Reads the text backwards, down to the oldest segment this playlist has not listed yet (a live
   * window, which never lists the old segments, is short and read whole).
   */
  private void recordListings(String folder, String name, byte[] text, long now) {
    String[] parts = folder.split("/");
    if (parts.length != 2) {
      return; // the multivariant playlist ({broadcast}/master.m3u8) lists no segment
    }
    Rendition rendition = rendition(parts[0], parts[1]);
    long oldestUnlisted = rendition.oldestUnlisted(name);
    String pending = null;
    boolean pendingGap = false;
    int end = text.length;
    while (end > 0) {
      int start = end - 1;
      while (start > 0 && text[start - 1] != '\n') {
        start--;
      }
      String line = new String(text, start, end - start, StandardCharsets.UTF_8).strip();
      end = start;
      if (line.isEmpty()) {
        continue;
      }
      if (line.startsWith("#")) {
        pendingGap |= pending != null && line.equals("#EXT-X-GAP"); // tags above a URI line are its own
        continue;
      }
      if (pending != null && !listed(rendition, folder, parts, name, pending, pendingGap, now, oldestUnlisted)) {
        return;
      }
      pending = line;
      pendingGap = false;
    }
    if (pending != null) {
      listed(rendition, folder, parts, name, pending, pendingGap, now, oldestUnlisted);
    }
  }

  /** Records one entry; returns whether older entries may still be new. */
  private boolean listed(Rendition rendition, String folder, String[] parts, String name, String uri, boolean gap,
      long now, long oldestUnlisted) {
    Optional<ItemId> id;
    try {
      id = ObjectKeys.idOf(URI.create("http://bucket/" + folder).resolve(uri).getPath().substring(1));
    } catch (IllegalArgumentException e) {
      return true; // not a key of the contract
    }
    if (id.isEmpty() || id.get().axis() != Axis.PLAYBACK || !id.get().broadcastId().equals(parts[0])
        || !id.get().rendition().equals(parts[1])) {
      return true;
    }
    long sequence = id.get().sequence();
    if (!gap && rendition.listed(name, sequence, now)) {
      firstListedBy.computeIfAbsent(name, n -> new LongAdder()).increment();
    }
    return sequence > oldestUnlisted;
  }

  private static byte[] read(UploadContent content) {
    try (InputStream in = content.openStream()) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The instants of one rendition's segments, by sequence: confirmed, listed by any playlist, listed by each. */
  private static final class Rendition {
    private long[] confirmed = Listing.empty(64);
    private final Listing any = new Listing();
    private final Map<String, Listing> byName = new java.util.HashMap<>();

    synchronized void confirmed(long sequence, long at) {
      confirmed = Listing.grow(confirmed, sequence);
      if (confirmed[(int) sequence] == UNKNOWN) {
        confirmed[(int) sequence] = at;
      }
    }

    /** Returns whether this is the segment's first listing by any playlist. */
    synchronized boolean listed(String name, long sequence, long at) {
      byName.computeIfAbsent(name, n -> new Listing()).mark(sequence, at);
      return any.mark(sequence, at);
    }

    /** The oldest segment playlist {@code name} has not listed yet: its PUTs are read down to it. */
    synchronized long oldestUnlisted(String name) {
      Listing listing = byName.get(name);
      return listing == null ? 0 : listing.oldestUnlisted;
    }

    synchronized long confirmedAt(long sequence) {
      return sequence < confirmed.length ? confirmed[(int) sequence] : UNKNOWN;
    }

    synchronized long listedAt(long sequence) {
      return any.at(sequence);
    }

    synchronized long listedAt(String name, long sequence) {
      Listing listing = byName.get(name);
      return listing == null ? UNKNOWN : listing.at(sequence);
    }
  }

  /** When each segment was first listed (by one playlist, or by any). Guarded by its {@link Rendition}. */
  private static final class Listing {
    private long[] at = empty(64);
    private long oldestUnlisted;

    /** Returns whether this is the segment's first listing. */
    boolean mark(long sequence, long instant) {
      at = grow(at, sequence);
      if (at[(int) sequence] != UNKNOWN) {
        return false;
      }
      at[(int) sequence] = instant;
      while (oldestUnlisted < at.length && at[(int) oldestUnlisted] != UNKNOWN) {
        oldestUnlisted++;
      }
      return true;
    }

    long at(long sequence) {
      return sequence < at.length ? at[(int) sequence] : UNKNOWN;
    }

    static long[] grow(long[] a, long sequence) {
      if (sequence >= Integer.MAX_VALUE - 8) {
        throw new IllegalArgumentException("sequence too large for the log: " + sequence);
      }
      if (sequence < a.length) {
        return a;
      }
      long[] b = empty((int) Math.max(sequence + 1, a.length * 2L));
      System.arraycopy(a, 0, b, 0, a.length);
      return b;
    }

    static long[] empty(int n) {
      long[] a = new long[n];
      Arrays.fill(a, UNKNOWN);
      return a;
    }
  }
}
