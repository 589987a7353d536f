package dev.segmentledger.jdbi;

import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.testkit.PostgresExtension;
import dev.segmentledger.testkit.contract.StateStoreContract;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.extension.RegisterExtension;

class JdbiStateStoreContractTest extends StateStoreContract {
  @RegisterExtension
  static final PostgresExtension PG = PostgresExtension.create();

  @Override
  protected StateStore newEmptyStore() {
    Jdbi jdbi = Jdbi.create(PG.dataSource());
    JdbiStateStore store = JdbiStateStore.create(jdbi).migrate();
    jdbi.useHandle(handle -> handle.execute("TRUNCATE segment_ledger_item, segment_ledger_broadcast, segment_ledger_playlist, segment_ledger_playlist_part, segment_ledger_uplink_cap RESTART IDENTITY"));
    return store;
  }
}
