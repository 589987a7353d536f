package dev.segmentledger.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.segmentledger.testkit.PostgresExtension;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * Health that tells the truth, over HTTP: with the S3 server down and the breaker open, readiness
 * answers 503 while the overall health and liveness stay 200; and the application starts without
 * Micrometer's warning that a registry was added after meters were registered.
 */
@ExtendWith(OutputCaptureExtension.class)
class SpringRecorderAppHealthTest {
  @RegisterExtension @Order(1) static final PostgresExtension POSTGRES = PostgresExtension.create();
  @RegisterExtension @Order(2) static final RunningRecorderApp app = new RunningRecorderApp(POSTGRES,
      "segment-ledger.breaker.open-delay=5m", "segment-ledger.breaker.failures=2");

  @Test
  void aBucketOutageTakesReadinessDownAndNeitherTheOverallHealthNorLiveness(CapturedOutput output) throws Exception {
    assertThat(output.getAll()).as("the start-up output").contains("Starting service [Tomcat]")
        .doesNotContain("A MeterRegistry is being added to this CompositeMeterRegistry");
    assertThat(app.get("/actuator/health/readiness", 200)).contains("segmentLedger");
    assertThat(app.get("/actuator/health", 200)).doesNotContain("segmentLedger");

    app.stopS3();
    for (int i = 0; i < 4; i++) {
      HttpResponse<String> recorded = app.post("/segments/outage/720p/" + i, "application/octet-stream", "s " + i);
      assertThat(recorded.statusCode()).as(recorded.body()).isEqualTo(202);
    }
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    String readiness = "";
    while (System.nanoTime() < deadline) {
      HttpResponse<String> response = app.send("/actuator/health/readiness");
      readiness = response.body();
      if (response.statusCode() == 503) {
        break;
      }
      Thread.sleep(200);
    }
    assertThat(readiness).contains("\"circuit\":\"open\"").contains("OUT_OF_SERVICE");
    assertThat(app.get("/actuator/health", 200)).contains("\"status\":\"UP\"");
    assertThat(app.get("/actuator/health/liveness", 200)).contains("\"status\":\"UP\"");
  }
}
