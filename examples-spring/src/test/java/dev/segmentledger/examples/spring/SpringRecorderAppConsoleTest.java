package dev.segmentledger.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;

/**
 * The example as {@code spring-boot:run} starts it: embedded PostgreSQL and the in-process S3 server
 * by default, the console's URL printed, and the console over HTTP only for a signed-in user with
 * the role: 401 without a user, 403 for a user without the role, the pages for an operator, whose
 * forms carry the CSRF token (a POST without it is refused).
 */
@ExtendWith(OutputCaptureExtension.class)
class SpringRecorderAppConsoleTest {
  private static ConfigurableApplicationContext app;
  private static String base;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  /** Two users: an operator with the console's role, a viewer without it. */
  @Configuration(proxyBeanMethods = false)
  static class Users {
    @Bean
    InMemoryUserDetailsManager users() {
      return new InMemoryUserDetailsManager(
          User.withUsername("op").password("{noop}op-secret").roles("SEGMENT_LEDGER_OPERATOR").build(),
          User.withUsername("viewer").password("{noop}viewer-secret").roles("VIEWER").build());
    }
  }

  @BeforeAll
  static void start() {
    var application = SpringRecorderApp.application();
    application.addPrimarySources(java.util.List.of(Users.class));
    app = application.run("--server.port=0", "--server.address=127.0.0.1");
    base = "http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port");
  }

  @AfterAll
  static void stop() {
    if (app != null) {
      app.close();
    }
  }

  private HttpResponse<String> get(String path, String user, String password) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).GET();
    if (user != null) {
      request.header("Authorization", "Basic " + Base64.getEncoder().encodeToString((user + ":" + password)
          .getBytes(StandardCharsets.UTF_8)));
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void onEmbeddedDefaultsItPrintsTheConsoleAndServesItToOperatorsOnly(CapturedOutput output) throws Exception {
    String port = app.getEnvironment().getProperty("local.server.port");
    assertThat(output.getOut()).contains("Segment Ledger console: http://localhost:" + port + "/segment-ledger/");
    assertThat(app.getEnvironment().getProperty("spring.datasource.url")).startsWith("jdbc:postgresql://localhost:");

    assertThat(get("/segment-ledger/", null, null).statusCode()).isEqualTo(401);
    HttpResponse<String> viewer = get("/segment-ledger/", "viewer", "viewer-secret");
    assertThat(viewer.statusCode()).isEqualTo(403);
    assertThat(viewer.body()).contains("the console is for users with role SEGMENT_LEDGER_OPERATOR");

    HttpResponse<String> overview = get("/segment-ledger/", "op", "op-secret");
    assertThat(overview.statusCode()).isEqualTo(200);
    assertThat(overview.body()).contains("<table id=\"backlog\">").contains("op &middot; re-open enabled");
    assertThat(overview.headers().firstValue("Content-Security-Policy").orElseThrow()).contains("script-src 'self'");
    HttpResponse<String> form = get("/segment-ledger/reconcile?id=show-1", "op", "op-secret");
    assertThat(form.body()).containsPattern("name=\"_csrf\" value=\"[^\"]+\"");
    HttpResponse<String> bad = get("/segment-ledger/rows?limit=9999", "op", "op-secret");
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(bad.body()).contains("limit must be a whole number from 1 to 500");

    HttpResponse<String> forged = http.send(HttpRequest.newBuilder(URI.create(base + "/segment-ledger/reopen"))
        .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("op:op-secret".getBytes(
            StandardCharsets.UTF_8)))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString("row=1&state=REJECTED")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(forged.statusCode()).as("a POST without the CSRF token").isEqualTo(403);
  }
}
