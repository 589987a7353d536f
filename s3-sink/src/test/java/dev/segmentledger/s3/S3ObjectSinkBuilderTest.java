package dev.segmentledger.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.URI;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

class S3ObjectSinkBuilderTest {
  @Test
  void requiresClientAndBucket() {
    assertThrows(IllegalStateException.class, () -> S3ObjectSink.builder().bucket("b").build());
    assertThrows(IllegalArgumentException.class, () -> S3ObjectSink.builder().bucket(" "));
  }

  @Test
  void refusesPartSizesS3Refuses() {
    assertThrows(IllegalArgumentException.class, () -> S3ObjectSink.builder().partSize(5 * 1024 * 1024 - 1));
    assertThrows(IllegalArgumentException.class, () -> S3ObjectSink.builder().partSize(5L * 1024 * 1024 * 1024 + 1));
    assertThrows(IllegalArgumentException.class, () -> S3ObjectSink.builder().multipartThreshold(0));
  }

  @Test
  void refusesAPartConcurrencyOutsideOneToThirtyTwo() {
    assertThrows(IllegalArgumentException.class, () -> S3ObjectSink.builder().partConcurrency(0));
    assertThrows(IllegalArgumentException.class, () -> S3ObjectSink.builder().partConcurrency(33));
    S3ObjectSink.builder().partConcurrency(1).partConcurrency(32);
  }

  @Test
  void buildCopiesTheSettings() {
    try (S3Client client = S3Client.builder().region(Region.US_EAST_1).endpointOverride(URI.create("http://127.0.0.1:1"))
        .build()) {
      S3ObjectSink.Builder builder = S3ObjectSink.builder().client(client).bucket("first").prefix("p/");
      S3ObjectSink sink = builder.build();
      builder.bucket("second").prefix("q/");

      assertEquals("S3ObjectSink[s3://first/p/]", sink.toString());
    }
  }
}
