package dev.segmentledger.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.segmentledger.testkit.PostgresExtension;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStore;
import org.jclouds.blobstore.BlobStoreContext;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The example app running for a test class: an in-process S3 server (S3Proxy, transient store,
 * bucket {@code recordings}) and {@link SpringRecorderApp} on free ports, on the given PostgreSQL,
 * wired only through command-line properties; stopped after the class. Order it after the
 * {@link PostgresExtension} it uses ({@code @Order}): JUnit does not order extension fields by declaration.
 */
final class RunningRecorderApp implements BeforeAllCallback, AfterAllCallback {
  static final String BUCKET = "recordings";

  private final PostgresExtension postgres;
  private final List<String> extraProperties;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private Path root;
  private BlobStoreContext blobs;
  private S3Proxy s3;
  private ConfigurableApplicationContext app;
  private String base;

  RunningRecorderApp(PostgresExtension postgres, String... extraProperties) {
    this.postgres = postgres;
    this.extraProperties = List.of(extraProperties);
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    blobs = ContextBuilder.newBuilder("transient-nio2").credentials("identity", "credential")
        .overrides(new Properties()).build(BlobStoreContext.class);
    blobs.getBlobStore().createContainerInLocation(null, BUCKET);
    s3 = S3Proxy.builder().blobStore(blobs.getBlobStore())
        .awsAuthentication(AuthenticationType.AWS_V4, "example", "example-secret")
        .endpoint(URI.create("http://127.0.0.1:0")).build();
    s3.start();
    assertThat(s3.getState()).isEqualTo("STARTED");
    root = Files.createTempDirectory("spring-recorder");
    Files.createDirectories(root.resolve("recordings"));
    List<String> args = new ArrayList<>(List.of(
        "--server.port=0",
        "--server.address=127.0.0.1",
        "--spring.datasource.url=" + postgres.jdbcUrl(),
        "--spring.datasource.username=" + postgres.user(),
        "--spring.datasource.password=" + postgres.password(),
        "--segment-ledger.allowed-root=" + root.resolve("recordings"),
        "--segment-ledger.s3.endpoint=http://127.0.0.1:" + s3.getPort(),
        "--segment-ledger.s3.path-style=true",
        "--segment-ledger.s3.access-key=example",
        "--segment-ledger.s3.secret-key=example-secret",
        "--segment-ledger.s3.checksums-when-required=true",
        "--segment-ledger.metrics.backlog-refresh-interval=200ms"));
    extraProperties.forEach(p -> args.add("--" + p));
    app = new SpringApplicationBuilder(SpringRecorderApp.class).run(args.toArray(String[]::new));
    base = "http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port");
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    try {
      if (app != null) {
        app.close();
      }
      if (s3 != null) {
        s3.stop();
      }
    } finally {
      if (blobs != null) {
        blobs.close();
      }
      deleteTree(root);
    }
  }

  /** Stops the S3 server: the bucket is down from now on. */
  void stopS3() throws Exception {
    s3.stop();
  }

  /** The bucket's store, to check what was uploaded. */
  BlobStore bucket() {
    return blobs.getBlobStore();
  }

  /** GET {@code path}, asserting the status; returns the body. */
  String get(String path, int expected) throws Exception {
    HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(base + path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(expected);
    return response.body();
  }

  /** GET {@code path}, whatever the status. */
  HttpResponse<String> send(String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(base + path)).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  /** POST {@code body} with {@code contentType} to {@code path}. */
  HttpResponse<String> post(String path, String contentType, String body) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", contentType)
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
  }

  /** POST the bytes {@code body} with {@code contentType} to {@code path}, as {@code curl --data-binary @file} does. */
  HttpResponse<String> post(String path, String contentType, byte[] body) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", contentType)
        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The allowed root the app records into. */
  Path allowedRoot() {
    return root.resolve("recordings");
  }

  private static void deleteTree(Path dir) throws IOException {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
