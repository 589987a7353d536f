package dev.segmentledger.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.segmentledger.testkit.PostgresExtension;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The example app on embedded PostgreSQL and an in-process S3 server, each on a free port, wired
 * only through properties; everything checked over real HTTP.
 */
class SpringRecorderAppTest {
  @RegisterExtension static final PostgresExtension POSTGRES = PostgresExtension.create();
  @TempDir static Path temp;

  static BlobStoreContext blobs;
  static S3Proxy s3;
  static ConfigurableApplicationContext app;
  static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  static String base;

  @BeforeAll
  static void start() throws Exception {
    blobs = ContextBuilder.newBuilder("transient-nio2").credentials("identity", "credential")
        .overrides(new Properties()).build(BlobStoreContext.class);
    blobs.getBlobStore().createContainerInLocation(null, "recordings");
    s3 = S3Proxy.builder().blobStore(blobs.getBlobStore())
        .awsAuthentication(AuthenticationType.AWS_V4, "example", "example-secret")
        .endpoint(URI.create("http://127.0.0.1:0")).build();
    s3.start();
    assertThat(s3.getState()).isEqualTo("STARTED");
    java.nio.file.Files.createDirectories(temp.resolve("recordings"));
    app = new SpringApplicationBuilder(SpringRecorderApp.class).run(
        "--server.port=0",
        "--server.address=127.0.0.1",
        "--spring.datasource.url=" + POSTGRES.jdbcUrl(),
        "--spring.datasource.username=" + POSTGRES.user(),
        "--spring.datasource.password=" + POSTGRES.password(),
        "--segment-ledger.allowed-root=" + temp.resolve("recordings"),
        "--segment-ledger.s3.endpoint=http://127.0.0.1:" + s3.getPort(),
        "--segment-ledger.s3.path-style=true",
        "--segment-ledger.s3.access-key=example",
        "--segment-ledger.s3.secret-key=example-secret",
        "--segment-ledger.s3.checksums-when-required=true",
        "--segment-ledger.metrics.backlog-refresh-interval=200ms");
    base = "http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port");
  }

  @AfterAll
  static void stop() throws Exception {
    if (app != null) {
      app.close();
    }
    if (s3 != null) {
      s3.stop();
    }
    if (blobs != null) {
      blobs.close();
    }
  }

  @Test
  void recordsSegmentsUploadsThemAndReportsOverHttp() throws Exception {
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(base + "/segments/show-1/720p/" + i))
          .header("Content-Type", "application/octet-stream")
          .POST(HttpRequest.BodyPublishers.ofString("segment " + i)).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
    }
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    String status = "";
    while (System.nanoTime() < deadline) {
      status = get("/actuator/segmentledger/show-1", 200);
      if (status.contains("\"unconfirmed\":0")) {
        break;
      }
      Thread.sleep(100);
    }
    assertThat(status).contains("\"broadcast\":\"show-1\"").contains("\"unconfirmed\":0").contains("\"confirmed\":3");
    for (int i = 0; i < 3; i++) {
      assertThat(blobs.getBlobStore().blobExists("recordings",
          dev.segmentledger.core.ItemId.original("show-1", "720p", i).objectKey()))
          .as("segment %d in the bucket", i).isTrue();
    }

    assertThat(get("/actuator/health", 200)).contains("\"status\":\"UP\"").contains("segmentLedger");
    assertThat(get("/actuator/health/liveness", 200)).contains("\"status\":\"UP\"");
    String readiness = get("/actuator/health/readiness", 200);
    assertThat(readiness).contains("\"status\":\"UP\"").contains("segmentLedger").contains("\"circuit\":\"closed\"");

    assertThat(get("/actuator/segmentledger", 200)).contains("\"items\":[]");
    assertThat(get("/actuator/segmentledger?broadcast=show-1&state=confirmed&limit=2", 200))
        .contains("\"state\":\"confirmed\"").containsPattern("\"next\":[0-9]+");
    assertThat(get("/actuator/segmentledger/show-1/reconcile", 200)).contains("\"consistent\":true");
    get("/actuator/segmentledger?axis=sideways", 400);
    HttpResponse<String> reopen = http.send(HttpRequest.newBuilder(URI.create(base + "/actuator/segmentledger"))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"broadcast\":\"show-1\",\"reason\":\"missing_file\"}")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(reopen.statusCode()).as("re-open is off by default").isIn(404, 405);
  }

  static String get(String path, int expected) throws Exception {
    HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(base + path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(expected);
    return response.body();
  }
}
