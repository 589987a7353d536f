package dev.segmentledger.it;

import com.zaxxer.hikari.HikariDataSource;
import dev.segmentledger.testkit.PostgresExtension;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jdbi.v3.core.Jdbi;

/**
 * How a test hands its database to a child JVM, and how the child opens it. The first three
 * arguments of every child's {@code main} ({@link ClusterNode}, {@link CrashingRecorder},
 * {@link HostNode}, {@link MultipartUploader}, {@link PlaylistNode}, {@link SlowNode},
 * {@link UploadNode}) are the JDBC URL of the test class's schema, the user and the password,
 * {@value #NONE} standing for none; the child's own arguments follow from index 3.
 */
final class ChildDatabase {
  private static final String NONE = "-";

  private ChildDatabase() {}

  /** The database's three arguments, then {@code rest}. */
  static List<String> args(PostgresExtension pg, String... rest) {
    List<String> args = new ArrayList<>(List.of(pg.jdbcUrl(), orNone(pg.user()), orNone(pg.password())));
    args.addAll(Arrays.asList(rest));
    return List.copyOf(args);
  }

  /** In the child: a pool of {@code size} connections to the database its arguments name ({@link Wiring#pool}). */
  static HikariDataSource pool(String[] args, int size) {
    return Wiring.pool(args[0], orNull(args[1]), orNull(args[2]), size);
  }

  /** In the child: the database its arguments name, a connection per use. */
  static Jdbi unpooled(String[] args) {
    String user = orNull(args[1]);
    String password = orNull(args[2]);
    return user == null ? Jdbi.create(args[0]) : Jdbi.create(args[0], user, password == null ? "" : password);
  }

  private static String orNone(String value) {
    return value == null ? NONE : value;
  }

  private static String orNull(String arg) {
    return NONE.equals(arg) ? null : arg;
  }
}
