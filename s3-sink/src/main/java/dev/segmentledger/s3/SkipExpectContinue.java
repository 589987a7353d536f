package dev.segmentledger.s3;

import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;

/**
 * An optional interceptor that removes the {@code Expect: 100-continue} header the SDK puts on every
 * PUT and UploadPart, so that the body follows the headers at once instead of one round trip later.
 * Segments of a few MiB to a nearby server spend a noticeable part of their time waiting for the
 * {@code 100 Continue}; the header only saves sending a body the server would refuse anyway (wrong
 * credentials, missing bucket), which for such segments is cheap. The Apache HTTP client adds the
 * header on its own as well, so turn it off there too:
 *
 * <pre>{@code
 * S3Client.builder()
 *     .httpClientBuilder(ApacheHttpClient.builder().expectContinueEnabled(false))
 *     .overrideConfiguration(o -> o.addExecutionInterceptor(new SkipExpectContinue()))
 *     ...
 * }</pre>
 *
 * <p>Stateless and thread-safe.
 */
public final class SkipExpectContinue implements ExecutionInterceptor {
  private static final String EXPECT = "Expect";

  /** An interceptor; one may serve any number of clients. */
  public SkipExpectContinue() {}

  @Override
  public SdkHttpRequest modifyHttpRequest(Context.ModifyHttpRequest context, ExecutionAttributes attributes) {
    SdkHttpRequest request = context.httpRequest();
    if (request.firstMatchingHeader(EXPECT).isEmpty()) {
      return request;
    }
    return request.toBuilder().removeHeader(EXPECT).build();
  }
}
