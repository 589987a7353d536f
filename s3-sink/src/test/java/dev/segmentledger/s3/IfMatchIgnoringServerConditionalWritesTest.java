package dev.segmentledger.s3;

import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;

/**
 * {@link ConditionalWritesCases} against a server that honours {@code If-None-Match: *} but ignores
 * {@code If-Match} (S3Proxy with that header removed before signing): items are still written once,
 * and rewritten objects (playlists) are written unconditionally, as before.
 */
class IfMatchIgnoringServerConditionalWritesTest extends ConditionalWritesCases {
  @Override
  protected S3TestServer startServer() throws Exception {
    return S3ProxyServer.start();
  }

  @Override
  protected ExecutionInterceptor[] interceptors() {
    ExecutionInterceptor dropIfMatch = new ExecutionInterceptor() {
      @Override
      public SdkHttpRequest modifyHttpRequest(Context.ModifyHttpRequest context, ExecutionAttributes attributes) {
        return context.httpRequest().toBuilder().removeHeader("If-Match").build();
      }
    };
    return new ExecutionInterceptor[] {dropIfMatch};
  }

  @Override
  protected boolean refusesOverwrites() {
    return true;
  }

  @Override
  protected boolean refusesOverwritingCompletions() {
    return false;
  }

  @Override
  protected boolean honoursIfMatch() {
    return false;
  }
}
