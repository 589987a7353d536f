package dev.segmentledger.testkit;

import dev.segmentledger.testkit.contract.StateStoreContract;
import dev.segmentledger.core.spi.StateStore;

class InMemoryStateStoreContractTest extends StateStoreContract {
  @Override
  protected StateStore newEmptyStore() {
    return new InMemoryStateStore();
  }
}
