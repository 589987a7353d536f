package dev.segmentledger.testkit;

import dev.segmentledger.core.UnfinishedUpload;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.testkit.contract.ObjectSinkContract;
import java.time.Instant;

/** The sink contract on a {@link FakeObjectSink} with conditional writes on. */
class ConditionalFakeObjectSinkContractTest extends ObjectSinkContract {
  @Override
  protected ObjectSink newSink() {
    return new FakeObjectSink().conditionalPuts(true);
  }

  @Override
  protected UnfinishedUpload leaveUnfinishedUpload(String key) {
    return ((FakeObjectSink) sink).leaveUnfinishedUpload(key, Instant.parse("2026-01-01T00:00:00Z"));
  }
}
