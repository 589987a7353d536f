package dev.segmentledger.testkit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.segmentledger.core.SinkException;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.testkit.contract.ObjectSinkContract;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DirectoryObjectSinkTest {
  @TempDir Path root;

  @Test
  void aSecondInstanceOnTheSameRootSeesWhatTheFirstStored() throws Exception {
    StoredObjectInfo stored = new DirectoryObjectSink(root).put("b1/720p/init.mp4", ObjectSinkContract.bytes("init"), false);

    DirectoryObjectSink reopened = new DirectoryObjectSink(root);
    assertEquals(List.of(stored), reopened.list(""));
    assertArrayEquals("init".getBytes(UTF_8), Files.readAllBytes(reopened.pathOf("b1/720p/init.mp4")));
  }

  @Test
  void leavesNoTemporaryFilesBehind() throws Exception {
    DirectoryObjectSink sink = new DirectoryObjectSink(root);
    sink.put("b1/720p/init.mp4", ObjectSinkContract.bytes("init"), false);
    sink.put("b1/720p/init.mp4", ObjectSinkContract.bytes("init"), true);

    try (var tmp = Files.list(root.resolve("tmp"))) {
      assertEquals(0, tmp.count());
    }
  }

  @Test
  void refusesKeysThatWouldLeaveTheDirectory() {
    DirectoryObjectSink sink = new DirectoryObjectSink(root);
    for (String key : List.of("../escape", "b1/../../x", "/abs", "b1//x", "", "b1/")) {
      SinkException e = assertThrows(SinkException.class, () -> sink.put(key, ObjectSinkContract.bytes("x"), false), key);
      assertFalse(e.isRetryable(), key);
    }
  }
}
