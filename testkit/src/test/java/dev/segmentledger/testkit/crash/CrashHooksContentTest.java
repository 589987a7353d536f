package dev.segmentledger.testkit.crash;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.UploadContent;
import dev.segmentledger.testkit.FakeObjectSink;
import dev.segmentledger.testkit.ForwardingObjectSink;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The content a crash-hooked sink sees behaves as the ledger's: its progress reports get through. */
class CrashHooksContentTest {
  @Test
  void theSinksProgressReportsReachTheContent() {
    FakeObjectSink fake = new FakeObjectSink();
    ObjectSink reporting = ForwardingObjectSink.beforeEachPut(fake, (key, content) -> {
      content.reportStored(3);
      content.reportStored(6);
    });
    // A point that never fires during a put: the hooks only wrap the content here.
    ObjectSink hooked = new CrashHooks(CrashPoint.AFTER_CONFIRM, Axis.ORIGINAL, 1, CrashMode.HALT).wrap(reporting);
    List<Long> reported = new CopyOnWriteArrayList<>();

    hooked.put("b1/720p/original/0000000001.ts", new UploadContent() {
      @Override
      public long size() {
        return 6;
      }

      @Override
      public InputStream openStream() {
        return new ByteArrayInputStream(new byte[6]);
      }

      @Override
      public void reportStored(long bytes) {
        reported.add(bytes);
      }
    }, false);

    assertEquals(List.of(3L, 6L), reported);
  }
}
