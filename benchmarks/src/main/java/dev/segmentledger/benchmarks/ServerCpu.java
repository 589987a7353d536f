package dev.segmentledger.benchmarks;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * CPU time of the PostgreSQL server when it runs on this machine (Linux {@code /proc}): the
 * postmaster, every live child process (backends, WAL writer, checkpointer, autovacuum) and the
 * children that already exited (the postmaster's {@code cutime}/{@code cstime}). On 2 cores the
 * server's share of the CPU explains a throughput figure as much as the JVM's does; the performance goals ask
 * every result to say where the CPU went. Not thread-safe (one per measure).
 */
final class ServerCpu {
  private static final Path PROC = Path.of("/proc");
  private static final long TICK_NANOS = 1_000_000_000L / 100; // USER_HZ is 100 on Linux

  private final long postmasterPid;

  private ServerCpu(long postmasterPid) {
    this.postmasterPid = postmasterPid;
  }

  /**
   * The server of {@code connection}, if its backend is a process of this machine; otherwise a
   * probe whose {@link #nanos()} is -1 (a remote server, or no {@code /proc}).
   */
  static ServerCpu of(Connection connection) {
    try (Statement s = connection.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      long backend = rs.getLong(1);
      String[] stat = stat(backend);
      if (stat == null || !stat[1].contains("postgres")) {
        return new ServerCpu(-1);
      }
      return new ServerCpu(Long.parseLong(stat[3])); // ppid of a backend: the postmaster
    } catch (SQLException | RuntimeException e) {
      return new ServerCpu(-1);
    }
  }

  /**
   * Accumulated CPU time of the server's processes in nanoseconds, or -1 if unknown. Waits a moment
   * first: the backends of a pool closed just now have exited, but their time reaches the
   * postmaster's {@code cutime} only once it has reaped them.
   */
  long nanos() {
    if (postmasterPid < 0) {
      return -1;
    }
    try {
      Thread.sleep(250);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    long[] ticks = ticks();
    return ticks == null ? -1 : (ticks[0] + ticks[1]) * TICK_NANOS;
  }

  /** The system (kernel) part of {@link #nanos()}, or -1 if unknown. */
  long systemNanos() {
    long[] ticks = postmasterPid < 0 ? null : ticks();
    return ticks == null ? -1 : ticks[1] * TICK_NANOS;
  }

  /** User and system clock ticks of the server's processes, or {@code null} if unknown. */
  private long[] ticks() {
    String[] postmaster = stat(postmasterPid);
    if (postmaster == null) {
      return null;
    }
    // utime, stime, cutime, cstime: fields 14 to 17 (1-based) of /proc/<pid>/stat
    long user = Long.parseLong(postmaster[13]) + Long.parseLong(postmaster[15]);
    long system = Long.parseLong(postmaster[14]) + Long.parseLong(postmaster[16]);
    try (DirectoryStream<Path> processes = Files.newDirectoryStream(PROC, p -> isNumber(p.getFileName().toString()))) {
      for (Path process : processes) {
        String[] child = stat(Long.parseLong(process.getFileName().toString()));
        if (child != null && Long.parseLong(child[3]) == postmasterPid) {
          user += Long.parseLong(child[13]);
          system += Long.parseLong(child[14]);
        }
      }
    } catch (IOException e) {
      return null;
    }
    return new long[] {user, system};
  }

  /** The fields of {@code /proc/<pid>/stat}, the command name as field 2; {@code null} if gone. */
  private static String[] stat(long pid) {
    try {
      String line = Files.readString(PROC.resolve(Long.toString(pid)).resolve("stat"));
      int open = line.indexOf('(');
      int close = line.lastIndexOf(')');
      String[] rest = line.substring(close + 2).split(" ");
      String[] fields = new String[rest.length + 2];
      fields[0] = line.substring(0, open - 1);
      fields[1] = line.substring(open + 1, close);
      System.arraycopy(rest, 0, fields, 2, rest.length);
      return fields;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  private static boolean isNumber(String name) {
    for (int i = 0; i < name.length(); i++) {
      if (!Character.isDigit(name.charAt(i))) {
        return false;
      }
    }
    return !name.isEmpty();
  }
}
