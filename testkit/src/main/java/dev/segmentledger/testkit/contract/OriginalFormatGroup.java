package dev.segmentledger.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.MediaFormat;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.RegistrationConflictException;
import dev.segmentledger.core.spi.Confirmation;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.RegisterResult;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The {@link StateStoreContract} group on what a registration stores besides the file: the
 * {@linkplain MediaFormat format} of an original (part of its identity, not of its position) and the
 * recording time. Run as the contract's {@code @Nested} class {@code OriginalFormatAndRecordingTime},
 * on the store of the enclosing contract test. Batches of more than three rows are included because
 * a store may insert small and large batches differently.
 */
abstract class OriginalFormatGroup extends ContractGroup {
  /** A recording time with nanoseconds: the store keeps microseconds, as for every instant. */
  private static final Instant RECORDED = Instant.parse("2026-11-30T17:59:58.123456789Z");

  OriginalFormatGroup(StateStoreContract contract) {
    super(contract);
  }

  private static NewItem original(ItemId id, long size) {
    return NewItem.pending(id, "/rec/" + id.objectKey(), size, T0);
  }

  @Test
  void anOriginalKeepsItsFormatAndIsFoundByItsPositionWhateverTheFormatAsked() {
    ItemId fmp4 = ItemId.original("b1", "720p", 3, MediaFormat.FMP4);
    LedgerItem row = store.register(original(fmp4, 100)).item();

    assertEquals(fmp4, row.id());
    assertEquals("b1/720p/original/0000000003.m4s", row.objectKey());
    assertEquals(fmp4, store.findByRowId(row.rowId()).orElseThrow().id());
    assertEquals(fmp4, store.find(fmp4).orElseThrow().id());
    assertEquals(fmp4, store.find(ItemId.original("b1", "720p", 3)).orElseThrow().id(),
        "find is by position: the row names its own format");
    assertEquals(fmp4, store.find(ItemId.original("b1", "720p", 3, MediaFormat.MP4)).orElseThrow().id());
    assertEquals(List.of(fmp4), store.findByBroadcast("b1").stream().map(LedgerItem::id).toList());
    assertEquals(MediaFormat.MPEG_TS, register(ItemId.original("b1", "720p", 4), 100).id().format(),
        "the default stays MPEG-TS");
  }

  @Test
  void theSamePositionInAnotherFormatIsAConflictNeverASecondRow() {
    ItemId ts = ItemId.original("b1", "720p", 1);
    LedgerItem first = register(ts, 100);

    RegistrationConflictException e = assertThrows(RegistrationConflictException.class,
        () -> store.register(original(ItemId.original("b1", "720p", 1, MediaFormat.FMP4), 100)));
    assertEquals(first, e.existing());
    assertThrows(RegistrationConflictException.class,
        () -> store.register(original(ItemId.original("b1", "720p", 1, MediaFormat.MP4), 100)));

    RegisterResult again = store.register(original(ts, 100));
    assertFalse(again.created());
    assertEquals(first, again.item());
    assertEquals(1, store.findByBroadcast("b1").size());
  }

  @Test
  void aBatchNamingAnExistingPositionInAnotherFormatWritesNothing() {
    register(ItemId.original("b1", "720p", 2, MediaFormat.FMP4), 100);
    for (int size : new int[] {2, 6}) { // row by row and as a batch
      List<NewItem> batch = new ArrayList<>();
      for (int i = 0; i < size; i++) {
        batch.add(original(ItemId.original("b2", "720p", i, MediaFormat.FMP4), 10));
      }
      batch.add(original(ItemId.original("b1", "720p", 2), 100)); // MPEG-TS where an fMP4 is
      assertThrows(RegistrationConflictException.class, () -> store.registerAll(batch), "batch of " + batch.size());
      assertTrue(store.findByBroadcast("b2").isEmpty(), "all or nothing");
    }
    assertEquals(1, store.findByBroadcast("b1").size());
  }

  @Test
  void oneBatchNamingAPositionInTwoFormatsIsAConflict() {
    for (int size : new int[] {1, 5}) {
      List<NewItem> batch = new ArrayList<>();
      for (int i = 0; i < size; i++) {
        batch.add(original(ItemId.original("b" + size, "720p", 10 + i), 10));
      }
      batch.add(original(ItemId.original("b" + size, "720p", 0, MediaFormat.FMP4), 10));
      batch.add(original(ItemId.original("b" + size, "720p", 0, MediaFormat.MP4), 10));
      assertThrows(RegistrationConflictException.class, () -> store.registerAll(batch), "batch of " + batch.size());
      assertTrue(store.findByBroadcast("b" + size).isEmpty(), "all or nothing");
    }
  }

