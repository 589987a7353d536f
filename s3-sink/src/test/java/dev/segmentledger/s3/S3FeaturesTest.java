package dev.segmentledger.s3;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import java.util.zip.Checksum;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ChecksumMode;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * What the S3 implementation under test does with the features the sink may rely on: conditional
 * writes ({@code If-None-Match: *} on PUT and on CompleteMultipartUpload, {@code If-Match}), a
 * {@code Content-MD5} that does not match the body, the additional checksum headers (CRC32, CRC32C, CRC64NVME: a right value accepted and stored, a wrong
 * one refused), the SDK's default checksum settings, an empty body in the SDK's plain-HTTP signed
 * chunks, the ETag of a single PUT and of a multipart upload, and the order of listings. Each
 * probe's outcome (an HTTP status, with the error code if refused) is printed on one line ({@code
 * S3-FEATURES ...}) and compared with what docs/bucket.md records for S3Proxy 2.9 (the default run),
 * S3Proxy 3.3 (the run with {@code -Ps3proxy-3}) and Ceph RGW 16.2 (the run with {@code -Prgw}): a
 * change of the server's behaviour fails here before it surprises the sink.
 */
class S3FeaturesTest {
  private static final byte[] BODY = "segment ledger probe".getBytes(UTF_8);
  private static final String WRONG_ETAG = "\"00000000000000000000000000000000\"";
  private static S3TestServer server;
  private static S3Client client;
  private static String bucket;

  @BeforeAll
  static void start() throws Exception {
    server = S3TestServer.start();
    client = server.clientTo(server.endpoint(), Duration.ofSeconds(30));
    bucket = server.createBucket(client);
  }

  @AfterAll
  static void stop() throws Exception {
    client.close();
    server.close();
  }

  @Test
  void theServerBehavesAsDocumented() throws Exception {
    Map<String, String> found = new LinkedHashMap<>();
    String existing = put("existing", b -> {});
    found.put("put.if-none-match.absent", outcome(() -> put("absent", b -> b.ifNoneMatch("*"))));
    found.put("put.if-none-match.existing", outcome(() -> put("existing", b -> b.ifNoneMatch("*"))));
    found.put("put.if-match.right", outcome(() -> put("existing", b -> b.ifMatch(etagOf("existing")))));
    found.put("put.if-match.right-unquoted",
        outcome(() -> put("existing", b -> b.ifMatch(etagOf("existing").replace("\"", "")))));
    found.put("put.if-match.wrong", outcome(() -> put("existing", b -> b.ifMatch(WRONG_ETAG))));
    found.put("put.if-match.absent", outcome(() -> put("if-match-absent", b -> b.ifMatch(existing))));
    found.put("complete.if-none-match.absent", outcome(() -> completeOnePart("mpu-absent", "*")));
    put("mpu-existing", b -> {});
    found.put("complete.if-none-match.existing", outcome(() -> completeOnePart("mpu-existing", "*")));
    String otherMd5 = Base64.getEncoder().encodeToString(md5("other bytes".getBytes(UTF_8)));
    found.put("put.content-md5.wrong", outcome(() -> put("wrong-md5", b -> b.contentMD5(otherMd5))));
    for (String algorithm : List.of("CRC32", "CRC32C", "CRC64NVME")) {
      String right = checksum(algorithm, BODY);
      found.put("put.checksum-" + algorithm + ".right", outcome(() -> put("sum-" + algorithm, b -> withChecksum(b, algorithm, right))));
      found.put("put.checksum-" + algorithm + ".stored", storedChecksum("sum-" + algorithm, algorithm, right));
      String wrong = checksum(algorithm, "other bytes".getBytes(UTF_8));
      found.put("put.checksum-" + algorithm + ".wrong", outcome(() -> put("wrong-" + algorithm, b -> withChecksum(b, algorithm, wrong))));
    }
    found.put("put.sdk-default-checksums", outcome(() -> {
      try (S3Client defaults = clientWithSdkDefaults()) {
        defaults.putObject(b -> b.bucket(bucket).key("sdk-defaults"), RequestBody.fromBytes(BODY));
      }
    }));
    found.put("put.empty-in-signed-chunks", outcome(() -> {
      try (S3Client signed = clientSigningPayloads()) {
        signed.putObject(b -> b.bucket(bucket).key("empty"), RequestBody.fromContentProvider(
            () -> new java.io.ByteArrayInputStream(new byte[0]), 0, "application/octet-stream"));
      }
    }));
    found.put("etag.single-put", etagOf("existing").equals(quotedHex(md5(BODY))) ? "md5" : etagOf("existing"));
    String multipart = etagOf("mpu-absent");
    found.put("etag.multipart", multipart.equals("\"" + HexFormat.of().formatHex(md5(md5(BODY))) + "-1\"")
        ? "md5-of-md5s-n" : multipart.contains("-") ? multipart : "no -N suffix");
    found.put("list.objects.order", objectOrder());
    found.put("list.uploads.order-of-one-key", uploadOrder());

    String server = ExternalS3.selected() ? "external" : "s3proxy-" + S3ProxyServer.version();
    System.out.println("S3-FEATURES " + server + " " + found);
    assertEquals(ExternalS3.selected() ? RGW : S3ProxyServer.checksChecksums() ? S3PROXY_3 : S3PROXY, found);
  }

