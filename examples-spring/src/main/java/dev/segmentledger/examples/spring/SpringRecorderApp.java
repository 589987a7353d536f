package dev.segmentledger.examples.spring;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A recorder as a Spring Boot application. Nothing of Segment Ledger is wired in code: the starter
 * builds the ledger from {@code spring.datasource.*} and {@code segment-ledger.*}
 * (application.properties), and {@link SegmentController} only writes segments and registers them.
 *
 * <p>{@code ./mvnw -pl examples-spring -am spring-boot:run} runs it on embedded defaults
 * ({@link EmbeddedServices}: embedded PostgreSQL and an in-process S3 server) and prints the
 * console's URL. Against your own services: {@code --recorder.embedded=false
 * --spring.datasource.url=jdbc:postgresql://localhost/recorder --segment-ledger.s3.endpoint=...}.
 */
@SpringBootApplication
public class SpringRecorderApp {
  /** The application, with the embedded services' initializer. */
  static SpringApplication application() {
    SpringApplication application = new SpringApplication(SpringRecorderApp.class);
    application.addInitializers(new EmbeddedServices());
    return application;
  }

  public static void main(String[] args) {
    application().run(args);
  }
}
