package dev.segmentledger.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.SinkException;
import dev.segmentledger.s3.ConditionalWrites;
import dev.segmentledger.s3.Integrity;
import dev.segmentledger.s3.S3ObjectSink;
import dev.segmentledger.testkit.contract.ObjectSinkContract;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * {@code --conditional-writes} and {@code --integrity} parse (any case), reach the sink the
 * commands build, and a bad value is a usage error naming the allowed values. The sink's requests
 * are seen by a bucket that stores nothing and answers every request with success, so it ignores
 * {@code If-None-Match}: the probe of {@code AUTO} finds it unsupported.
 */
class S3OptionsTest {
  private static final String KEY = ItemId.original("b1", "720p", 0).objectKey();

  /** A command with only the bucket's options. */
  @Command(name = "test")
  static final class WithS3 {
    @Mixin S3Options s3;
  }

  /** One request as the bucket received it: method, path, and the headers that matter here. */
  record Received(String method, String path, Map<String, List<String>> headers) {
    String header(String name) {
      List<String> values = headers.get(name);
      return values == null ? null : values.get(0);
    }
  }

  private final List<Received> received = new CopyOnWriteArrayList<>();
  private HttpServer bucket;
  private S3Client client;

  @BeforeEach
  void startBucket() throws Exception {
    bucket = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    bucket.createContext("/", exchange -> {
      exchange.getRequestBody().readAllBytes();
      received.add(new Received(exchange.getRequestMethod(), exchange.getRequestURI().getRawPath(),
          Map.copyOf(exchange.getRequestHeaders())));
      boolean delete = exchange.getRequestMethod().equals("DELETE");
      exchange.getResponseHeaders().add("ETag", "\"00000000000000000000000000000001\"");
      exchange.sendResponseHeaders(delete ? 204 : 200, -1);
      exchange.close();
    });
    bucket.start();
    client = S3Client.builder().httpClientBuilder(Apache5HttpClient.builder())
        .endpointOverride(URI.create("http://127.0.0.1:" + bucket.getAddress().getPort()))
        .forcePathStyle(true).region(Region.US_EAST_1)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("id", "secret")))
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .build();
  }

  @AfterEach
  void stopBucket() {
    client.close();
    bucket.stop(0);
  }

  private static S3Options parse(String... args) {
    WithS3 command = new WithS3();
    CommandLine cli = new CommandLine(command);
    cli.setCaseInsensitiveEnumValuesAllowed(true); // as SegmentLedgerCli.run
    cli.parseArgs(args);
    return command.s3;
  }

  @Test
  void withoutTheOptionsTheSinkWritesAsTheLibrarysDefault() {
    S3Options options = parse("--bucket", "recordings");
    assertEquals(ConditionalWrites.OFF, options.conditionalWrites);
    assertEquals(Integrity.MD5_ONLY, options.integrity);

    options.sink(client).put(KEY, ObjectSinkContract.bytes("segment zero"), false);

    assertEquals(List.of("PUT /recordings/" + KEY), paths(), "no probe with the default, OFF");
    assertNull(received.get(0).header("If-none-match"));
    assertNull(received.get(0).header("X-amz-checksum-crc32c"));
  }

  @Test
  void theOptionsReachTheSink() {
    S3Options options = parse("--bucket", "recordings", "--conditional-writes", "auto", "--integrity", "Checksums");
    assertEquals(ConditionalWrites.AUTO, options.conditionalWrites);
    assertEquals(Integrity.CHECKSUMS, options.integrity);

    S3ObjectSink sink = options.sink(client);
    sink.put(KEY, ObjectSinkContract.bytes("segment zero"), false);

    assertTrue(received.get(0).path().startsWith("/recordings/.segment-ledger/probe/"), "the probe first: " + paths());
    assertEquals("*", received.get(0).header("If-none-match"));
    Received put = received.get(received.size() - 1);
    assertEquals("PUT /recordings/" + KEY, put.method() + " " + put.path());
    assertNull(put.header("If-none-match"), "this bucket ignored the header: the probe said so");
    assertTrue(put.header("X-amz-checksum-crc32c") != null, put.headers()::toString);
    assertFalse(sink.sendsConditionalWrites());

    SinkException e = assertThrows(SinkException.class,
        () -> parse("--bucket", "recordings", "--conditional-writes", "REQUIRED").sink(client).sendsConditionalWrites());
    assertEquals(SinkException.Kind.CONFIGURATION, e.failureKind(), "REQUIRED reached the sink: " + e.getMessage());
  }

  @Test
  void aBadValueIsAUsageErrorNamingTheAllowedValues() {
    for (String[] bad : new String[][] {{"--conditional-writes", "sometimes", "[AUTO, REQUIRED, OFF]"},
        {"--integrity", "sha1", "[MD5_ONLY, CHECKSUMS]"}}) {
      StringWriter err = new StringWriter();
      int code = SegmentLedgerCli.run(Clock.systemUTC(), new PrintWriter(new StringWriter()), new PrintWriter(err),
          "reconcile", "b1", "--jdbc-url", "jdbc:postgresql://127.0.0.1:1/x", "--bucket", "b", bad[0], bad[1]);

      assertEquals(SegmentLedgerCli.EXIT_ERROR, code);
      assertTrue(err.toString().contains("Invalid value for option '" + bad[0] + "'"), err.toString());
      assertTrue(err.toString().contains("expected one of " + bad[2]), err.toString());
      assertFalse(err.toString().contains("cannot connect"), "refused before connecting: " + err);
    }
  }

  private List<String> paths() {
    return received.stream().map(r -> r.method() + " " + r.path()).toList();
  }

}
