package dev.segmentledger.s3;

import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;

/**
 * {@link ConditionalWritesCases} against a server that ignores {@code If-None-Match} (S3Proxy with
 * the header removed from every request before signing): detection must say unsupported and the
 * sink must work as before, overwriting.
 */
class HeaderIgnoringServerConditionalWritesTest extends ConditionalWritesCases {
  @Override
  protected S3TestServer startServer() throws Exception {
    return S3ProxyServer.start();
  }

  @Override
  protected ExecutionInterceptor[] interceptors() {
    ExecutionInterceptor dropIfNoneMatch = new ExecutionInterceptor() {
      @Override
      public SdkHttpRequest modifyHttpRequest(Context.ModifyHttpRequest context, ExecutionAttributes attributes) {
        return context.httpRequest().toBuilder().removeHeader("If-None-Match").build();
      }
    };
    return new ExecutionInterceptor[] {dropIfNoneMatch};
  }

  @Override
  protected boolean refusesOverwrites() {
    return false;
  }

  @Override
  protected boolean refusesOverwritingCompletions() {
    return false;
  }
}
