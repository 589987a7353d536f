package dev.segmentledger.jdbi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.segmentledger.core.spi.PlaylistRecord;
import dev.segmentledger.testkit.PostgresExtension;
import java.time.Instant;
import java.util.List;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The claim takes the playlists with work (awaiting publication, or with a full playlist due) oldest
 * change first across both kinds, at most the limit, never a playlist leased to another node or one
 * without work, and skips, without waiting, records another transaction holds, taking the next ones.
 */
class PlaylistClaimTest {
  @RegisterExtension
  static final PostgresExtension PG = PostgresExtension.create();

  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
  private static final Instant LEASE_END = NOW.plusSeconds(60);

  private static Jdbi jdbi;
  private static JdbiStateStore store;

  @BeforeAll
  static void open() {
    jdbi = Jdbi.create(PG.dataSource());
    store = JdbiStateStore.create(jdbi).migrate();
  }

  /**
   * By age of the last change (seconds before NOW): a9 awaiting but leased to n0 until after NOW;
   * p8 published, no work; f7 full playlist due; a6 awaiting; n5 full playlist due only later; a4
   * awaiting and full playlist due; f3 full playlist due; a2 awaiting.
   */
  @BeforeEach
  void seed() {
    jdbi.useHandle(handle -> {
      handle.execute("TRUNCATE segment_ledger_playlist");
      insert(handle, "a9", 9, true, null, LEASE_END);
      insert(handle, "p8", 8, false, null, null);
      insert(handle, "f7", 7, false, NOW.minusSeconds(1), null);
      insert(handle, "a6", 6, true, null, null);
      insert(handle, "n5", 5, false, NOW.plusSeconds(1), null);
      insert(handle, "a4", 4, true, NOW, null);
      insert(handle, "f3", 3, false, NOW.minusSeconds(100), null);
      insert(handle, "a2", 2, true, null, null);
    });
  }

  private static void insert(Handle handle, String broadcast, int age, boolean awaiting, Instant fullDueAt,
      Instant leaseUntil) {
    handle.createUpdate("INSERT INTO segment_ledger_playlist (broadcast_id, rendition, wanted, published, updated_at,"
            + " full_due_at, lease_owner, lease_until) VALUES (:b, '720p', :wanted, 5, :at, :due, :owner, :until)")
        .bind("b", broadcast)
        .bind("wanted", awaiting ? 6 : 5)
        .bind("at", NOW.minusSeconds(age))
        .bind("due", fullDueAt)
        .bind("owner", leaseUntil == null ? null : "n0")
        .bind("until", leaseUntil)
        .execute();
  }

  private static List<String> claim(String owner, int limit) {
    return store.playlists().claimDue(owner, LEASE_END, NOW, limit).stream().map(PlaylistRecord::broadcastId)
        .toList();
  }

  @Test
  void theOldestChangesOfBothKindsFirstUpToTheLimit() {
    assertEquals(List.of("f7", "a6", "a4"), claim("n1", 3));
    assertEquals(List.of("f3", "a2"), claim("n2", 3), "the claimed ones are leased; the rest");
    assertEquals(List.of(), claim("n3", 3));
  }

  @Test
  void recordsHeldByAnotherTransactionAreSkippedForTheNextOnes() {
    // A Jdbi of its own: the store's Jdbi would run the claim on this thread's open handle.
    Jdbi.create(PG.dataSource()).useTransaction(holder -> {
      assertEquals(2, holder.createQuery("SELECT broadcast_id FROM segment_ledger_playlist"
          + " WHERE broadcast_id IN ('f7', 'a4') FOR UPDATE").mapTo(String.class).list().size());

      assertEquals(List.of("a6", "f3"), claim("n1", 2));
    });
    assertEquals(List.of("f7", "a4", "a2"), claim("n2", 5), "free again once the holder ended");
  }
}
