package dev.segmentledger.jdbi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The loading of the statements kept as {@code .sql} resources ({@link Sql#load}); no database needed. */
class SqlTest {
  @ParameterizedTest
  @ValueSource(strings = {"backlog.sql", "claim.sql", "confirm-batch.sql", "exclude-registered-before.sql",
      "register-batch.sql", "register-live.sql", "renew-batch.sql"})
  void everyShippedStatementLoadsAsOneLineWithoutCommentsOrPlaceholders(String name) {
    String sql = Sql.load(name);

    assertFalse(sql.isBlank(), name);
    assertFalse(sql.contains("--"), name);
    assertFalse(sql.contains("${"), name);
    assertFalse(sql.contains("\n"), name);
    assertEquals(sql.strip(), sql, name);
  }

  @Test
  void commentsAndBlankLinesAreLeftOutAndFragmentsReplaced() {
    assertEquals("SELECT " + Sql.COLUMNS + " FROM segment_ledger_item WHERE (" + Sql.INSERT_COLUMNS
        + ") IS NOT NULL AND " + Sql.NO_LEASE, Sql.load("sql-test-fragments.sql"));
  }

  @Test
  void anUnknownFragmentIsRefused() {
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> Sql.load("sql-test-unknown-fragment.sql"));

    assertTrue(e.getMessage().contains("sql-test-unknown-fragment.sql"), e.getMessage());
  }

  @Test
  void aMissingResourceIsRefused() {
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> Sql.load("no-such-statement.sql"));

    assertTrue(e.getMessage().contains("no-such-statement.sql"), e.getMessage());
  }
}
