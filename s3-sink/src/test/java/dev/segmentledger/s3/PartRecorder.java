package dev.segmentledger.s3;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.s3.model.AbortMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;

/**
 * Records the multipart requests a client makes, as the SDK sees them (part numbers, upload ids
 * and the body lengths before any signing), counts the {@code UploadPart} calls executing at once,
 * and can hold the first {@code UploadPart} calls until a number of them execute together (so a
 * test sees parallel parts without sleeping). Thread-safe.
 */
final class PartRecorder implements ExecutionInterceptor {
  /** One {@code UploadPart} call: which part of which upload, how many body bytes, on which thread. */
  record SentPart(String uploadId, int partNumber, long bytes, String thread) {}

  final List<SentPart> parts = new CopyOnWriteArrayList<>();
  final List<String> created = new CopyOnWriteArrayList<>();
  final List<String> completed = new CopyOnWriteArrayList<>();
  final List<String> aborted = new CopyOnWriteArrayList<>();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicInteger maxInFlight = new AtomicInteger();
  private volatile CountDownLatch gate = new CountDownLatch(0);

  /** Holds each of the next {@code parts} UploadPart calls until all of them are executing (30 s at most). */
  void holdUntilInFlight(int parts) {
    gate = new CountDownLatch(parts);
  }

  int maxInFlight() {
    return maxInFlight.get();
  }

  long bytesSent() {
    return parts.stream().mapToLong(SentPart::bytes).sum();
  }

  List<Integer> partNumbers() {
    return parts.stream().map(SentPart::partNumber).toList();
  }

  void clear() {
    parts.clear();
    created.clear();
    completed.clear();
    aborted.clear();
    maxInFlight.set(0);
  }

  @Override
  public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
    SdkRequest request = context.request();
    if (request instanceof UploadPartRequest part) {
      parts.add(new SentPart(part.uploadId(), part.partNumber(), part.contentLength(), Thread.currentThread().getName()));
      maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
      CountDownLatch held = gate;
      held.countDown();
      try {
        held.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    } else if (request instanceof CreateMultipartUploadRequest create) {
      created.add(create.key());
    } else if (request instanceof CompleteMultipartUploadRequest complete) {
      completed.add(complete.uploadId());
    } else if (request instanceof AbortMultipartUploadRequest abort) {
      aborted.add(abort.uploadId());
    }
  }

  @Override
  public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
    if (context.request() instanceof UploadPartRequest) {
      inFlight.decrementAndGet();
    }
  }

  @Override
  public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes attributes) {
    if (context.request() instanceof UploadPartRequest) {
      inFlight.decrementAndGet();
    }
  }
}
