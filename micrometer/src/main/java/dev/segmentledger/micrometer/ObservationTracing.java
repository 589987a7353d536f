package dev.segmentledger.micrometer;

import dev.segmentledger.core.spi.Tracing;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.ReceiverContext;
import io.micrometer.observation.transport.SenderContext;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.StringJoiner;

/**
 * The ledger's spans as Micrometer Observations, so that whatever handles observations in the
 * application (Spring Boot's tracing over Brave or OpenTelemetry, a metrics handler) sees them.
 *
 * <p>A registration is a <em>sender</em> observation: its tracing handler writes the span's context
 * into a carrier (for W3C propagation, {@code traceparent} and {@code tracestate}), which this class
 * serializes as the context the rows store. An upload is a <em>receiver</em> observation whose
 * carrier is that stored context, so its span continues the registration's trace on whichever node,
 * in whichever process, uploads the row. Every other span names its parent observation explicitly,
 * so a part sent on another thread still lands under its PUT. Names: {@code segment-ledger.register},
 * {@code segment-ledger.upload}, {@code segment-ledger.repackage}, {@code segment-ledger.put},
 * {@code segment-ledger.put.part}, {@code segment-ledger.confirm},
 * {@code segment-ledger.playlist.publish}; identifiers and sizes are high-cardinality key values.
 * Never throws into the ledger: a handler's failure is logged by Micrometer. Thread-safe.
 */
public final class ObservationTracing implements Tracing {
  private final ObservationRegistry registry;

  private ObservationTracing(ObservationRegistry registry) {
    this.registry = Objects.requireNonNull(registry, "registry");
  }

  /** The ledger's spans as observations of {@code registry}. */
  public static ObservationTracing create(ObservationRegistry registry) {
    return new ObservationTracing(registry);
  }

  @Override
  public Span registration(int files) {
    Map<String, String> carrier = new LinkedHashMap<>();
    SenderContext<Map<String, String>> context = new SenderContext<>((c, key, value) -> c.put(key, value));
    context.setCarrier(carrier);
    Observation observation = Observation.createNotStarted("segment-ledger.register", () -> context, registry)
        .highCardinalityKeyValue("files", String.valueOf(files))
        .start();
    return new ObservationSpan(observation, registry, encode(carrier));
  }

  @Override
  public Span upload(String storedContext, String name) {
    return received(name, decode(storedContext));
  }

  @Override
  public Span root(String name) {
    return received(name, Map.of());
  }

  /** A span continuing the trace of {@code carrier} (a new trace if it holds none). */
  private Span received(String name, Map<String, String> carrier) {
    ReceiverContext<Map<String, String>> context = new ReceiverContext<>((c, key) -> c.get(key));
    context.setCarrier(carrier);
    Observation observation = Observation.createNotStarted(name, () -> context, registry).start();
    return new ObservationSpan(observation, registry, null);
  }

  /** The carrier as stored text: {@code key=value} pairs, URL-encoded, joined by {@code &}; null if empty. */
  static String encode(Map<String, String> carrier) {
    if (carrier.isEmpty()) {
      return null;
    }
    StringJoiner text = new StringJoiner("&");
    carrier.forEach((key, value) -> text.add(URLEncoder.encode(key, StandardCharsets.UTF_8) + "="
        + URLEncoder.encode(value, StandardCharsets.UTF_8)));
    return text.toString();
  }

  /** The carrier of a stored context; empty for {@code null} or text it cannot read. */
  static Map<String, String> decode(String text) {
    Map<String, String> carrier = new LinkedHashMap<>();
    if (text == null || text.isBlank()) {
      return carrier;
    }
    for (String pair : text.split("&")) {
      int equals = pair.indexOf('=');
      if (equals > 0) {
        try {
          carrier.put(URLDecoder.decode(pair.substring(0, equals), StandardCharsets.UTF_8),
              URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
          return new LinkedHashMap<>(); // not a context this class wrote: a new trace
        }
      }
    }
    return carrier;
  }

  /** One observation as a ledger span. */
  private static final class ObservationSpan implements Span {
    private final Observation observation;
    private final ObservationRegistry registry;
    private final String context;

    ObservationSpan(Observation observation, ObservationRegistry registry, String context) {
      this.observation = observation;
      this.registry = registry;
      this.context = context;
    }

    @Override
    public String context() {
      return context;
    }

    @Override
    public Span child(String name) {
      Observation child = Observation.createNotStarted(name, registry).parentObservation(observation).start();
      return new ObservationSpan(child, registry, null);
    }

    @Override
    public Span tag(String key, String value) {
      observation.highCardinalityKeyValue(key, value == null ? "" : value);
      return this;
    }

    @Override
    public void end(Throwable failure) {
      if (failure != null) {
        observation.error(failure);
      }
      observation.stop();
    }
  }
}
