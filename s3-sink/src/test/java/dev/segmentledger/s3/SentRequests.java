package dev.segmentledger.s3;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.http.SdkHttpRequest;

/**
 * Records every request an SDK client sends, as sent (operation and headers), for tests that check
 * headers on the wire where the server does not. Thread-safe.
 */
final class SentRequests implements ExecutionInterceptor {
  /** One request as the SDK sent it: operation and headers. */
  record Sent(String operation, SdkHttpRequest request) {
    String header(String name) {
      return request.firstMatchingHeader(name).orElse(null);
    }
  }

  private final List<Sent> sent = new CopyOnWriteArrayList<>();

  /** The requests sent so far, live: cleared with {@code clear()}. */
  List<Sent> sent() {
    return sent;
  }

  @Override
  public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
    sent.add(new Sent(attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME), context.httpRequest()));
  }
}
