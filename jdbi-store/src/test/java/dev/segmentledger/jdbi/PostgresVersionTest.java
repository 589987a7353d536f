package dev.segmentledger.jdbi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.segmentledger.testkit.PostgresExtension;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Guards the PostgreSQL matrix (jdbi-store's pom): each execution names the major version it means
 * to test in {@code segmentledger.test.postgres-major}, and this fails if the server the tests got
 * is another one. Without the property (the default execution) it only logs the version.
 */
class PostgresVersionTest {
  static final String MAJOR_PROPERTY = "segmentledger.test.postgres-major";

  @RegisterExtension
  static final PostgresExtension PG = PostgresExtension.create();

  @Test
  void theServerIsTheMajorVersionThisExecutionTests() {
    int versionNum = Jdbi.create(PG.dataSource()).withHandle(handle -> handle
        .createQuery("SELECT current_setting('server_version_num')::int").mapTo(Integer.class).one());
    int major = versionNum / 10_000;
    System.out.println("PostgreSQL server_version_num " + versionNum + " from " + PG.source());
    String expected = System.getProperty(MAJOR_PROPERTY, "");
    if (!expected.isBlank()) {
      assertEquals(Integer.parseInt(expected.trim()), major, "server_version_num " + versionNum);
    }
  }
}
