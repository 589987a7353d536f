package dev.segmentledger.jdbi;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A statement of the hot path (registration, confirms) written with {@code :name} parameters, as
 * the other statements are for Jdbi, and run through plain JDBC on the handle's connection: Jdbi
 * resolves the type of every bound argument and copies its configuration per statement, which
 * cost a quarter of the ledger's CPU per item (benchmarks/results/profile-notes.md), and a plain
 * {@link PreparedStatement} lets several statements share one round trip. The names are replaced
 * by {@code ?} once, at class initialization; {@code ::type} casts and string literals are left as
 * they are. Immutable; thread-safe.
 */
final class PlainStatement {
  private final String sql;
  private final Map<String, int[]> positions;

  private PlainStatement(String sql, Map<String, int[]> positions) {
    this.sql = sql;
    this.positions = positions;
  }

  /** {@code named} with each {@code :name} parameter replaced by {@code ?}. */
  static PlainStatement of(String named) {
    StringBuilder out = new StringBuilder(named.length());
    Map<String, List<Integer>> found = new LinkedHashMap<>();
    int index = 0;
    boolean inLiteral = false;
    for (int i = 0; i < named.length(); i++) {
      char c = named.charAt(i);
      if (c == '\'') {
        inLiteral = !inLiteral;
      }
      boolean parameter = !inLiteral && c == ':' && i + 1 < named.length()
          && Character.isLetter(named.charAt(i + 1)) && (i == 0 || named.charAt(i - 1) != ':');
      if (!parameter) {
        out.append(c);
        continue;
      }
      int end = i + 1;
      while (end < named.length() && Character.isLetterOrDigit(named.charAt(end))) {
        end++;
      }
      found.computeIfAbsent(named.substring(i + 1, end), name -> new ArrayList<>()).add(++index);
      out.append('?');
      i = end - 1;
    }
    Map<String, int[]> positions = new HashMap<>();
    found.forEach((name, at) -> positions.put(name, at.stream().mapToInt(Integer::intValue).toArray()));
    return new PlainStatement(out.toString(), Map.copyOf(positions));
  }

  /** The statement as JDBC takes it. */
  String sql() {
    return sql;
  }

  /** A prepared statement of this statement on {@code connection}, to be closed by the caller. */
  Bound prepare(Connection connection) throws SQLException {
    return new Bound(connection, connection.prepareStatement(sql));
  }

  /** A prepared statement and the binding of its named parameters. Not thread-safe. */
  final class Bound implements AutoCloseable {
    private final Connection connection;
    private final PreparedStatement statement;

    private Bound(Connection connection, PreparedStatement statement) {
      this.connection = connection;
      this.statement = statement;
    }

    PreparedStatement statement() {
      return statement;
    }

    /** Binds {@code value} (a String, Long, Integer, Boolean or {@code null} of {@code sqlType}). */
    Bound set(String name, Object value, int sqlType) throws SQLException {
      for (int at : positionsOf(name)) {
        if (value == null) {
          statement.setNull(at, sqlType);
        } else {
          statement.setObject(at, value, sqlType);
        }
      }
      return this;
    }

    Bound set(String name, String value) throws SQLException {
      return set(name, value, Types.VARCHAR);
    }

    Bound set(String name, long value) throws SQLException {
      return set(name, value, Types.BIGINT);
    }

    /** Binds {@code values} as an SQL array of {@code elementType} (for example {@code "int8"}). */
    Bound setArray(String name, String elementType, Object[] values) throws SQLException {
      Array array = connection.createArrayOf(elementType, values);
      for (int at : positionsOf(name)) {
        statement.setArray(at, array);
      }
      return this;
    }

    private int[] positionsOf(String name) {
      int[] at = positions.get(name);
      if (at == null) {
        throw new IllegalArgumentException("no parameter :" + name + " in " + sql);
      }
      return at;
    }

    @Override
    public void close() throws SQLException {
      statement.close();
    }
  }
}