  /** Ceph RGW 16.2.15 (Debian 12's ceph 16.2.15), as .ci/rgw starts it. */
  private static final Map<String, String> RGW = expected(
      "put.if-none-match.absent", "200",
      "put.if-none-match.existing", "412 PreconditionFailed",
      "put.if-match.right", "412 PreconditionFailed", // compares the header with the unquoted ETag
      "put.if-match.right-unquoted", "200",
      "put.if-match.wrong", "412 PreconditionFailed",
      "put.if-match.absent", "412 PreconditionFailed",
      "complete.if-none-match.absent", "200",
      "complete.if-none-match.existing", "200", // ignored: the upload replaces the object
      "put.content-md5.wrong", "400 BadDigest",
      "put.checksum-CRC32.right", "200",
      "put.checksum-CRC32.stored", "not returned",
      "put.checksum-CRC32.wrong", "200", // ignored, not validated
      "put.checksum-CRC32C.right", "200",
      "put.checksum-CRC32C.stored", "not returned",
      "put.checksum-CRC32C.wrong", "200",
      "put.checksum-CRC64NVME.right", "200",
      "put.checksum-CRC64NVME.stored", "not returned",
      "put.checksum-CRC64NVME.wrong", "200",
      "put.sdk-default-checksums", "400 XAmzContentSHA256Mismatch",
      "put.empty-in-signed-chunks", "400 XAmzContentSHA256Mismatch",
      "etag.single-put", "md5",
      "etag.multipart", "md5-of-md5s-n",
      "list.objects.order", "utf-8 binary",
      "list.uploads.order-of-one-key", "upload id");
  /** S3Proxy 2.9.0 in-process, transient-nio2 store. */
  private static final Map<String, String> S3PROXY = expected(
      "put.if-none-match.absent", "200",
      "put.if-none-match.existing", "412 PreconditionFailed",
      "put.if-match.right", "200",
      "put.if-match.right-unquoted", "200",
      "put.if-match.wrong", "412 PreconditionFailed",
      "put.if-match.absent", "404 NoSuchKey",
      "complete.if-none-match.absent", "200",
      "complete.if-none-match.existing", "200", // ignored: the upload replaces the object
      "put.content-md5.wrong", "400 BadDigest",
      "put.checksum-CRC32.right", "501 NotImplemented",
      "put.checksum-CRC32.stored", "no object",
      "put.checksum-CRC32.wrong", "501 NotImplemented",
      "put.checksum-CRC32C.right", "501 NotImplemented",
      "put.checksum-CRC32C.stored", "no object",
      "put.checksum-CRC32C.wrong", "501 NotImplemented",
      "put.checksum-CRC64NVME.right", "200", // a header 2.9 does not know: ignored
      "put.checksum-CRC64NVME.stored", "not returned",
      "put.checksum-CRC64NVME.wrong", "200",
      "put.sdk-default-checksums", "400 XAmzContentSHA256Mismatch",
      "put.empty-in-signed-chunks", "200",
      "etag.single-put", "md5",
      "etag.multipart", "no -N suffix",
      "list.objects.order", "utf-8 binary",
      "list.uploads.order-of-one-key", "upload id");

