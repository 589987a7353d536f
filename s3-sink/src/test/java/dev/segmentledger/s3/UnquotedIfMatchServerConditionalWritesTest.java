package dev.segmentledger.s3;

import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;

/**
 * {@link ConditionalWritesCases} against a server that compares {@code If-Match} with the ETag
 * without its quotes, as Ceph RGW 16.2 does (S3Proxy, with a quoted {@code If-Match} replaced by one
 * that never matches before signing): the probe must find the unquoted form, and the sink must use
 * it.
 */
class UnquotedIfMatchServerConditionalWritesTest extends ConditionalWritesCases {
  @Override
  protected S3TestServer startServer() throws Exception {
    return S3ProxyServer.start();
  }

  @Override
  protected ExecutionInterceptor[] interceptors() {
    ExecutionInterceptor quotedNeverMatches = new ExecutionInterceptor() {
      @Override
      public SdkHttpRequest modifyHttpRequest(Context.ModifyHttpRequest context, ExecutionAttributes attributes) {
        SdkHttpRequest request = context.httpRequest();
        return request.firstMatchingHeader("If-Match").filter(v -> v.startsWith("\""))
            .map(v -> request.toBuilder().putHeader("If-Match", "never-matches").build()).orElse(request);
      }
    };
    return new ExecutionInterceptor[] {quotedNeverMatches};
  }

  @Override
  protected boolean refusesOverwrites() {
    return true;
  }

  @Override
  protected boolean refusesOverwritingCompletions() {
    return false;
  }
}