  @Test
  void aBatchOfFormatsIsStoredAsGivenAndRegisteringItAgainReturnsTheSameRows() {
    List<NewItem> batch = new ArrayList<>();
    MediaFormat[] formats = MediaFormat.values();
    for (int i = 0; i < 6; i++) {
      batch.add(original(ItemId.original("b1", "720p", i, formats[i % formats.length]), 10 + i)
          .withRecordedAt(RECORDED.plusSeconds(2L * i)));
    }
    List<RegisterResult> created = store.registerAll(batch);
    List<RegisterResult> again = store.registerAll(batch);
    for (int i = 0; i < batch.size(); i++) {
      assertTrue(created.get(i).created());
      assertEquals(batch.get(i).id(), created.get(i).item().id());
      assertEquals(micros(RECORDED.plusSeconds(2L * i)), created.get(i).item().recordedAt());
      assertFalse(again.get(i).created());
      assertEquals(created.get(i).item().rowId(), again.get(i).item().rowId());
      assertEquals(batch.get(i).id(), again.get(i).item().id());
      assertEquals(created.get(i).item(), store.findByRowId(created.get(i).item().rowId()).orElseThrow());
    }
  }

  @Test
  void theRecordingTimeIsStoredInMicrosecondsAndKeptByEveryTransition() {
    ItemId id = ItemId.original("b1", "720p", 1);
    LedgerItem row = store.register(original(id, 100).withRecordedAt(RECORDED)).item();
    Instant recorded = micros(RECORDED);
    assertEquals(recorded, row.recordedAt());
    assertEquals(recorded, store.find(id).orElseThrow().recordedAt());

    assertTrue(store.recordFailure(row.rowId(), ItemState.PENDING, "node-a", Reason.SINK_TRANSIENT, "503", T0));
    assertEquals(recorded, store.find(id).orElseThrow().recordedAt());
    assertTrue(store.confirm(new Confirmation(row.rowId(), row.id(), ItemState.PENDING, 100, "c", T0)));
    assertEquals(recorded, store.find(id).orElseThrow().recordedAt());
    assertTrue(store.reopen(row.rowId(), ItemState.CONFIRMED, Reason.OBJECT_MISSING, "gone", T0));
    assertEquals(recorded, store.find(id).orElseThrow().recordedAt());
    assertTrue(store.markTerminal(row.rowId(), ItemState.PENDING, "node-a", ItemState.REJECTED, Reason.SINK_PERMANENT,
        "no", T0));
    assertEquals(recorded, store.find(id).orElseThrow().recordedAt());

    ItemId playback = ItemId.playback("b1", "720p", 1);
    LedgerItem derived = store.register(NewItem.derived(playback, "/play/1.m4s", "/rec/1.ts", T0)
        .withRecordedAt(RECORDED)).item();
    assertTrue(store.recordProduced(derived.rowId(), derived.state(), LedgerItem.UNKNOWN_SIZE, "/play/1.m4s", 50,
        Duration.ofSeconds(2)));
    assertEquals(recorded, store.find(playback).orElseThrow().recordedAt());
  }

  @Test
  void aRowWithoutRecordingTimeHasNoneAndARegistrationAgainDoesNotChangeIt() {
    ItemId unknown = ItemId.original("b1", "720p", 1);
    assertNull(register(unknown, 100).recordedAt());
    RegisterResult again = store.register(original(unknown, 100).withRecordedAt(RECORDED));
    assertFalse(again.created());
    assertNull(again.item().recordedAt(), "not part of the identity: the first registration's stays");

    ItemId known = ItemId.original("b1", "720p", 2);
    store.register(original(known, 100).withRecordedAt(RECORDED));
    assertEquals(micros(RECORDED), store.register(original(known, 100).withRecordedAt(RECORDED.plusSeconds(9)))
        .item().recordedAt());
  }

  private static Instant micros(Instant instant) {
    return instant.truncatedTo(java.time.temporal.ChronoUnit.MICROS);
  }
}
