package dev.segmentledger.console;

import java.io.IOException;
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
 * objects at the ledger's keys. Implementations must be thread-safe.
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
   * The object at {@code key} (a ledger key: a playlist, an init or a segment), or empty if there is none.
   *
   * @throws IOException if it cannot be read
   */
  Optional<Media> read(String key) throws IOException;

  /**
   * Objects read by plain HTTP GET at {@code baseUrl} followed by the key: the bucket's address for
   * a public-read bucket, a CDN in front of it, or an S3 server's anonymous port. Ten seconds to
   * connect and thirty to answer.
   */
  static MediaSource http(URI baseUrl) {
    String base = baseUrl.toString().endsWith("/") ? baseUrl.toString() : baseUrl + "/";
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10))
        .followRedirects(HttpClient.Redirect.NEVER).build();
    return key -> {
      HttpRequest request = HttpRequest.newBuilder(URI.create(base + key)).timeout(Duration.ofSeconds(30)).GET().build();
      try {
        HttpResponse<byte[]> response = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
        if (response.statusCode() == 404 || response.statusCode() == 403) {
          return Optional.empty();
        }
        if (response.statusCode() != 200) {
          throw new IOException("GET " + key + " answered " + response.statusCode());
        }
        return Optional.of(new Media(response.headers().firstValue("Content-Type")
            .orElse("application/octet-stream"), response.body()));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while reading " + key, e);
      }
    };
  }
}
