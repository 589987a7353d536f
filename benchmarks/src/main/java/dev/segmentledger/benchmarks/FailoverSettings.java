package dev.segmentledger.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The connection settings of docs/failover.md ("When PostgreSQL fails over"), as the failover scenarios
 * use them: a multi-host PgJDBC URL that only accepts a writable server, timeouts that bound every
 * wait on a dead or frozen primary, and a HikariCP pool that validates a connection before handing
 * it out. Keep in sync with the README.
 */
final class FailoverSettings {
  /**
   * PgJDBC: only a primary ({@code targetServerType}; a standby, or a node being promoted that
   * still refuses writes, is skipped); a TCP connect bounded by {@code connectTimeout} (s); a login
   * (connect and startup, every host) by {@code loginTimeout} (s); every read of an answer by
   * {@code socketTimeout} (s), which must exceed the longest statement and stay below
   * {@code loginTimeout}, so that a frozen first host still leaves time to try the second; the
   * operating system's keepalive on every connection.
   */
  static final String JDBC_PARAMETERS = "targetServerType=primary&connectTimeout=2&loginTimeout=10&socketTimeout=5"
      + "&tcpKeepAlive=true&ApplicationName=segment-ledger";
  /**
   * How long {@code getConnection} (so {@code register}) waits for a connection to a primary; also
   * the longest pause of the pool's connection adder between failed attempts.
   */
  static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(3);
  /** How long the pool's check of a connection idle for more than 0.5 s may take before it is dropped. */
  static final Duration VALIDATION_TIMEOUT = Duration.ofSeconds(1);
  /** How often an idle connection is checked, so that one to a dead primary is not kept. */
  static final Duration KEEPALIVE = Duration.ofSeconds(30);

  private FailoverSettings() {}

  static HikariDataSource pool(String jdbcUrl, int size) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(jdbcUrl);
    config.setMaximumPoolSize(size);
    config.setConnectionTimeout(CONNECTION_TIMEOUT.toMillis());
    config.setValidationTimeout(VALIDATION_TIMEOUT.toMillis());
    config.setKeepaliveTime(KEEPALIVE.toMillis());
    config.setPoolName("segment-ledger");
    return new HikariDataSource(config);
  }

  /** The settings, for the results. */
  static Map<String, Object> describe(int poolSize) {
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("jdbc_parameters", JDBC_PARAMETERS);
    c.put("hikari", "maximumPoolSize " + poolSize + ", connectionTimeout " + CONNECTION_TIMEOUT.toMillis()
        + " ms, validationTimeout " + VALIDATION_TIMEOUT.toMillis() + " ms, keepaliveTime " + KEEPALIVE.toMillis()
        + " ms, other settings default (maxLifetime 30 min)");
    return c;
  }
}
