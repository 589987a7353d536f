package dev.segmentledger.testkit;

import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.testkit.contract.StateStoreContract;

class InMemoryStateStoreContractTest extends StateStoreContract {
  @Override
  protected StateStore newEmptyStore() {
    return new InMemoryStateStore();
  }
}
