package dev.segmentledger.it.browser;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.segmentledger.s3.S3ProxyServer;
import dev.segmentledger.testkit.PlaybackBucketServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

/**
 * The bucket the browser tests publish to and play from: S3Proxy with a signed port for uploads and
 * an anonymous one for the browser and ffprobe (testkit's {@link PlaybackBucketServer}), and what a
 * plain, unsigned GET of its objects answers.
 */
final class PlaybackBucket {
  private PlaybackBucket() {}

  /** Starts the server on its in-memory store, with the keys {@link S3ProxyServer#client} signs with. */
  static PlaybackBucketServer start() throws Exception {
    return PlaybackBucketServer.inMemory(S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY);
  }

  /** The body of a plain GET of {@code url}, which must answer 200. */
  static String get(URI url) throws Exception {
    HttpResponse<String> response = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, response.statusCode(), "GET " + url);
    return response.body();
  }

  /** Each object answers a plain, unsigned GET with 200 and the content type it was stored with. */
  static void assertServedAnonymously(PlaybackBucketServer server, String bucket,
      Map<String, String> expectedTypes) throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    for (Map.Entry<String, String> e : expectedTypes.entrySet()) {
      URI url = server.url(bucket, e.getKey());
      HttpResponse<byte[]> response = http.send(HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(10)).build(),
          HttpResponse.BodyHandlers.ofByteArray());
      assertEquals(200, response.statusCode(), "GET " + url);
      assertEquals(e.getValue(), response.headers().firstValue("Content-Type").orElse(null), "Content-Type of " + url);
    }
  }
}
