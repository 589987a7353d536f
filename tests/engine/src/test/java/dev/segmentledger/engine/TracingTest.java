package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.spi.Tracing;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ledger's spans: a registration's context is stored with its rows and every upload of them
 * continues it, with the repackage, PUT and confirm as children; and a tracer that throws costs
 * spans, never an upload.
 */
class TracingTest {
  @TempDir Path temp;

  @Test
  void everyUploadOfARegistrationsRowsContinuesItsTraceWithPutAndConfirmAsChildren() {
    LedgerFixture f = new LedgerFixture(temp);
    RecordingTracing tracing = new RecordingTracing();
    ManualLedger ledger = f.repackagingBuilder().publishPlaylists(false).tracing(tracing).buildManual();
    ItemId original = ItemId.original("b1", "720p", 0);

    ledger.register(original, f.record(original));
    LedgerFixture.settle(ledger);

    assertEquals(ItemState.CONFIRMED, ledger.find(original).orElseThrow().state());
    assertEquals(ItemState.CONFIRMED, ledger.find(ItemId.playback("b1", "720p", 0)).orElseThrow().state());
    List<Recorded> registrations = tracing.named("segment-ledger.register");
    assertEquals(1, registrations.size());
    String registered = registrations.get(0).context;
    List<Recorded> uploads = tracing.named("segment-ledger.upload");
    assertEquals(3, uploads.size(), "one upload each for the original, its playback segment and its init");
    for (Recorded upload : uploads) {
      assertEquals(registered, upload.parent, upload.tags + " continues the registration's trace");
      Map<String, Long> children = tracing.childrenOf(upload);
      assertEquals(1L, children.get("segment-ledger.put"), upload.tags + ": " + children);
      assertEquals(1L, children.get("segment-ledger.confirm"), upload.tags + ": " + children);
    }
    List<Recorded> repackages = tracing.named("segment-ledger.repackage");
    assertEquals(2, repackages.size(), "the playback segment's and the init's");
    List<String> uploadContexts = uploads.stream().map(upload -> upload.context).toList();
    assertTrue(repackages.stream().allMatch(span -> uploadContexts.contains(span.parent)), "under their uploads");
    assertTrue(tracing.spans.stream().allMatch(span -> span.ended.get() == 1), "every span ended once");
  }

  @Test
  void aTracerThatThrowsOnEveryCallCostsSpansNeverAnUpload() {
    LedgerFixture f = new LedgerFixture(temp);
    ManualLedger ledger = f.repackagingBuilder().publishPlaylists(false).tracing(new ThrowingTracing()).buildManual();
    ItemId original = ItemId.original("b1", "720p", 0);

    ledger.register(original, f.record(original));
    LedgerFixture.settle(ledger);

    assertEquals(ItemState.CONFIRMED, ledger.find(original).orElseThrow().state());
    assertEquals(ItemState.CONFIRMED, ledger.find(ItemId.playback("b1", "720p", 0)).orElseThrow().state());
    assertEquals(ItemState.CONFIRMED, ledger.find(ItemId.init("b1", "720p")).orElseThrow().state());
  }

  /** A span as recorded: its name, its own context and its parent's (null for a root). */
  private static final class Recorded implements Tracing.Span {
    final RecordingTracing tracing;
    final String name;
    final String context;
    final String parent;
    final Map<String, String> tags = new ConcurrentHashMap<>();
    final AtomicInteger ended = new AtomicInteger();

    Recorded(RecordingTracing tracing, String name, String parent) {
      this.tracing = tracing;
      this.name = name;
      this.context = "span-" + tracing.ids.incrementAndGet();
      this.parent = parent;
      tracing.spans.add(this);
    }

    @Override
    public String context() {
      return context;
    }

    @Override
    public Tracing.Span child(String childName) {
      return new Recorded(tracing, childName, context);
    }

    @Override
    public Tracing.Span tag(String key, String value) {
      tags.put(key, value);
      return this;
    }

    @Override
    public void end(Throwable failure) {
      ended.incrementAndGet();
    }
  }

  /** Records every span in memory, contexts as plain strings. */
  private static final class RecordingTracing implements Tracing {
    final List<Recorded> spans = new CopyOnWriteArrayList<>();
    final AtomicInteger ids = new AtomicInteger();

    @Override
    public Span registration(int files) {
      return new Recorded(this, "segment-ledger.register", null);
    }

    @Override
    public Span upload(String storedContext, String name) {
      return new Recorded(this, name, storedContext);
    }

    @Override
    public Span root(String name) {
      return new Recorded(this, name, null);
    }

    List<Recorded> named(String name) {
      return spans.stream().filter(span -> span.name.equals(name)).toList();
    }

    Map<String, Long> childrenOf(Recorded span) {
      assertNotNull(span.context);
      return spans.stream().filter(child -> span.context.equals(child.parent))
          .collect(Collectors.groupingBy(child -> child.name, Collectors.counting()));
    }
  }

  /** Throws from every call, as a broken tracing library might. */
  private static final class ThrowingTracing implements Tracing {
    @Override
    public Span registration(int files) {
      return new ThrowingSpan();
    }

    @Override
    public Span upload(String storedContext, String name) {
      throw new IllegalStateException("broken tracer");
    }

    @Override
    public Span root(String name) {
      throw new IllegalStateException("broken tracer");
    }
  }

  /** A span whose every method throws. */
  private static final class ThrowingSpan implements Tracing.Span {
    @Override
    public String context() {
      throw new IllegalStateException("broken span");
    }

    @Override
    public Tracing.Span child(String name) {
      throw new IllegalStateException("broken span");
    }

    @Override
    public Tracing.Span tag(String key, String value) {
      throw new IllegalStateException("broken span");
    }

    @Override
    public void end(Throwable failure) {
      throw new IllegalStateException("broken span");
    }
  }
}
