package dev.segmentledger.examples.spring;

import dev.segmentledger.testkit.PlaybackBucketServer;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * The example's embedded defaults ({@code recorder.embedded=true}, the default in
 * application.properties): an embedded PostgreSQL 16 (io.zonky.test) and an in-process S3 server
 * (the testkit's {@link PlaybackBucketServer}: S3Proxy in memory, with a signed port for the ledger
 * and an anonymous one the console's player reads), both on free ports, started before the
 * application context and stopped with it. They reach the application only as properties ({@code
 * spring.datasource.*}, {@code segment-ledger.s3.*}, {@code segment-ledger.console.media-base-url}),
 * of the lowest precedence: anything given on the command line wins. Not for production.
 */
final class EmbeddedServices implements ApplicationContextInitializer<ConfigurableApplicationContext> {
  static final String BUCKET = "recordings";
  private static final String KEY = "recorder";
  private static final String SECRET = "recorder-secret";
  private static final Logger log = LoggerFactory.getLogger(EmbeddedServices.class);

  @Override
  public void initialize(ConfigurableApplicationContext context) {
    ConfigurableEnvironment environment = context.getEnvironment();
    if (!environment.getProperty("recorder.embedded", Boolean.class, false)) {
      return;
    }
    try {
      Files.createDirectories(Path.of(environment.getProperty("segment-ledger.allowed-root", "target/recordings")));
      EmbeddedPostgres postgres = EmbeddedPostgres.builder().start();
      PlaybackBucketServer s3 = PlaybackBucketServer.inMemory(KEY, SECRET);
      s3.createBucket(BUCKET);
      Map<String, Object> properties = new LinkedHashMap<>();
      properties.put("spring.datasource.url", postgres.getJdbcUrl("postgres", "postgres"));
      properties.put("spring.datasource.username", "postgres");
      properties.put("spring.datasource.password", "");
      properties.put("segment-ledger.s3.bucket", BUCKET);
      properties.put("segment-ledger.s3.endpoint", s3.signedEndpoint().toString());
      properties.put("segment-ledger.s3.path-style", "true");
      properties.put("segment-ledger.s3.access-key", KEY);
      properties.put("segment-ledger.s3.secret-key", SECRET);
      properties.put("segment-ledger.s3.checksums-when-required", "true");
      properties.put("segment-ledger.console.media-base-url", s3.anonymousEndpoint() + "/" + BUCKET + "/");
      // The repository's hls.js, once installed (npm ci --prefix tests/integration/browser).
      Path hlsJs = Path.of("..", "tests", "integration", "browser", "node_modules", "hls.js", "dist", "hls.min.js");
      if (Files.isRegularFile(hlsJs)) {
        properties.put("segment-ledger.console.hls-js", hlsJs.toAbsolutePath().normalize().toString());
      }
      environment.getPropertySources().addLast(new MapPropertySource("recorder-embedded-services", properties));
      context.addApplicationListener((ApplicationListener<ContextClosedEvent>) event -> {
        s3.close();
        try {
          postgres.close();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
      log.info("embedded services: PostgreSQL at {}, S3 at {} (bucket {}), anonymous reads at {}",
          properties.get("spring.datasource.url"), s3.signedEndpoint(), BUCKET, s3.anonymousEndpoint());
    } catch (IOException e) {
      throw new UncheckedIOException("embedded PostgreSQL did not start", e);
    } catch (Exception e) {
      throw new IllegalStateException("the embedded services did not start", e);
    }
  }
}
