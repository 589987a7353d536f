package dev.segmentledger.cli;

import dev.segmentledger.testkit.PostgresExtension;
import java.util.ArrayList;
import java.util.List;

/** A command line's arguments followed by the database options of a test's PostgreSQL. */
final class DatabaseArguments {
  private DatabaseArguments() {}

  static String[] of(PostgresExtension pg, String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--jdbc-url", pg.jdbcUrl()));
    if (pg.user() != null) {
      all.addAll(List.of("--jdbc-user", pg.user()));
    }
    if (pg.password() != null) {
      all.addAll(List.of("--jdbc-password", pg.password()));
    }
    return all.toArray(String[]::new);
  }
}