  /**
   * S3Proxy 3.3.0 in-process ({@code -Ps3proxy-3}), transient-nio2 store: as 2.9, but it checks CRC32
   * and CRC32C (a wrong value refused with {@code 400 BadDigest}, neither kept for a HEAD), ignores
   * CRC64NVME, and accepts the SDK's default checksums.
   */
  private static final Map<String, String> S3PROXY_3 = with(S3PROXY,
      "put.checksum-CRC32.right", "200",
      "put.checksum-CRC32.stored", "not returned",
      "put.checksum-CRC32.wrong", "400 BadDigest",
      "put.checksum-CRC32C.right", "200",
      "put.checksum-CRC32C.stored", "not returned",
      "put.checksum-CRC32C.wrong", "400 BadDigest",
      "put.sdk-default-checksums", "200");

  private static Map<String, String> with(Map<String, String> base, String... pairs) {
    Map<String, String> map = new LinkedHashMap<>(base);
    map.putAll(expected(pairs));
    return map;
  }

  private static Map<String, String> expected(String... pairs) {
    Map<String, String> map = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      map.put(pairs[i], pairs[i + 1]);
    }
    return map;
  }

  private interface Probe {
    void run() throws Exception;
  }

  /** {@code 200}, or the refusal's status and error code. */
  private static String outcome(Probe probe) throws Exception {
    try {
      probe.run();
      return "200";
    } catch (S3Exception e) {
      String code = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
      return e.statusCode() + (code == null || code.isBlank() ? "" : " " + code);
    } catch (SdkException e) {
      return "client: " + e.getClass().getSimpleName();
    }
  }

  private static String put(String key, Consumer<PutObjectRequest.Builder> condition) {
    return client.putObject(b -> {
      b.bucket(bucket).key(key);
      condition.accept(b);
    }, RequestBody.fromBytes(BODY)).eTag();
  }

  private static String etagOf(String key) {
    return client.headObject(b -> b.bucket(bucket).key(key)).eTag();
  }

  private static void completeOnePart(String key, String ifNoneMatch) {
    String upload = client.createMultipartUpload(b -> b.bucket(bucket).key(key)).uploadId();
    String etag = client.uploadPart(b -> b.bucket(bucket).key(key).uploadId(upload).partNumber(1),
        RequestBody.fromBytes(BODY)).eTag();
    try {
      client.completeMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(upload).ifNoneMatch(ifNoneMatch)
          .multipartUpload(m -> m.parts(p -> p.partNumber(1).eTag(etag))));
    } catch (S3Exception e) {
      client.abortMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(upload));
      throw e;
    }
  }

  private static void withChecksum(PutObjectRequest.Builder b, String algorithm, String value) {
    switch (algorithm) {
      case "CRC32" -> b.checksumCRC32(value);
      case "CRC32C" -> b.checksumCRC32C(value);
      default -> b.checksumCRC64NVME(value);
    }
  }

  /** Whether a HEAD with checksum mode returns the value sent: {@code stored}, {@code not returned} or the value. */
  private static String storedChecksum(String key, String algorithm, String sent) {
    try {
      HeadObjectResponse head = client.headObject(b -> b.bucket(bucket).key(key).checksumMode(ChecksumMode.ENABLED));
      String returned = switch (algorithm) {
        case "CRC32" -> head.checksumCRC32();
        case "CRC32C" -> head.checksumCRC32C();
        default -> head.checksumCRC64NVME();
      };
      return returned == null ? "not returned" : returned.equals(sent) ? "stored" : "other: " + returned;
    } catch (S3Exception e) {
      return "no object";
    }
  }

  /** The order of a listing of keys whose binary (UTF-8) order differs from other plausible orders. */
  private static String objectOrder() {
    List<String> keys = List.of("order/a-b", "order/a/b", "order/B", "order/\u00e9", "order/z", "order/a0");
    for (String key : keys) {
      put(key, b -> {});
    }
    List<String> listed = client.listObjectsV2(b -> b.bucket(bucket).prefix("order/")).contents().stream()
        .map(S3Object::key).toList();
    List<String> binary = keys.stream().sorted((x, y) -> Arrays.compareUnsigned(x.getBytes(UTF_8), y.getBytes(UTF_8)))
        .toList();
    return listed.equals(binary) ? "utf-8 binary" : listed.toString();
  }

  /** Three uploads of one key, created one after the other: listed in that order, or how. */
  private static String uploadOrder() {
    List<String> created = List.of(1, 2, 3).stream()
        .map(n -> client.createMultipartUpload(b -> b.bucket(bucket).key("uploads/one")).uploadId()).toList();
    List<String> listed = client.listMultipartUploads(b -> b.bucket(bucket).prefix("uploads/")).uploads().stream()
        .map(u -> u.uploadId()).toList();
    for (String upload : created) {
      client.abortMultipartUpload(b -> b.bucket(bucket).key("uploads/one").uploadId(upload));
    }
    if (listed.equals(created.stream().sorted().toList())) {
      return "upload id";
    }
    return listed.equals(created) ? "creation" : "other";
  }

  private static S3Client clientWithSdkDefaults() {
    return S3Client.builder().endpointOverride(server.endpoint()).region(server.region()).forcePathStyle(true)
        .credentialsProvider(StaticCredentialsProvider.create(server.credentials())).build();
  }

  private static S3Client clientSigningPayloads() {
    return S3Client.builder().endpointOverride(server.endpoint()).region(server.region()).forcePathStyle(true)
        .credentialsProvider(StaticCredentialsProvider.create(server.credentials()))
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED).build();
  }

  static String checksum(String algorithm, byte[] bytes) {
    long value;
    int width;
    switch (algorithm) {
      case "CRC32" -> {
        value = update(new CRC32(), bytes);
        width = 4;
      }
      case "CRC32C" -> {
        value = update(new CRC32C(), bytes);
        width = 4;
      }
      default -> {
        value = crc64Nvme(bytes);
        width = 8;
      }
    }
    ByteBuffer buffer = ByteBuffer.allocate(8).putLong(value);
    return Base64.getEncoder().encodeToString(Arrays.copyOfRange(buffer.array(), 8 - width, 8));
  }

  private static long update(Checksum checksum, byte[] bytes) {
    checksum.update(bytes, 0, bytes.length);
    return checksum.getValue();
  }

  /** CRC-64/NVME: reflected, polynomial 0xad93d23594c93659, initial value and final XOR all ones. */
  static long crc64Nvme(byte[] bytes) {
    long crc = -1L;
    for (byte b : bytes) {
      crc ^= b & 0xffL;
      for (int bit = 0; bit < 8; bit++) {
        crc = (crc & 1) != 0 ? (crc >>> 1) ^ 0x9a6c9329ac4bc9b5L : crc >>> 1;
      }
    }
    return ~crc;
  }

  @Test
  void theCrc64NvmeOfTheProbeIsTheStandardOne() {
    assertEquals(0xae8b14860a799888L, crc64Nvme("123456789".getBytes(UTF_8)), "CRC-64/NVME check value");
  }

  private static byte[] md5(byte[] bytes) throws Exception {
    return MessageDigest.getInstance("MD5").digest(bytes);
  }

  private static String quotedHex(byte[] bytes) {
    return "\"" + HexFormat.of().formatHex(bytes) + "\"";
  }
}
