package dev.segmentledger.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class PostgresExtensionTest {
  @RegisterExtension
  static final PostgresExtension PG = PostgresExtension.create();

  @Test
  void dataSourceSelectsTheClassSchema() throws SQLException {
    try (Connection connection = PG.dataSource().getConnection(); Statement statement = connection.createStatement()) {
      statement.execute("CREATE TABLE IF NOT EXISTS probe (id int)");
      assertEquals(PG.schema(), single(statement, "SELECT current_schema()"));
      assertEquals(PG.schema(), single(statement,
          "SELECT table_schema FROM information_schema.tables WHERE table_name = 'probe'"));
    }
  }

  @Test
  void jdbcUrlSelectsTheSameSchema() throws SQLException {
    Properties credentials = new Properties();
    if (PG.user() != null) {
      credentials.setProperty("user", PG.user());
    }
    if (PG.password() != null) {
      credentials.setProperty("password", PG.password());
    }
    try (Connection connection = DriverManager.getConnection(PG.jdbcUrl(), credentials);
        Statement statement = connection.createStatement()) {
      assertEquals(PG.schema(), single(statement, "SELECT current_schema()"));
    }
  }

  @Test
  void schemaIsFreshAndSourceIsDescribed() {
    assertTrue(PG.schema().startsWith("sl_test_"));
    assertFalse(PG.source().isBlank());
  }

  private static String single(Statement statement, String sql) throws SQLException {
    try (ResultSet rows = statement.executeQuery(sql)) {
      assertTrue(rows.next(), sql);
      return rows.getString(1);
    }
  }
}
