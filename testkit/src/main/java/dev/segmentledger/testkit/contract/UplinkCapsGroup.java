package dev.segmentledger.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.spi.StoredUplinkCap;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The {@link StateStoreContract} group on stored uplink caps: {@code putUplinkCap} stores or
 * replaces a node's cap, {@code uplinkCaps} reads them all in node order with their values and
 * time, {@code removeUplinkCap} removes one and says whether there was one. Run as the contract's
 * {@code @Nested} class {@code UplinkCaps}, on the store of the enclosing contract test.
 */
abstract class UplinkCapsGroup extends ContractGroup {

  UplinkCapsGroup(StateStoreContract contract) {
    super(contract);
  }

  @Test
  void aStoredCapIsReadBackAndReplacedByTheNextOneForTheSameNode() {
    assertEquals(List.of(), store.uplinkCaps(), "none stored");

    StoredUplinkCap first = new StoredUplinkCap("node-a", 20L << 20, 0, T0);
    store.putUplinkCap(first);
    store.putUplinkCap(new StoredUplinkCap(StoredUplinkCap.EVERY_NODE, 5L << 20, 100, T0));
    assertEquals(List.of(new StoredUplinkCap(StoredUplinkCap.EVERY_NODE, 5L << 20, 100, T0), first),
        store.uplinkCaps(), "every cap, in node order (\"*\" sorts first)");

    StoredUplinkCap second = new StoredUplinkCap("node-a", 1L << 20, 7, T0.plusSeconds(1));
    store.putUplinkCap(second);
    List<StoredUplinkCap> caps = store.uplinkCaps();
    assertEquals(2, caps.size(), "the node's cap replaced, not added");
    assertEquals(second, caps.get(1));
    assertEquals(Optional.of(second), StoredUplinkCap.applyingTo("node-a", caps));
    assertEquals(StoredUplinkCap.EVERY_NODE, StoredUplinkCap.applyingTo("node-b", caps).orElseThrow().node());
  }

  @Test
  void aRemovedCapIsGoneAndRemovingItAgainSaysThereWasNone() {
    store.putUplinkCap(new StoredUplinkCap("node-a", 0, 50, T0));
    store.putUplinkCap(new StoredUplinkCap("node-b", 1000, 0, T0));

    assertTrue(store.removeUplinkCap("node-a"));
    assertFalse(store.removeUplinkCap("node-a"));
    assertFalse(store.removeUplinkCap(StoredUplinkCap.EVERY_NODE));
    assertEquals(List.of(new StoredUplinkCap("node-b", 1000, 0, T0)), store.uplinkCaps());
  }
}
