package dev.segmentledger.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.segmentledger.testkit.PostgresExtension;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The example app on embedded PostgreSQL and an in-process S3 server, each on a free port, wired
 * only through properties; everything checked over real HTTP.
 */
class SpringRecorderAppTest {
  @RegisterExtension @Order(1) static final PostgresExtension POSTGRES = PostgresExtension.create();
  @RegisterExtension @Order(2) static final RunningRecorderApp app = new RunningRecorderApp(POSTGRES);

  @Test
  void recordsSegmentsUploadsThemAndReportsOverHttp() throws Exception {
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> response = app.post("/segments/show-1/720p/" + i, "application/octet-stream", "segment " + i);
      assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
    }
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    String status = "";
    while (System.nanoTime() < deadline) {
      status = app.get("/actuator/segmentledger/show-1", 200);
      if (status.contains("\"unconfirmed\":0")) {
        break;
      }
      Thread.sleep(100);
    }
    assertThat(status).contains("\"broadcast\":\"show-1\"").contains("\"unconfirmed\":0").contains("\"confirmed\":3");
    for (int i = 0; i < 3; i++) {
      assertThat(app.bucket().blobExists(RunningRecorderApp.BUCKET,
          dev.segmentledger.core.ItemId.original("show-1", "720p", i).objectKey()))
          .as("segment %d in the bucket", i).isTrue();
    }

    assertThat(app.get("/actuator/health", 200)).contains("\"status\":\"UP\"")
        .as("readiness only, never the overall health").doesNotContain("segmentLedger");
    assertThat(app.get("/actuator/health/liveness", 200)).contains("\"status\":\"UP\"");
    String readiness = app.get("/actuator/health/readiness", 200);
    assertThat(readiness).contains("\"status\":\"UP\"").contains("segmentLedger").contains("\"circuit\":\"closed\"");

    assertThat(app.get("/actuator/segmentledger", 200)).contains("\"items\":[]");
    assertThat(app.get("/actuator/segmentledger?broadcast=show-1&state=confirmed&limit=2", 200))
        .contains("\"state\":\"confirmed\"").containsPattern("\"next\":[0-9]+");
    assertThat(app.get("/actuator/segmentledger/show-1/reconcile", 400)).contains("is a POST");
    HttpResponse<String> step = app.post("/actuator/segmentledger/show-1/reconcile", "application/json",
        "{\"maxChecks\":100}");
    assertThat(step.statusCode()).as(step.body()).isEqualTo(200);
    assertThat(step.body()).contains("\"complete\":true").contains("\"consistentSoFar\":true")
        .contains("\"rowsChecked\":3");
    assertThat(app.get("/actuator/segmentledger/show-1/rows?limit=2", 200)).containsPattern("\"next\":[0-9]+");
    app.get("/actuator/segmentledger?axis=sideways", 400);
    HttpResponse<String> reopen = app.post("/actuator/segmentledger", "application/json",
        "{\"broadcast\":\"show-1\",\"reason\":\"missing_file\"}");
    assertThat(reopen.statusCode()).as("re-open is off by default").isIn(404, 405);
  }

  /**
   * The command docs/spring-boot.md shows, {@code curl -X POST --data-binary @0.ts .../segments/...},
   * sends the file with curl's default type for {@code --data-binary},
   * {@code application/x-www-form-urlencoded}: the segment is recorded byte for byte all the same,
   * bytes that are not text and characters that mean something in a form included.
   */
  @Test
  void aSegmentPostedAsCurlDataBinarySendsItIsRecordedByteForByte() throws Exception {
    byte[] segment = {0x47, 0x40, 0x00, 0x10, (byte) 0xff, (byte) 0xc3, 0x28, '%', 'z', 'z', '&', 'a', '=', '+',
        '\n', 0x00, (byte) 0x80};
    HttpResponse<String> response = app.post("/segments/curl-1/720p/0", "application/x-www-form-urlencoded",
        segment);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
    assertThat(response.body()).contains("\"created\":true");
    assertThat(Files.readAllBytes(app.allowedRoot().resolve("curl-1/720p/0.ts"))).isEqualTo(segment);
  }
}
