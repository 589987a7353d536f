package dev.segmentledger.testkit.crash;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.testkit.ForwardingObjectSink;
import dev.segmentledger.core.spi.RegisterResult;
import dev.segmentledger.core.spi.RepackageException;
import dev.segmentledger.core.spi.RepackagedFile;
import dev.segmentledger.core.spi.Repackager;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.core.spi.Tracing;
import dev.segmentledger.core.spi.UploadContent;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Kills the process at one {@link CrashPoint} for items of one {@link Axis}, on the n-th time an
 * item passes it. Wrap the store, the sink and the repackager with it and add its listener, then
 * build the ledger as usual: every crash point is reached through the real code path.
 *
 * <p>When it fires it prints {@link #MARKER} followed by the point and the item to standard out,
 * then dies according to its {@link CrashMode}. Thread-safe; fires at most once.
 */
public final class CrashHooks {
  /** The line prefix printed when a hook fires. */
  public static final String MARKER = "SEGMENT-LEDGER-CRASH ";

  private final CrashPoint point;
  private final Axis axis;
  private final int occurrence;
  private final CrashMode mode;
  private final AtomicInteger passes = new AtomicInteger();

  /**
   * @param point where to die
   * @param axis the axis of the item that triggers it
   * @param occurrence die the n-th time (1-based) an item of {@code axis} passes {@code point}
   * @param mode how to die
   */
  public CrashHooks(CrashPoint point, Axis axis, int occurrence, CrashMode mode) {
    this.point = Objects.requireNonNull(point, "point");
    this.axis = Objects.requireNonNull(axis, "axis");
    this.mode = Objects.requireNonNull(mode, "mode");
    if (!point.appliesTo(axis)) {
      throw new IllegalArgumentException(point + " does not apply to " + axis);
    }
    if (occurrence < 1) {
      throw new IllegalArgumentException("occurrence must be >= 1, got " + occurrence);
    }
    this.occurrence = occurrence;
  }

  private void pass(CrashPoint reached, Axis itemAxis, Object item) {
    if (reached != point || itemAxis != axis || passes.incrementAndGet() != occurrence) {
      return;
    }
    System.out.println(MARKER + point + " " + item);
    System.out.flush();
    if (mode == CrashMode.HALT) {
      Runtime.getRuntime().halt(137);
    }
    while (true) {
      LockSupport.park(this); // the parent sends SIGKILL
    }
  }

  /** Wraps a store so that {@link CrashPoint#AFTER_REGISTRATION} fires once a registration commits. */
  public StateStore wrap(StateStore store) {
    return (StateStore) Proxy.newProxyInstance(StateStore.class.getClassLoader(), new Class<?>[] {StateStore.class},
        (proxy, method, args) -> {
          Object result = invoke(store, method, args);
          if (method.getName().equals("registerAll")) {
            @SuppressWarnings("unchecked")
            List<RegisterResult> results = (List<RegisterResult>) result;
            for (RegisterResult r : results) {
              pass(CrashPoint.AFTER_REGISTRATION, r.item().id().axis(), r.item().id());
            }
          }
          return result;
        });
  }

  private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  /**
   * Wraps a sink so that {@link CrashPoint#DURING_PUT_BODY} fires half-way through an object's bytes:
   * once per stream the sink opens that reads across the middle of the content. A sink that reads
   * the content more than once passes the point more than once per PUT: {@code S3ObjectSink} reads
   * it for its digests first, before any request (one pass with one part or {@code
   * partConcurrency(1)}; with several parts and lanes two: the SHA-256 over the whole content and
   * the MD5 of the part that crosses the middle), then each part from its offset (skipped bytes
   * count as position, not as sent), so the upload of the part that crosses the middle is the
   * second or the third pass.
   *
   * <p>A playlist PUT (a key ending in {@code .m3u8}) passes {@link CrashPoint#BEFORE_PLAYLIST_PUT}
   * before it is forwarded and {@link CrashPoint#AFTER_PLAYLIST_PUT_BEFORE_RECORD} once the sink
   * returned, both counted on the PLAYBACK axis, and never {@link CrashPoint#DURING_PUT_BODY}.
   */
  public ObjectSink wrap(ObjectSink sink) {
    return new ForwardingObjectSink() {
      @Override
      protected ObjectSink delegate() {
        return sink;
      }

      @Override
      public StoredObjectInfo put(String key, UploadContent content, boolean mayExist) {
        if (isPlaylist(key)) { // playlists are not items: they pass the playlist points only
          pass(CrashPoint.BEFORE_PLAYLIST_PUT, Axis.PLAYBACK, key);
          StoredObjectInfo stored = sink.put(key, content, mayExist);
          pass(CrashPoint.AFTER_PLAYLIST_PUT_BEFORE_RECORD, Axis.PLAYBACK, key);
          return stored;
        }
        return sink.put(key, halfWayHook(key, content), mayExist);
      }
    };
  }

  private UploadContent halfWayHook(String key, UploadContent content) {
    Axis itemAxis = axisOfKey(key);
    return new UploadContent() {
      @Override
      public long size() {
        return content.size();
      }

      /** The sink's progress reaches the ledger's content as without the hook. */
      @Override
      public void reportStored(long bytes) {
        content.reportStored(bytes);
      }

      @Override
      public Tracing.Span part(int number, long offset, long length) {
        return content.part(number, offset, length);
      }

      @Override
      public InputStream openStream() throws IOException {
        return new FilterInputStream(content.openStream()) {
          private long position;
          private boolean crossed;

          @Override
          public int read(byte[] buffer, int offset, int length) throws IOException {
            long half = content.size() / 2;
            int limit = position < half ? (int) Math.min(length, Math.max(1, half - position)) : length;
            int n = super.read(buffer, offset, limit);
            if (n > 0) {
              position += n;
              if (!crossed && position >= half) {
                crossed = true;
                pass(CrashPoint.DURING_PUT_BODY, itemAxis, key);
              }
            }
            return n;
          }

          /** Skipped bytes move the position without being sent: a part starting past half passes nothing. */
          @Override
          public long skip(long n) throws IOException {
            long skipped = super.skip(n);
            position += Math.max(0, skipped);
            if (position >= content.size() / 2 && position > 0) {
              crossed = true;
            }
            return skipped;
          }

          @Override
          public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
          }
        };
      }
    };
  }

  private static boolean isPlaylist(String key) {
    return key.endsWith(".m3u8");
  }

  private static Axis axisOfKey(String key) {
    if (key.endsWith("/init.mp4")) {
      return Axis.INIT;
    }
    return key.contains("/playback/") ? Axis.PLAYBACK : Axis.ORIGINAL;
  }

  /** Wraps a repackager so that {@link CrashPoint#DURING_REPACKAGE} fires after it wrote its file. */
  public Repackager wrap(Repackager repackager) {
    return new Repackager() {
      @Override
      public RepackagedFile init(Path original, Path target) throws RepackageException {
        RepackagedFile out = repackager.init(original, target);
        pass(CrashPoint.DURING_REPACKAGE, Axis.INIT, target);
        return out;
      }

      @Override
      public RepackagedFile segment(Path original, long sequence, Path target) throws RepackageException {
        RepackagedFile out = repackager.segment(original, sequence, target);
        pass(CrashPoint.DURING_REPACKAGE, Axis.PLAYBACK, target);
        return out;
      }
    };
  }

  /** The listener that fires the accept, stored, confirmed and playlist-recorded points. */
  public LedgerListener listener() {
    return new LedgerListener() {
      @Override
      public void onAccepted(LedgerItem item) {
        pass(CrashPoint.AFTER_ACCEPT, item.id().axis(), item.id());
      }

      @Override
      public void onStored(LedgerItem item, StoredObjectInfo object) {
        pass(CrashPoint.AFTER_PUT_BEFORE_CONFIRM, item.id().axis(), item.id());
      }

      @Override
      public void onConfirmed(LedgerItem item) {
        pass(CrashPoint.AFTER_CONFIRM, item.id().axis(), item.id());
      }

      @Override
      public void onPlaylistPublished(String broadcastId, String rendition, int entries, boolean complete) {
        pass(CrashPoint.AFTER_PLAYLIST_RECORD, Axis.PLAYBACK,
            broadcastId + "/" + (rendition == null ? "master" : rendition) + " entries=" + entries);
      }
    };
  }
}
