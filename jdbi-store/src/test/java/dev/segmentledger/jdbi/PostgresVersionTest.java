package dev.segmentledger.jdbi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.segmentledger.testkit.PostgresExtension;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Guards the PostgreSQL matrix (jdbi-store's pom): its execution names the embedded binaries it
 * means to test in {@code segmentledger.test.postgres-binaries} (for example {@code 12.22.0}), and
 * this fails if the server the tests got is of another major. Without the property (the default
 * execution) it only logs the version.
 */
class PostgresVersionTest {
  static final String BINARIES_PROPERTY = "segmentledger.test.postgres-binaries";

  @RegisterExtension
  static final PostgresExtension PG = PostgresExtension.create();

  @Test
  void theServerIsTheMajorVersionThisExecutionTests() {
    int versionNum = Jdbi.create(PG.dataSource()).withHandle(handle -> handle
        .createQuery("SELECT current_setting('server_version_num')::int").mapTo(Integer.class).one());
    int major = versionNum / 10_000;
    System.out.println("PostgreSQL server_version_num " + versionNum + " from " + PG.source());
    String binaries = System.getProperty(BINARIES_PROPERTY, "").trim();
    if (!binaries.isEmpty()) {
      assertEquals(Integer.parseInt(binaries.substring(0, binaries.indexOf('.'))), major,
          "server_version_num " + versionNum + " from binaries " + binaries);
    }
  }
}
