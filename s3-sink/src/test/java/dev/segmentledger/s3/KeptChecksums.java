package dev.segmentledger.s3;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.SdkHttpResponse;

/**
 * Makes a server that accepts S3's checksum headers without keeping them (S3Proxy started with
 * {@link S3ProxyServer#startIgnoringUnknownHeaders()}) answer as AWS S3 does: the full-object CRC32C
 * a successful {@code PutObject} or {@code FULL_OBJECT} {@code CompleteMultipartUpload} sent is
 * kept per object, and a {@code HEAD} with {@code x-amz-checksum-mode: ENABLED} reports it ({@code
 * x-amz-checksum-crc32c}, {@code x-amz-checksum-type: FULL_OBJECT}). A write without one, or a
 * delete, forgets it. Give the same instance to every client of the server, so that all writers
 * share what it keeps. Thread-safe.
 */
public final class KeptChecksums implements ExecutionInterceptor {
  private final Map<String, String> crc32cByPath = new ConcurrentHashMap<>();

  @Override
  public SdkHttpResponse modifyHttpResponse(Context.ModifyHttpResponse context, ExecutionAttributes attributes) {
    SdkHttpRequest request = context.httpRequest();
    SdkHttpResponse response = context.httpResponse();
    if (!response.isSuccessful()) {
      return response;
    }
    String path = request.encodedPath();
    String crc32c = request.firstMatchingHeader("x-amz-checksum-crc32c").orElse(null);
    switch (attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME)) {
      case "PutObject" -> remember(path, crc32c);
      case "CompleteMultipartUpload" -> remember(path,
          "FULL_OBJECT".equals(request.firstMatchingHeader("x-amz-checksum-type").orElse(null)) ? crc32c : null);
      case "DeleteObject" -> crc32cByPath.remove(path);
      case "HeadObject" -> {
        String kept = crc32cByPath.get(path);
        if (kept != null && request.firstMatchingHeader("x-amz-checksum-mode").filter("ENABLED"::equals).isPresent()) {
          return response.toBuilder().putHeader("x-amz-checksum-crc32c", kept)
              .putHeader("x-amz-checksum-type", "FULL_OBJECT").build();
        }
      }
      default -> { }
    }
    return response;
  }

  private void remember(String path, String crc32c) {
    if (crc32c == null) {
      crc32cByPath.remove(path);
    } else {
      crc32cByPath.put(path, crc32c);
    }
  }
}
