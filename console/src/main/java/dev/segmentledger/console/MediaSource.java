package dev.segmentledger.console;

import java.io.ByteArrayInputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Where the console's player reads a broadcast's playlists and segments, through the console's host
 * (so the browser loads them from the console's own origin, with no CORS rule on the bucket): the
 * objects at the ledger's keys. The console asks only for the keys a player reads (playlists,
 * playback and init segments), through {@link #open}, and copies each through as it arrives.
 * Implementations must be thread-safe.
 */
@FunctionalInterface
public interface MediaSource {

  /** The bytes and type of one object. */
  record Media(String contentType, byte[] bytes) {
    public Media {
      Objects.requireNonNull(contentType, "contentType");
      Objects.requireNonNull(bytes, "bytes");
    }
  }

  /**
   * One object being read: its type, its length (-1 if unknown) and its bytes, which whoever
   * opened it reads once and closes.
   */
  record MediaStream(String contentType, long length, InputStream body) implements Closeable {
    public MediaStream {
      Objects.requireNonNull(contentType, "contentType");
      Objects.requireNonNull(body, "body");
    }

    @Override
    public void close() throws IOException {
      body.close();
    }
  }

  /**
   * The object at {@code key} (a ledger key: a playlist, an init or a segment), or empty if there is none.
   *
   * @throws IOException if it cannot be read
   */
  Optional<Media> read(String key) throws IOException;

  /**
   * The object at {@code key} as a stream, or empty if there is none; what the console calls. The
   * default reads it whole with {@link #read} (fine for small objects); a source of large objects
   * overrides it to stream them.
   *
   * @throws IOException if it cannot be opened
   */
  default Optional<MediaStream> open(String key) throws IOException {
    return read(key).map(m -> new MediaStream(m.contentType(), m.bytes().length, new ByteArrayInputStream(m.bytes())));
  }

  /**
   * Objects read by plain HTTP GET at {@code baseUrl} followed by the key: the bucket's address for
   * a public-read bucket, a CDN in front of it, or an S3 server's anonymous port. Ten seconds to
   * connect and thirty for the answer's headers; {@link #open} streams the body as it arrives.
   */
  static MediaSource http(URI baseUrl) {
    String base = baseUrl.toString().endsWith("/") ? baseUrl.toString() : baseUrl + "/";
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10))
        .followRedirects(HttpClient.Redirect.NEVER).build();
    return new MediaSource() {
      @Override
      public Optional<Media> read(String key) throws IOException {
        Optional<MediaStream> stream = open(key);
        if (stream.isEmpty()) {
          return Optional.empty();
        }
        try (MediaStream object = stream.get()) {
          return Optional.of(new Media(object.contentType(), object.body().readAllBytes()));
        }
      }

      @Override
      public Optional<MediaStream> open(String key) throws IOException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + key)).timeout(Duration.ofSeconds(30)).GET()
            .build();
        HttpResponse<InputStream> response;
        try {
          response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted while reading " + key, e);
        }
        if (response.statusCode() != 200) {
          response.body().close();
          if (response.statusCode() == 404 || response.statusCode() == 403) {
            return Optional.empty();
          }
          throw new IOException("GET " + key + " answered " + response.statusCode());
        }
        return Optional.of(new MediaStream(response.headers().firstValue("Content-Type")
            .orElse("application/octet-stream"), response.headers().firstValueAsLong("Content-Length").orElse(-1),
            response.body()));
      }
    };
  }
}
