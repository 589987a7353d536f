package dev.segmentledger.testkit;

import dev.segmentledger.core.spi.ObjectSink;

class FakeObjectSinkContractTest extends ObjectSinkContract {
  @Override
  protected ObjectSink newSink() {
    return new FakeObjectSink();
  }
}
