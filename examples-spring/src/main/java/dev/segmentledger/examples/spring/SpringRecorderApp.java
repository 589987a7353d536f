package dev.segmentledger.examples.spring;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A recorder as a Spring Boot application. Nothing of Segment Ledger is wired in code: the starter
 * builds the ledger from {@code spring.datasource.*} and {@code segment-ledger.*}
 * (application.properties), and {@link SegmentController} only writes segments and registers them.
 *
 * <p>Run it against a PostgreSQL and an S3-compatible store: {@code java -jar ...
 * --spring.datasource.url=jdbc:postgresql://localhost/recorder --segment-ledger.s3.endpoint=...}.
 */
@SpringBootApplication
public class SpringRecorderApp {
  public static void main(String[] args) {
    SpringApplication.run(SpringRecorderApp.class, args);
  }
}
