package dev.segmentledger.console;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.Printable;
import dev.segmentledger.core.QueryTimeoutException;
import dev.segmentledger.core.SinkException;
import dev.segmentledger.core.StoreException;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.StateStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operations console: HTML pages of one ledger's rows, rendered on the server, for a host to
 * serve at a path of its choice (the Spring Boot starter, the command line's {@code console}
 * command, or your own). It shows the backlog per axis with the age of the oldest row; stuck and
 * rejected rows, keyset-paged and filtered by state, reason, axis, broadcast, age and attempts; one
 * broadcast with its counts, its published playlists, its rows (paged) and a player (hls.js) of its
 * multivariant playlist read through the host (playlists, init and playback segments only, streamed
 * where the host streams, each with the type of its kind and a Content-Security-Policy); bounded reconcile steps; and, when enabled, the
 * re-open of a terminal row after a confirmation page.
 *
 * <p><b>What the host must do.</b> Authenticate and authorise every request before handing it to
 * {@link #handle} (the console itself checks nothing about who asks); protect forms against
 * cross-site requests (pass its CSRF token as {@link ConsoleRequest#formFields()}, or accept POSTs
 * only from its own origin, never from {@code Origin: null}); and write the {@link ConsoleResponse} as
 * it is (its headers carry a strict Content-Security-Policy: no inline script or style), and, if it
 * says so ({@link Builder#streamedBodies}), copying a {@linkplain ConsoleResponse#streamed() streamed
 * body} through and closing it; otherwise a media object comes whole in the body.
 *
 * <p><b>What it guarantees.</b> Every value shown is escaped ({@link Html}): markup and bidi
 * controls in a row's last error show as text. Every read is bounded: pages of at most 500 rows by
 * keyset, counts instead of rows, reconcile in steps of at most 10,000 checks, and each read of the
 * database in time ({@link Builder#queryTimeout}, 5 s unless set: a filter no row matches would
 * otherwise walk a large ledger; the page then says so, 503). A bad parameter is answered 400 with what is allowed; a failing
 * database or bucket 503, with the page saying so. It never throws from {@link #handle}. Writes:
 * only the re-open (a compare-and-set on the row's state, {@link StateStore#reopen}) and a repair
 * step of reconcile, and only when {@linkplain Builder#reopenEnabled enabled}.
 *
 * <p>Immutable once built and thread-safe.
 */
public final class LedgerConsole {
  private static final Logger log = LoggerFactory.getLogger(LedgerConsole.class);

  private final Pages pages;
  private final MediaSource media;
  private final byte[] hlsJs;
  private final String hlsJsUrl;
  private final boolean streamedBodies;

  private LedgerConsole(Builder b) {
    this.media = b.media;
    this.streamedBodies = b.streamedBodies;
    this.hlsJs = b.hlsJs;
    this.hlsJsUrl = b.hlsJsUrl;
    String playerScript = hlsJs != null ? null : hlsJsUrl;
    this.pages = new Pages(b.store.withReadTimeout(b.queryTimeout), b.sink, b.clock, b.reopenEnabled, media != null,
        playerScript);
  }

  /** A builder; {@link Builder#store} and {@link Builder#clock} are required. */
  public static Builder builder() {
    return new Builder();
  }

  /** Answers one request that the host has authenticated and authorised. Never throws. */
  public ConsoleResponse handle(ConsoleRequest request) {
    Objects.requireNonNull(request, "request");
    String path = request.path();
    try {
      if (path.startsWith("/assets/")) {
        return asset(path.substring("/assets/".length()));
      }
      if (path.startsWith("/media/")) {
        return media(path.substring("/media/".length()));
      }
      return pages.page(request);
    } catch (BadInput e) {
      return pages.problem(request, 400, "Not a valid request", e.getMessage());
    } catch (QueryTimeoutException e) {
      log.warn("console: a read took longer than its bound of {} ms: {} {}", e.bound().toMillis(),
          request.method(), Printable.escape(path));
      return pages.problem(request, 503, "The query took too long", "The ledger's database took longer than "
          + e.bound().toMillis() + " ms, this console's bound, to answer, and the read was cancelled. A filter that"
          + " matches few rows of a large ledger reads many of them: narrow it with a broadcast, a state other than"
          + " CONFIRMED, a reason or an age.");
    } catch (StoreException e) {
      log.warn("console: the ledger's database failed: {}", e.getMessage());
      return pages.problem(request, 503, "The ledger's database failed", e.getMessage());
    } catch (SinkException e) {
      log.warn("console: the bucket failed: {}", e.getMessage());
      return pages.problem(request, 503, "The bucket failed", e.getMessage());
    } catch (RuntimeException e) {
      log.error("console: unexpected failure answering {} {}", request.method(), Printable.escape(path), e);
      return pages.problem(request, 500, "Unexpected failure", e.getClass().getSimpleName() + ": " + e.getMessage());
    }
  }

  private ConsoleResponse asset(String name) {
    if (name.equals("hls.min.js") && hlsJs != null) {
      return ConsoleResponse.bytes(200, "text/javascript; charset=utf-8", hlsJs, "max-age=3600");
    }
    String type = switch (name) {
      case "console.css" -> "text/css; charset=utf-8";
      case "player.js" -> "text/javascript; charset=utf-8";
      default -> null;
    };
    if (type == null) {
      return ConsoleResponse.bytes(404, "text/plain; charset=utf-8", bytes("no such asset"), "no-store");
    }
    try (InputStream in = LedgerConsole.class.getResourceAsStream("assets/" + name)) {
      if (in == null) {
        throw new IllegalStateException("resource assets/" + name + " missing from the console's jar");
      }
      return ConsoleResponse.bytes(200, type, in.readAllBytes(), "max-age=3600");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A playlist, init or playback segment of a broadcast through the host: only the keys a player
   * reads (never an original, which may be a file of gigabytes), each with the type of its kind
   * (never the bucket's, which could make an object a page of this origin), copied through as it
   * arrives, under a policy that lets nothing in it run.
   */
  private ConsoleResponse media(String key) {
    String type = playerType(key);
    if (media == null || type == null) {
      return ConsoleResponse.bytes(404, "text/plain; charset=utf-8", bytes(media == null
          ? "no media source configured" : "not a key the player reads (playlists, init and playback segments)"),
          "no-store");
    }
    Optional<MediaSource.MediaStream> object;
    try {
      object = media.open(key);
    } catch (IOException e) {
      log.warn("console: could not read {} from the media source: {}", Printable.escape(key), e.getMessage());
      return ConsoleResponse.bytes(502, "text/plain; charset=utf-8", bytes("the media source failed"),
          "no-store");
    }
    if (object.isEmpty()) {
      return ConsoleResponse.bytes(404, "text/plain; charset=utf-8", bytes("no such object"), "no-store");
    }
    MediaSource.MediaStream stream = object.get();
    String cacheControl = key.endsWith(".m3u8") ? "no-cache" : "max-age=60";
    if (!streamedBodies) {
      try (stream) {
        return ConsoleResponse.media(type, stream.body().readAllBytes(), null, cacheControl);
      } catch (IOException e) {
        log.warn("console: could not read {} from the media source: {}", Printable.escape(key), e.getMessage());
        return ConsoleResponse.bytes(502, "text/plain; charset=utf-8", bytes("the media source failed"),
            "no-store");
      }
    }
    return ConsoleResponse.media(type, new byte[0], new StreamedBody() {
      @Override
      public long length() {
        return stream.length();
      }

      @Override
      public void writeTo(OutputStream out) throws IOException {
        stream.body().transferTo(out);
      }

      @Override
      public void close() throws IOException {
        stream.close();
      }
    }, cacheControl);
  }

  /** The type a player needs for {@code key}, or {@code null} if no player reads it. */
  private static String playerType(String key) {
    if (isPlaylistKey(key)) {
      return "application/vnd.apple.mpegurl";
    }
    Optional<ItemId> id = ObjectKeys.idOf(key);
    if (id.isEmpty()) {
      return null;
    }
    return switch (id.get().axis()) {
      case PLAYBACK -> "video/iso.segment";
      case INIT -> "video/mp4";
      case ORIGINAL -> null;
    };
  }

  private static byte[] bytes(String text) {
    return text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  private static boolean isPlaylistKey(String key) {
    int slash = key.indexOf('/');
    if (slash <= 0) {
      return false;
    }
    String broadcast = key.substring(0, slash);
    try {
      if (key.equals(ObjectKeys.multivariantPlaylistKey(broadcast))
          || key.equals(ObjectKeys.liveMultivariantPlaylistKey(broadcast))) {
        return true;
      }
      int end = key.lastIndexOf('/');
      return end > slash && (key.equals(ObjectKeys.mediaPlaylistKey(broadcast, key.substring(slash + 1, end)))
          || key.equals(ObjectKeys.liveMediaPlaylistKey(broadcast, key.substring(slash + 1, end))));
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /** Collects the settings of a {@link LedgerConsole}. Not thread-safe. */
  public static final class Builder {
    /** The default {@link #queryTimeout}: 5 seconds. */
    public static final Duration DEFAULT_QUERY_TIMEOUT = Duration.ofSeconds(5);

    private StateStore store;
    private Duration queryTimeout = DEFAULT_QUERY_TIMEOUT;
    private ObjectSink sink;
    private Clock clock;
    private boolean reopenEnabled;
    private MediaSource media;
    private byte[] hlsJs;
    private String hlsJsUrl;
    private boolean streamedBodies;

    private Builder() {}

    /** The ledger's rows. Required. */
    public Builder store(StateStore store) {
      this.store = Objects.requireNonNull(store, "store");
      return this;
    }

    /**
     * How long one read of the ledger's database may take ({@link StateStore#withReadTimeout});
     * default 5 s ({@link #DEFAULT_QUERY_TIMEOUT}). A page whose read takes longer is answered
     * 503 with a page that says so and how to narrow the filter.
     *
     * @throws IllegalArgumentException if it is not from 1 ms to 5 minutes
     */
    public Builder queryTimeout(Duration queryTimeout) {
      Objects.requireNonNull(queryTimeout, "queryTimeout");
      if (queryTimeout.toMillis() < 1 || queryTimeout.compareTo(Duration.ofMinutes(5)) > 0) {
        throw new IllegalArgumentException("queryTimeout must be from 1 ms to 5 minutes, got " + queryTimeout);
      }
      this.queryTimeout = queryTimeout;
      return this;
    }

    /** The ledger's bucket, for reconcile steps; {@code null}: no reconcile page. */
    public Builder sink(ObjectSink sink) {
      this.sink = sink;
      return this;
    }

    /** The time ages are judged by and re-opens stamped with. Required. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Whether operators may re-open terminal rows (after a confirmation page) and repair in a
     * reconcile step. Off unless set: the pages then offer neither, and such a POST is refused (403).
     */
    public Builder reopenEnabled(boolean reopenEnabled) {
      this.reopenEnabled = reopenEnabled;
      return this;
    }

    /** Where the player reads playlists and segments (through the host); {@code null}: no player. */
    public Builder media(MediaSource media) {
      this.media = media;
      return this;
    }

    /**
     * The hls.js the player page loads, served by the console itself from this file ({@code
     * hls.min.js} of the npm package {@code hls.js}); takes precedence over {@link #hlsJsUrl}.
     *
     * @throws UncheckedIOException if the file cannot be read
     */
    public Builder hlsJs(Path file) {
      try {
        this.hlsJs = file == null ? null : Files.readAllBytes(file);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read hls.js at " + file, e);
      }
      return this;
    }

    /**
     * Where the browser loads hls.js from when no {@linkplain #hlsJs(Path) file} is given (an
     * {@code https} URL of your own or a CDN's); also allowed by the pages' Content-Security-Policy.
     * Without either, the player uses the browser's own HLS support where it has one (Safari).
     *
     * @throws IllegalArgumentException if it is not an absolute http(s) URL
     */
    public Builder hlsJsUrl(String url) {
      if (url != null) {
        URI uri = URI.create(url);
        if (!uri.isAbsolute() || !(uri.getScheme().equals("https") || uri.getScheme().equals("http"))) {
          throw new IllegalArgumentException("hls.js URL must be an absolute http(s) URL, got " + url);
        }
      }
      this.hlsJsUrl = url;
      return this;
    }

    /**
     * Whether the host copies a {@linkplain ConsoleResponse#streamed() streamed body} through and
     * closes it. Off unless set: a media object is then read whole into {@link ConsoleResponse#body()}
     * (as a host that writes only the body, such as one written for 1.0.0-rc.1, needs), and the
     * console closes what it opened. The command line's and the starter's hosts stream.
     */
    public Builder streamedBodies(boolean streamedBodies) {
      this.streamedBodies = streamedBodies;
      return this;
    }

    /** The console. */
    public LedgerConsole build() {
      Objects.requireNonNull(store, "store is required");
      Objects.requireNonNull(clock, "clock is required");
      return new LedgerConsole(this);
    }
  }

  @Override
  public String toString() {
    return "LedgerConsole[player=" + (media != null) + ", hlsJs=" + (hlsJs != null ? "served" : hlsJsUrl) + "]";
  }
}
