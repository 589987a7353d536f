package dev.segmentledger.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.SinkException;
import dev.segmentledger.core.StoredObjectInfo;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * {@link ConditionalWritesCases} against a server that honours {@code If-None-Match: *} on {@code
 * CompleteMultipartUpload} as S3 does (S3Proxy ignores it there): the client's {@link
 * ConditionalCompletions} answers a conditional completion of a key that holds an object with {@code
 * 412 PreconditionFailed}, or, when told to, with {@code 409 ConditionalRequestConflict} (a concurrent
 * write to the key in progress), in both cases without the server completing anything: the upload
 * stays, with its parts, as on S3. The probe then finds completions honoured, so {@code AUTO} sends
 * the header on them.
 */
class CompletionRefusingServerConditionalWritesTest extends ConditionalWritesCases {
  private final ConditionalCompletions completions = new ConditionalCompletions();

  @Override
  protected S3TestServer startServer() throws Exception {
    return S3ProxyServer.start();
  }

  @Override
  protected ExecutionInterceptor[] interceptors() {
    return new ExecutionInterceptor[] {completions};
  }

  @Override
  protected boolean refusesOverwrites() {
    return true;
  }

  @Override
  protected boolean refusesOverwritingCompletions() {
    return true;
  }

  @BeforeEach
  void resetCompletions() {
    completions.conflictsToAnswer.set(0);
    completions.refused.set(0);
  }

  private S3ObjectSink sink() {
    return S3ObjectSink.builder().client(client()).bucket(bucket).prefix("rec/").multipartThreshold(5 * MIB)
        .partSize(5 * MIB).conditionalWrites(ConditionalWrites.AUTO).build();
  }

  private List<MultipartUpload> uploadsInBucket() {
    return client().listMultipartUploads(b -> b.bucket(bucket)).uploads();
  }

  @Test
  void aCompletionRefusedOnAKeyHoldingTheSameContentIsConfirmedAndItsUploadAborted() {
    S3ObjectSink sink = sink();
    byte[] data = TestContent.randomBytes(6 * MIB, 1);
    StoredObjectInfo first = sink.put(KEY, TestContent.of(data), false);
    int refusedBefore = completions.refused.get(); // the probe's own refusal

    StoredObjectInfo second = sink.put(KEY, TestContent.of(data), false);

    assertEquals(refusedBefore + 1, completions.refused.get(), "the second completion was refused with 412");
    assertEquals(first, second);
    assertEquals(Optional.of(first), sink.head(KEY));
    assertEquals(List.of(), uploadsInBucket());
  }

  @Test
  void aCompletionRefusedOnAKeyHoldingOtherContentIsAPermanentConflictAndItsUploadAborted() {
    S3ObjectSink sink = sink();
    StoredObjectInfo first = sink.put(KEY, TestContent.of(TestContent.randomBytes(6 * MIB, 1)), false);
    int refusedBefore = completions.refused.get();

    for (boolean mayExist : new boolean[] {false, true}) {
      SinkException e = assertThrows(SinkException.class,
          () -> sink.put(KEY, TestContent.of(TestContent.randomBytes(6 * MIB, 2)), mayExist));
      assertEquals(SinkException.Kind.PERMANENT, e.failureKind());
      assertTrue(e.getMessage().startsWith(S3ObjectSink.CONFLICT), e.getMessage());
      assertEquals(Optional.of(first), sink.head(KEY));
      assertEquals(List.of(), uploadsInBucket());
    }
    assertEquals(refusedBefore + 2, completions.refused.get());
  }

