package dev.segmentledger.cli;

import dev.segmentledger.jdbi.JdbiStateStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.jdbi.v3.core.Jdbi;
import picocli.CommandLine.Option;

/** Where the ledger is: the PostgreSQL database holding the ledger tables. A picocli mixin. */
final class DatabaseOptions {
  @Option(names = "--jdbc-url", required = true, paramLabel = "URL",
      description = "The ledger's database, e.g. jdbc:postgresql://db:5432/recorder. "
          + "Add ?currentSchema=NAME if the tables are not in the default schema.")
  String url;

  @Option(names = "--jdbc-user", paramLabel = "USER", defaultValue = "${env:SEGMENT_LEDGER_JDBC_USER}",
      description = "Database user (default: $SEGMENT_LEDGER_JDBC_USER, else the driver's default).")
  String user;

  @Option(names = "--jdbc-password", paramLabel = "PASSWORD", defaultValue = "${env:SEGMENT_LEDGER_JDBC_PASSWORD}",
      description = "Database password (default: $SEGMENT_LEDGER_JDBC_PASSWORD; prefer the variable, "
          + "a password on the command line is visible to other users).")
  String password;

  /**
   * A store on the database, after checking that it can be reached and holds the ledger tables.
   * Never migrates the schema: an operations tool changes no table.
   *
   * @throws CliFailure if the database cannot be reached or has no ledger tables
   */
  JdbiStateStore open() {
    return JdbiStateStore.create(connect());
  }

  /**
   * The database, as {@link #open()} checks it, for a command's own read of the ledger's tables.
   *
   * @throws CliFailure if the database cannot be reached or has no ledger tables
   */
  Jdbi connect() {
    if (!url.startsWith("jdbc:postgresql:")) {
      throw new CliFailure("--jdbc-url must be a PostgreSQL JDBC URL (jdbc:postgresql://host:port/database), got: "
          + Redaction.url(url));
    }
    Properties properties = new Properties();
    if (user != null && !user.isEmpty()) {
      properties.setProperty("user", user);
    }
    if (password != null && !password.isEmpty()) {
      properties.setProperty("password", password);
    }
    properties.setProperty("connectTimeout", "10");
    properties.setProperty("loginTimeout", "10");
    properties.setProperty("ApplicationName", "segment-ledger-cli");
    try (Connection connection = DriverManager.getConnection(url, properties);
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("SELECT to_regclass('segment_ledger_item') IS NOT NULL"
            + " AND to_regclass('segment_ledger_broadcast') IS NOT NULL")) {
      rs.next();
      if (!rs.getBoolean(1)) {
        throw new CliFailure("no Segment Ledger tables (segment_ledger_item) in the database at " + Redaction.url(url)
            + " (schema " + connection.getSchema() + "): wrong database or schema?");
      }
    } catch (SQLException e) {
      throw new CliFailure("cannot connect to PostgreSQL at " + Redaction.url(url) + ": " + Redaction.message(e));
    }
    return Jdbi.create(url, properties);
  }
}
