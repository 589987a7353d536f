package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.Registration;
import dev.segmentledger.testkit.PutAttempt.Outcome;
import dev.segmentledger.testkit.PutAttempt;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A recorder that restarts after a crash and registers its files again finds their rows already
 * there. Such a row may have been uploaded in part or in whole by the dead process (an S3 multipart
 * upload left unfinished, or an object stored before its confirm), so its upload is a retry: the sink
 * gets {@code mayExist}, which lets it skip an identical object and abort the dead process's
 * unfinished uploads of the key.
 */
class ReRegisteredRowTest {
  @TempDir Path temp;

  @Test
  void aRowRegisteredAgainAfterACrashIsUploadedAsARetry() {
    LedgerFixture f = new LedgerFixture(temp);
    ItemId id = ItemId.original("b1", "720p", 0);
    Path file = f.record(id);
    ManualLedger dead = f.builder().nodeId("recorder-1").buildManual();
    dead.register(id, file); // queued, never uploaded to the end: the process dies mid-PUT
    f.sink.leaveUnfinishedUpload(id.objectKey(), Instant.now());

    ManualLedger restarted = f.builder().nodeId("recorder-1").buildManual();
    Registration again = restarted.register(id, file);
    restarted.drainQueue();

    assertFalse(again.created(), "the row was there");
    assertEquals(ItemState.CONFIRMED, f.store.find(id).orElseThrow().state());
    assertEquals(List.of(new PutAttempt(id.objectKey(), f.store.find(id).orElseThrow().sizeBytes(), true,
        Outcome.STORED)), f.sink.attempts(), "one PUT, as a retry");
    assertEquals(List.of(), f.sink.listUnfinishedUploads(""), "the dead process's upload is aborted");
  }
}