  @Test
  void aConflictingCompletionFailsRetryablyAbortsItsUploadAndTheRetrySucceeds() {
    S3ObjectSink sink = sink();
    sink.sendsConditionalCompletions(); // the probe runs before the conflict is armed
    byte[] data = TestContent.randomBytes(6 * MIB, 1);
    completions.conflictsToAnswer.set(1);

    SinkException e = assertThrows(SinkException.class, () -> sink.put(KEY, TestContent.of(data), false));

    assertEquals(SinkException.Kind.TRANSIENT, e.failureKind(), e.getMessage());
    assertEquals(0, completions.conflictsToAnswer.get(), "the completion was answered 409");
    assertEquals(Optional.empty(), sink.head(KEY));
    assertEquals(List.of(), uploadsInBucket());

    StoredObjectInfo stored = sink.put(KEY, TestContent.of(data), true);
    assertEquals(Optional.of(stored), sink.head(KEY));
    assertEquals(data.length, stored.sizeBytes());
    assertEquals(List.of(), uploadsInBucket());
  }

  /**
   * Makes the server honour {@code If-None-Match: *} on {@code CompleteMultipartUpload} as S3 does: a
   * conditional completion of a key that holds an object ({@code HEAD} through the same client), or
   * any conditional completion while {@link #conflictsToAnswer} is positive, is sent with an upload
   * id the server does not know (so nothing is completed) and its answer replaced by S3's {@code
   * 412 PreconditionFailed} or {@code 409 ConditionalRequestConflict} error document.
   */
  private final class ConditionalCompletions implements ExecutionInterceptor {
    private static final ExecutionAttribute<Integer> REFUSAL = new ExecutionAttribute<>("test refusal status");
    /** How many conditional completions to come are answered 409. */
    final AtomicInteger conflictsToAnswer = new AtomicInteger();
    /** How many were answered 412. */
    final AtomicInteger refused = new AtomicInteger();

    @Override
    public SdkHttpRequest modifyHttpRequest(Context.ModifyHttpRequest context, ExecutionAttributes attributes) {
      if (!(context.request() instanceof CompleteMultipartUploadRequest complete)
          || !"*".equals(complete.ifNoneMatch())) {
        return context.httpRequest();
      }
      int status;
      if (conflictsToAnswer.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        status = 409;
      } else if (exists(complete)) {
        status = 412;
        refused.incrementAndGet();
      } else {
        return context.httpRequest();
      }
      attributes.putAttribute(REFUSAL, status);
      return context.httpRequest().toBuilder().putRawQueryParameter("uploadId", "refused-by-the-test").build();
    }

    private boolean exists(CompleteMultipartUploadRequest complete) {
      try {
        client().headObject(b -> b.bucket(complete.bucket()).key(complete.key()));
        return true;
      } catch (S3Exception e) {
        if (e.statusCode() == 404) {
          return false;
        }
        throw e;
      }
    }

    @Override
    public SdkHttpResponse modifyHttpResponse(Context.ModifyHttpResponse context, ExecutionAttributes attributes) {
      Integer status = attributes.getAttribute(REFUSAL);
      if (status == null) {
        return context.httpResponse();
      }
      return context.httpResponse().toBuilder().statusCode(status)
          .statusText(status == 412 ? "Precondition Failed" : "Conflict")
          .putHeader("Content-Type", "application/xml")
          .putHeader("Content-Length", String.valueOf(errorDocument(status).length))
          .build();
    }

    @Override
    public Optional<InputStream> modifyHttpResponseContent(Context.ModifyHttpResponse context,
        ExecutionAttributes attributes) {
      Integer status = attributes.getAttribute(REFUSAL);
      return status == null ? context.responseBody() : Optional.of(new ByteArrayInputStream(errorDocument(status)));
    }

    private static byte[] errorDocument(int status) {
      String error = status == 412
          ? "<Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not"
              + " hold</Message><Condition>If-None-Match</Condition>"
          : "<Code>ConditionalRequestConflict</Code><Message>A conflicting conditional operation is currently in"
              + " progress against this resource. Please try again.</Message>";
      return ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error>" + error + "<RequestId>test</RequestId></Error>")
          .getBytes(StandardCharsets.UTF_8);
    }
  }
}
