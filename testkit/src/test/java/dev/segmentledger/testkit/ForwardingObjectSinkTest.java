package dev.segmentledger.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.UploadContent;
import dev.segmentledger.testkit.contract.ObjectSinkContract;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** {@link ForwardingObjectSink#beforeEachPut}: the hook runs before each PUT; everything else is forwarded. */
class ForwardingObjectSinkTest {
  private static final String KEY = "b1/720p/original/0000000001.ts";
  private final FakeObjectSink fake = new FakeObjectSink();

  @Test
  void theHookSeesEachPutsKeyAndContentBeforeTheSinkDoes() {
    List<String> seen = new CopyOnWriteArrayList<>();
    UploadContent content = content("abc");
    ObjectSink sink = ForwardingObjectSink.beforeEachPut(fake, (key, c) -> {
      assertSame(content, c);
      seen.add(key + " stored before: " + fake.head(key).isPresent());
    });

    sink.put(KEY, content, false);
    sink.put(KEY, content, true);

    assertEquals(List.of(KEY + " stored before: false", KEY + " stored before: true"), seen);
    assertEquals(fake.head(KEY), sink.head(KEY));
    assertEquals(fake.list("b1/"), sink.list("b1/"));
  }

  @Test
  void whatTheHookThrowsIsWhatThePutThrowsAndNothingIsStored() {
    ObjectSink sink = ForwardingObjectSink.beforeEachPut(fake, (key, c) -> {
      throw new IllegalStateException("refused by the hook");
    });

    assertEquals("refused by the hook",
        assertThrows(IllegalStateException.class, () -> sink.put(KEY, content("abc"), false)).getMessage());
    assertEquals(Optional.empty(), fake.head(KEY));
  }

  private static UploadContent content(String text) {
    return ObjectSinkContract.bytes(text);
  }
}
