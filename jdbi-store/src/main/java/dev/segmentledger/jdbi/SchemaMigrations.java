package dev.segmentledger.jdbi;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the ledger schema: the SQL scripts under {@value #LOCATION} on the class path, named
 * Flyway-style ({@code V1__ledger_item.sql}, {@code V2__...}), in version order.
 *
 * <p>{@link #migrate(Jdbi)} applies every version not yet recorded in the table
 * {@code segment_ledger_schema_version}, each in a transaction of its own that also records it, all
 * under a PostgreSQL session-level advisory lock: concurrent callers (several nodes starting at once)
 * wait for each other, and exactly one applies each version. Calling it again is a no-op. The
 * tables land in the connection's current schema ({@code search_path}).
 *
 * <p>The ledger stays in use while a version is applied. No script scans the table while it holds
 * ACCESS EXCLUSIVE: a CHECK is added {@code NOT VALID} and validated by a later version, in a
 * transaction of its own that blocks neither reads nor writes. Each version's transaction waits at
 * most {@code lock_timeout} ({@link #DEFAULT_LOCK_TIMEOUT} unless given; a script may set a longer
 * one for a lock that holds up no registration, as V10 does) for a lock: a waiting
 * request for ACCESS EXCLUSIVE would hold up every registration queued behind it for as long as the
 * transaction it waits for lasts (a long report, a forgotten session). On that timeout the
 * transaction is rolled back, and tried again after a pause as long as the timeout, up to a number of
 * attempts; every {@value #WARN_EVERY_ATTEMPTS} attempts a warning names the sessions that hold locks
 * on the ledger's tables. The advisory lock is released whatever ends the migration, an
 * {@link Error} included, so a pooled connection never keeps it.
 *
 * <p>Applications that already run Flyway can instead add {@code classpath:db/migration/segment-ledger}
 * to its locations and not call this class; use one mechanism per schema, not both. Thread-safe.
 */
public final class SchemaMigrations {
  private static final Logger log = LoggerFactory.getLogger(SchemaMigrations.class);

  /** How many refused attempts of a version between two warnings naming the sessions in the way. */
  static final int WARN_EVERY_ATTEMPTS = 20;

  /** The sessions other than this one holding a lock on a table of the ledger, as the warning names them. */
  private static final String LOCK_HOLDERS = "SELECT DISTINCT l.pid || ' (' || coalesce(a.usename, '?') || ', '"
      + " || coalesce(a.state, '?') || ' since ' || coalesce(a.xact_start::text, '?') || ': '"
      + " || left(coalesce(a.query, ''), 120) || ')' FROM pg_locks l JOIN pg_class c ON c.oid = l.relation"
      + " LEFT JOIN pg_stat_activity a ON a.pid = l.pid"
      + " WHERE c.relname LIKE 'segment\\_ledger\\_%' AND l.granted AND l.pid <> pg_backend_pid()";
  /** The class path directory of the migration scripts. */
  public static final String LOCATION = "db/migration/segment-ledger";

  /** Every script, in version order. A new migration adds its file name here. */
  private static final List<String> SCRIPTS = List.of("V1__ledger_item.sql",
      "V2__file_identity_and_abandoned_attempts.sql", "V3__operations_queries.sql", "V4__playlists.sql",
      "V5__retention_and_distribution.sql", "V6__original_format_and_recording_time.sql",
      "V7__storage_groups.sql", "V8__attempt_evidence.sql", "V9__trace_context.sql",
      "V10__validate_checks.sql", "V11__failures_per_reason.sql", "V12__long_broadcasts.sql",
      "V13__recorder_disk.sql", "V14__recorder_disk_indexes.sql", "V15__validate_playlist_checks.sql",
      "V16__playlist_part_totals.sql", "V17__playlist_etags.sql", "V18__lane_hints.sql",
      "V19__uplink_caps.sql");

  /**
   * How long a version's transaction waits for a lock before it is rolled back and tried again: a
   * registration queued behind a waiting ALTER TABLE waits at most this long.
   */
  public static final Duration DEFAULT_LOCK_TIMEOUT = Duration.ofMillis(500);

  /** How many times a version is tried when its locks are not granted: with the default timeout, 10 minutes. */
  public static final int DEFAULT_LOCK_ATTEMPTS = 600;

  /** SQLSTATE lock_not_available: lock_timeout expired. */
  private static final String LOCK_NOT_AVAILABLE = "55P03";

  /** An arbitrary constant identifying this library's migration lock (the bytes of "segledgr"). */
  private static final long ADVISORY_LOCK_KEY = 0x7365676c65646772L;

  private SchemaMigrations() {}

  /**
   * Brings the schema of {@code jdbi}'s database up to date, waiting at most
   * {@link #DEFAULT_LOCK_TIMEOUT} for a lock, {@link #DEFAULT_LOCK_ATTEMPTS} times per version.
   *
   * @return the versions applied by this call, in order; empty if the schema was already current
   * @throws IllegalStateException if a version did not get its locks in as many attempts; the
   *     versions before it stay applied, and a later call continues from it
   */
  public static List<Integer> migrate(Jdbi jdbi) {
    return migrate(jdbi, DEFAULT_LOCK_TIMEOUT, DEFAULT_LOCK_ATTEMPTS);
  }

  /**
   * Brings the schema of {@code jdbi}'s database up to date; see {@link #migrate(Jdbi)}.
   *
   * @param lockTimeout how long each version's transaction waits for a lock (at least 1 ms)
   * @param lockAttempts how many times a version is tried when a lock wait times out (at least 1);
   *     each attempt after the first follows a pause of {@code lockTimeout}
   * @return the versions applied by this call, in order; empty if the schema was already current
   * @throws IllegalStateException if a version did not get its locks in {@code lockAttempts}
   */
  public static List<Integer> migrate(Jdbi jdbi, Duration lockTimeout, int lockAttempts) {
    if (lockTimeout.toMillis() < 1 || lockAttempts < 1) {
      throw new IllegalArgumentException("lock timeout " + lockTimeout + " and attempts " + lockAttempts
          + " must be at least 1 ms and 1");
    }
    return jdbi.withHandle(handle -> {
      handle.createQuery("SELECT 1 FROM pg_advisory_lock(:key)").bind("key", ADVISORY_LOCK_KEY)
          .mapTo(Integer.class).one();
      List<Integer> applied;
      try {
        applied = applyMissing(handle, lockTimeout, lockAttempts);
      } catch (Throwable e) { // an Error too: a pooled connection must not keep the lock
        try {
          unlock(handle);
        } catch (RuntimeException unlockFailure) { // a broken connection: its session, and the lock, are gone
          e.addSuppressed(unlockFailure);
        }
        throw e;
      }
      unlock(handle);
      return applied;
    });
  }

  private static List<Integer> applyMissing(Handle handle, Duration lockTimeout, int lockAttempts) {
    handle.execute("CREATE TABLE IF NOT EXISTS segment_ledger_schema_version ("
        + " version integer PRIMARY KEY, script text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())");
    Set<Integer> done = handle.createQuery("SELECT version FROM segment_ledger_schema_version")
        .mapTo(Integer.class).set();
    List<Integer> applied = new ArrayList<>();
    for (String script : SCRIPTS) {
      int version = versionOf(script);
      if (!done.contains(version)) {
        applyWithLockTimeout(handle, version, script, lockTimeout, lockAttempts);
        applied.add(version);
      }
    }
    return applied;
  }

  private static void unlock(Handle handle) {
    handle.createQuery("SELECT pg_advisory_unlock(:key)").bind("key", ADVISORY_LOCK_KEY).mapTo(Boolean.class).one();
  }

  private static void applyWithLockTimeout(Handle handle, int version, String script, Duration lockTimeout,
      int lockAttempts) {
    String sql = read(script);
    for (int attempt = 1; ; attempt++) {
      try {
        handle.useTransaction(transaction -> {
          transaction.execute("SELECT set_config('lock_timeout', ?, true)", lockTimeout.toMillis() + "ms");
          apply(transaction, version, script, sql);
        });
        return;
      } catch (JdbiException e) {
        if (!isLockTimeout(e)) {
          throw e;
        }
        if (attempt >= lockAttempts) {
          throw new IllegalStateException("schema migration " + script + " did not get its locks in " + lockAttempts
              + " attempts of " + lockTimeout.toMillis() + " ms each: a transaction holds the ledger's tables"
              + " (see pg_locks and pg_stat_activity); nothing of this version was applied", e);
        }
        if (attempt % WARN_EVERY_ATTEMPTS == 0) {
          log.warn("schema migration {} has not got its locks in {} attempts of {} ms each (of at most {}); sessions"
              + " holding locks on the ledger's tables: {}", script, attempt, lockTimeout.toMillis(), lockAttempts,
              lockHolders(handle));
        }
      }
      pause(lockTimeout);
    }
  }

  /** The sessions {@link #LOCK_HOLDERS} names, or why they could not be read. */
  static String lockHolders(Handle handle) {
    try {
      List<String> holders = handle.createQuery(LOCK_HOLDERS).mapTo(String.class).list();
      return holders.isEmpty() ? "none now" : String.join("; ", holders);
    } catch (RuntimeException e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }

  private static void apply(Handle handle, int version, String script, String sql) {
    handle.createScript(sql).execute();
    handle.createUpdate("INSERT INTO segment_ledger_schema_version (version, script) VALUES (:version, :script)")
        .bind("version", version).bind("script", script).execute();
  }

  /** Lets the requests queued behind the lock that was refused go through before the next attempt. */
  private static void pause(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting to try a schema migration again", e);
    }
  }

  private static boolean isLockTimeout(Throwable e) {
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause instanceof SQLException sql && LOCK_NOT_AVAILABLE.equals(sql.getSQLState())) {
        return true;
      }
    }
    return false;
  }

  /** The highest version this library ships. */
  public static int latestVersion() {
    return versionOf(SCRIPTS.get(SCRIPTS.size() - 1));
  }

  /** Every version this library ships, in order (versions may skip numbers). */
  static List<Integer> versions() {
    return SCRIPTS.stream().map(SchemaMigrations::versionOf).toList();
  }

  private static int versionOf(String script) {
    return Integer.parseInt(script.substring(1, script.indexOf("__")));
  }

  private static String read(String script) {
    String path = "/" + LOCATION + "/" + script;
    try (InputStream in = SchemaMigrations.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("migration script missing from the class path: " + path);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read migration script " + path, e);
    }
  }
}
