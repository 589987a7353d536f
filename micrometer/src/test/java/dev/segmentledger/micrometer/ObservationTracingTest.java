package dev.segmentledger.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerBuilder;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.Tracing;
import dev.segmentledger.core.spi.UploadContent;
import dev.segmentledger.testkit.FakeObjectSink;
import dev.segmentledger.testkit.ForwardingObjectSink;
import dev.segmentledger.testkit.InMemoryStateStore;
import dev.segmentledger.testkit.SettableClock;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelBaggageManager;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One trace from register to confirm, across nodes: a recorder registers a file inside its own
 * span on node A; node B (another ledger on the same store, as another process or a restarted one
 * would be) uploads and confirms it. OpenTelemetry (through Micrometer Tracing's bridge, as Spring
 * Boot wires it) records the spans in memory: the registration is a child of the recorder's span,
 * node B's upload a child of the registration (its context came through the row), and the PUT, its
 * parts and the confirm children of the upload, all in one trace.
 */
class ObservationTracingTest {
  @TempDir Path temp;

  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private final OtelTracer tracer;
  private final ObservationRegistry registry = ObservationRegistry.create();

  ObservationTracingTest() {
    SdkTracerProvider provider = SdkTracerProvider.builder()
        .addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
    OpenTelemetrySdk otel = OpenTelemetrySdk.builder().setTracerProvider(provider)
        .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance())).build();
    io.opentelemetry.api.trace.Tracer otelTracer = otel.getTracer("segment-ledger-test");
    OtelCurrentTraceContext current = new OtelCurrentTraceContext();
    tracer = new OtelTracer(otelTracer, current, event -> { },
        new OtelBaggageManager(current, List.of(), List.of()));
    OtelPropagator propagator = new OtelPropagator(otel.getPropagators(), otelTracer);
    registry.observationConfig().observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
        new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
        new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
        new DefaultTracingObservationHandler(tracer)));
  }

  @Test
  void oneTraceSpansTheRecordersCallTheRegistrationAndAnotherNodesUploadPartsAndConfirm() throws Exception {
    Path root = Files.createDirectories(temp.resolve("root"));
    Path file = Files.writeString(root.resolve("segment.ts"), "recorded bytes", StandardCharsets.UTF_8);
    InMemoryStateStore store = new InMemoryStateStore();
    SettableClock clock = SettableClock.atFixedStart();
    ObjectSink sink = new TwoParts(new FakeObjectSink());
    Tracing tracing = ObservationTracing.create(registry);
    ItemId id = ItemId.original("b1", "720p", 7);

    try (ManualLedger nodeA = builder(store, sink, root, clock, tracing).nodeId("node-a").buildManual()) {
      io.micrometer.tracing.Span recorder = tracer.nextSpan().name("recorder.close-file").start();
      try (io.micrometer.tracing.Tracer.SpanInScope scope = tracer.withSpan(recorder)) {
        nodeA.register(id, file); // node A never uploads it: it has no worker here
      } finally {
        recorder.end();
      }
    }
    assertNotNull(store.find(id).orElseThrow().traceContext(), "the registration's context is on the row");
    clock.advance(java.time.Duration.ofMinutes(1)); // node A's registration lease is long gone
    try (ManualLedger nodeB = builder(store, sink, root, clock, tracing).nodeId("node-b").buildManual()) {
      nodeB.sweepRound();
      assertEquals(1, nodeB.drainQueue());
    }
    assertEquals(ItemState.CONFIRMED, store.find(id).orElseThrow().state());

    Map<String, SpanData> spans = exporter.getFinishedSpanItems().stream()
        .collect(Collectors.toMap(SpanData::getName, Function.identity(), (a, b) -> a));
    SpanData recorded = spans.get("recorder.close-file");
    SpanData register = spans.get("segment-ledger.register");
    SpanData upload = spans.get("segment-ledger.upload");
    SpanData put = spans.get("segment-ledger.put");
    SpanData confirm = spans.get("segment-ledger.confirm");
    List<SpanData> parts = exporter.getFinishedSpanItems().stream()
        .filter(span -> span.getName().equals("segment-ledger.put.part")).toList();
    assertNotNull(register, spans.keySet()::toString);
    assertNotNull(upload, spans.keySet()::toString);
    assertEquals(recorded.getSpanId(), register.getParentSpanId(), "the registration is the recorder's child");
    assertEquals(register.getSpanId(), upload.getParentSpanId(), "node B's upload continues the registration");
    assertEquals(upload.getSpanId(), put.getParentSpanId());
    assertEquals(upload.getSpanId(), confirm.getParentSpanId());
    assertEquals(2, parts.size());
    assertTrue(parts.stream().allMatch(part -> part.getParentSpanId().equals(put.getSpanId())));
    String trace = recorded.getTraceId();
    for (SpanData span : exporter.getFinishedSpanItems()) {
      assertEquals(trace, span.getTraceId(), span.getName() + " is in the recorder's trace");
    }
  }

  @Test
  void aStoredContextSurvivesItsTextAndAnUnreadableOneStartsANewTrace() {
    String context = ObservationTracing.encode(Map.of("traceparent",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"));
    assertEquals("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        ObservationTracing.decode(context).get("traceparent"));
    assertTrue(ObservationTracing.decode("%zz=broken").isEmpty());
    assertTrue(ObservationTracing.decode(null).isEmpty());
  }

  private static LedgerBuilder builder(InMemoryStateStore store, ObjectSink sink, Path root, SettableClock clock,
      Tracing tracing) {
    return Ledger.builder().stateStore(store).objectSink(sink).allowedRoot(root).clock(clock).tracing(tracing);
  }

  /** A sink that reports sending the content in two parts, as a multipart sink does, then stores it. */
  private static final class TwoParts extends ForwardingObjectSink {
    private final ObjectSink sink;

    TwoParts(ObjectSink sink) {
      this.sink = sink;
    }

    @Override
    protected ObjectSink delegate() {
      return sink;
    }

    @Override
    public StoredObjectInfo put(String key, UploadContent content, boolean mayExist) {
      long half = content.size() / 2;
      content.part(1, 0, half).end();
      content.part(2, half, content.size() - half).end();
      return sink.put(key, content, mayExist);
    }
  }
}
