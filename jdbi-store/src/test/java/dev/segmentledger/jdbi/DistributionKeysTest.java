package dev.segmentledger.jdbi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.testkit.PostgresExtension;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The schema can be distributed by broadcast (docs/scaling.md, "Past one PostgreSQL"): read from
 * the catalog of a migrated schema on plain PostgreSQL, since Citus cannot be installed here. What
 * this checks is the rule Citus states for distributed tables (every primary key and unique
 * constraint includes the distribution column; no exclusion constraint; foreign keys between
 * distributed tables include it); it does not run Citus, create distributed tables or check the
 * statements' routing.
 */
class DistributionKeysTest {
  @RegisterExtension
  static final PostgresExtension PG = PostgresExtension.create();

  /** The tables distributed by broadcast_id, co-located. */
  private static final List<String> DISTRIBUTED = List.of("segment_ledger_item", "segment_ledger_broadcast");

  private static Jdbi jdbi;

  @BeforeAll
  static void migrate() {
    jdbi = Jdbi.create(PG.dataSource());
    JdbiStateStore.create(jdbi).migrate();
  }

  /**
   * Each unique index (primary keys and unique constraints included) of the ledger's tables, with its
   * columns; not of the schema version table nor of {@code segment_ledger_uplink_cap} (a row per capped
   * node, no broadcast: a Citus reference table, copied to every node, docs/scaling.md).
   */
  private static List<Map<String, Object>> uniqueIndexes() {
    return jdbi.withHandle(handle -> handle.createQuery("SELECT t.relname AS table_name, i.relname AS index_name,"
            + " array_to_string(ARRAY(SELECT a.attname FROM unnest(x.indkey) AS k(attnum)"
            + "   JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum), ',') AS columns,"
            + " x.indexprs IS NOT NULL AS has_expressions"
            + " FROM pg_index x JOIN pg_class t ON t.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid"
            + " JOIN pg_namespace n ON n.oid = t.relnamespace"
            + " WHERE n.nspname = current_schema() AND x.indisunique AND t.relname LIKE 'segment\\_ledger\\_%'"
            + " AND t.relname NOT IN ('segment_ledger_schema_version', 'segment_ledger_uplink_cap')"
            + " ORDER BY 1, 2")
        .mapToMap()
        .list());
  }

  @Test
  void everyUniqueIndexOfTheLedgersTablesIncludesTheBroadcast() {
    List<Map<String, Object>> indexes = uniqueIndexes();
    assertFalse(indexes.isEmpty());
    for (Map<String, Object> index : indexes) {
      List<String> columns = List.of(((String) index.get("columns")).split(","));
      assertTrue(columns.contains("broadcast_id"), () -> index + ": a table distributed by broadcast_id may only"
          + " have unique indexes that include it");
    }
    assertTrue(indexes.stream().map(i -> i.get("table_name")).toList().containsAll(DISTRIBUTED), indexes::toString);
  }

  @Test
  void theRowIdKeyLeadsWithTheIdSoLookupsByIdStillUseIt() {
    String pk = jdbi.withHandle(handle -> handle.createQuery("SELECT array_to_string(ARRAY("
            + " SELECT a.attname FROM pg_constraint c CROSS JOIN LATERAL unnest(c.conkey) WITH ORDINALITY AS k(attnum, ord)"
            + " JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum"
            + " WHERE c.conrelid = 'segment_ledger_item'::regclass AND c.contype = 'p' ORDER BY k.ord), ',')")
        .mapTo(String.class)
        .one());
    assertEquals("id,broadcast_id", pk);
    List<String> lines = jdbi.withHandle(handle -> handle.createQuery("EXPLAIN SELECT * FROM"
            + " segment_ledger_item WHERE id = 42")
        .mapTo(String.class)
        .list());
    String plan = String.join("\n", lines);
    assertTrue(plan.contains("segment_ledger_item_pkey"), plan);
  }

  @Test
  void theDistributedTablesHaveTheBroadcastColumnAndNoConstraintCitusRefuses() {
    for (String table : DISTRIBUTED) {
      long columns = jdbi.withHandle(handle -> handle.createQuery("SELECT count(*) FROM information_schema.columns"
              + " WHERE table_schema = current_schema() AND table_name = :t AND column_name = 'broadcast_id'"
              + " AND is_nullable = 'NO'")
          .bind("t", table).mapTo(Long.class).one());
      assertEquals(1, columns, table + " has a NOT NULL broadcast_id");
    }
    List<String> refused = jdbi.withHandle(handle -> handle.createQuery("SELECT c.conname FROM pg_constraint c"
            + " JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace"
            + " WHERE n.nspname = current_schema() AND t.relname LIKE 'segment\\_ledger\\_%'"
            + " AND (c.contype = 'x' OR (c.contype = 'f' AND NOT EXISTS (SELECT 1 FROM unnest(c.conkey) AS k(attnum)"
            + "   JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum"
            + "   WHERE a.attname = 'broadcast_id')))")
        .mapTo(String.class)
        .list());
    assertEquals(List.of(), refused, "exclusion constraints, or foreign keys without the broadcast");
  }
}
