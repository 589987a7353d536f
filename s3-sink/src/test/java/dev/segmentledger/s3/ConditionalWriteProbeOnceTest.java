package dev.segmentledger.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.s3.SentRequests.Sent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * With {@link ConditionalWrites#AUTO}, workers that first use the sink together probe the bucket
 * once: the others wait for its answer (a probe per worker would multiply its requests, and what a
 * killed probe leaves behind).
 */
class ConditionalWriteProbeOnceTest {
  @Test
  void workersStartingTogetherProbeOnce() throws Exception {
    SentRequests recorder = new SentRequests();
    int workers = 8;
    ExecutorService pool = Executors.newFixedThreadPool(workers);
    try (S3ProxyServer server = S3ProxyServer.start();
        S3Client client = S3ProxyServer.client(server.endpoint(), Duration.ofSeconds(30), recorder)) {
      String bucket = server.createBucket(client);
      S3ObjectSink sink = S3ObjectSink.builder().client(client).bucket(bucket)
          .conditionalWrites(ConditionalWrites.AUTO).build();
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Boolean>> answers = new ArrayList<>();
      for (int i = 0; i < workers; i++) {
        answers.add(pool.submit(() -> {
          start.await();
          return sink.sendsConditionalWrites();
        }));
      }
      start.countDown();
      for (Future<Boolean> answer : answers) {
        assertTrue(answer.get(), "S3Proxy refuses an overwriting PUT: every worker hears so");
      }
      List<Sent> created = recorder.sent().stream().filter(s -> s.operation().equals("CreateMultipartUpload"))
          .toList();
      assertEquals(1, created.size(), "one probe (its one-part upload): " + recorder.sent());
    } finally {
      pool.shutdownNow();
    }
  }
}
