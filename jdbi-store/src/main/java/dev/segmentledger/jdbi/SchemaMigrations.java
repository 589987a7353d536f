package dev.segmentledger.jdbi;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * Applies the ledger schema: the SQL scripts under {@value #LOCATION} on the class path, named
 * Flyway-style ({@code V1__ledger_item.sql}, {@code V2__...}), in version order.
 *
 * <p>{@link #migrate(Jdbi)} applies every version not yet recorded in the table
 * {@code segment_ledger_schema_version} and records it, all in one transaction under a
 * PostgreSQL transaction-level advisory lock: concurrent callers (several nodes starting at once)
 * wait for each other, and exactly one applies each version. Calling it again is a no-op. The
 * tables land in the connection's current schema ({@code search_path}).
 *
 * <p>Applications that already run Flyway can instead add {@code classpath:db/migration/segment-ledger}
 * to its locations and not call this class; use one mechanism per schema, not both. Thread-safe.
 */
public final class SchemaMigrations {
  /** The class path directory of the migration scripts. */
  public static final String LOCATION = "db/migration/segment-ledger";

  /** Every script, in version order. A new migration adds its file name here. */
  private static final List<String> SCRIPTS = List.of("V1__ledger_item.sql",
      "V2__file_identity_and_abandoned_attempts.sql", "V3__operations_queries.sql", "V4__playlists.sql",
      "V5__retention_and_distribution.sql", "V6__original_format_and_recording_time.sql",
      "V7__storage_groups.sql", "V8__attempt_evidence.sql", "V9__trace_context.sql",
      "V10__failures_per_reason.sql");

  /** An arbitrary constant identifying this library's migration lock (the bytes of "segledgr"). */
  private static final long ADVISORY_LOCK_KEY = 0x7365676c65646772L;

  private SchemaMigrations() {}

  /**
   * Brings the schema of {@code jdbi}'s database up to date.
   *
   * @return the versions applied by this call, in order; empty if the schema was already current
   */
  public static List<Integer> migrate(Jdbi jdbi) {
    return jdbi.inTransaction(handle -> {
      handle.createQuery("SELECT 1 FROM pg_advisory_xact_lock(:key)").bind("key", ADVISORY_LOCK_KEY)
          .mapTo(Integer.class).one();
      handle.execute("CREATE TABLE IF NOT EXISTS segment_ledger_schema_version ("
          + " version integer PRIMARY KEY, script text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())");
      Set<Integer> done = handle.createQuery("SELECT version FROM segment_ledger_schema_version")
          .mapTo(Integer.class).set();
      List<Integer> applied = new ArrayList<>();
      for (String script : SCRIPTS) {
        int version = versionOf(script);
        if (!done.contains(version)) {
          apply(handle, version, script);
          applied.add(version);
        }
      }
      return applied;
    });
  }

  /** The highest version this library ships. */
  public static int latestVersion() {
    return versionOf(SCRIPTS.get(SCRIPTS.size() - 1));
  }

  private static void apply(Handle handle, int version, String script) {
    handle.createScript(read(script)).execute();
    handle.createUpdate("INSERT INTO segment_ledger_schema_version (version, script) VALUES (:version, :script)")
        .bind("version", version).bind("script", script).execute();
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
