package dev.segmentledger.jdbi;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.StoreException;
import dev.segmentledger.core.spi.NewItem;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;
import org.junit.jupiter.api.Test;

/** A registration the database fails reaches the caller as the SPI's {@link StoreException}, not Jdbi's. */
class RegisterAllFailureTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  @Test
  void aDatabaseThatCannotBeReachedIsAStoreException() {
    JdbiStateStore store = JdbiStateStore.create(Jdbi.create(() -> {
      throw new SQLException("injected: connection refused", "08001");
    }));
    List<NewItem> items = List.of(NewItem.pending(ItemId.original("b1", "720p", 0), "/rec/0.ts", 10, T0));

    StoreException e = assertThrows(StoreException.class, () -> store.registerAll(items));
    assertInstanceOf(JdbiException.class, e.getCause());
    assertTrue(e.getMessage().contains("SQLSTATE 08001 injected: connection refused"), e.getMessage());
  }
}
