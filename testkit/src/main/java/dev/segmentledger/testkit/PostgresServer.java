package dev.segmentledger.testkit;

import java.sql.Connection;
import java.sql.SQLException;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A running PostgreSQL server that tests may use, and how to reach it.
 *
 * @param description where it comes from, for the log and failure messages
 * @param jdbcUrl the URL of the database to create test schemas in
 * @param user the user, or {@code null} if the URL carries it
 * @param password the password, or {@code null} if none
 */
record PostgresServer(String description, String jdbcUrl, String user, String password) {

  /** A data source for {@code url}, which must be {@link #jdbcUrl} with extra parameters at most. */
  PGSimpleDataSource dataSource(String url) {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setURL(url);
    if (user != null) {
      dataSource.setUser(user);
    }
    if (password != null) {
      dataSource.setPassword(password);
    }
    return dataSource;
  }

  /** A connection to the database of {@link #jdbcUrl}, with no schema selected. */
  Connection connect() throws SQLException {
    return dataSource(jdbcUrl).getConnection();
  }

  @Override
  public String toString() {
    return description;
  }
}
