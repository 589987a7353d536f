package dev.segmentledger.cli;

import dev.segmentledger.core.SinkException;
import dev.segmentledger.core.StoreException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Objects;
import org.jdbi.v3.core.JdbiException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * The operations command line of Segment Ledger: {@code status}, {@code rows}, {@code backlog},
 * {@code stuck}, {@code reopen}, {@code reconcile} and {@code storage-group}, against the ledger's PostgreSQL database and, for
 * {@code reconcile}, its bucket. Human-readable tables by default, one JSON document with
 * {@code --json}.
 *
 * <p>Exit codes: {@value #EXIT_OK} success; {@value #EXIT_DIFFERENCES} differences found
 * ({@code reconcile} found the ledger and the bucket disagree, {@code reopen} could not re-open a
 * row it was asked to); {@value #EXIT_ERROR} a usage or connection error (unknown option or
 * broadcast, unreachable database or bucket, no credentials), reported as one line on stderr, with
 * nothing changed. Only {@code reopen}, {@code reconcile --repair} and {@code storage-group} write,
 * each with the ledger's own conditional updates; the schema is never migrated.
 */
@Command(name = "segment-ledger", mixinStandardHelpOptions = true, versionProvider = SegmentLedgerCli.Version.class,
    description = "Operations on a Segment Ledger: what is stuck, re-open, reconcile with the bucket.",
    subcommands = {StatusCommand.class, RowsCommand.class, BacklogCommand.class, StuckCommand.class,
        ReopenCommand.class, ReconcileCommand.class, StorageGroupCommand.class, UplinkCommand.class,
        ConsoleCommand.class, HelpCommand.class})
public final class SegmentLedgerCli {
  /** Success. */
  public static final int EXIT_OK = 0;
  /** Differences found: the ledger and the bucket disagree, or a requested re-open did not happen. */
  public static final int EXIT_DIFFERENCES = 1;
  /** A usage or connection error; nothing was changed. */
  public static final int EXIT_ERROR = 2;

  /** The time the commands judge ages, leases and backoff by, and stamp their re-opens with. */
  final Clock clock;

  private SegmentLedgerCli(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** Runs the command line and exits the JVM with its exit code. */
  public static void main(String[] args) {
    PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
    PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
    System.exit(run(Clock.systemUTC(), out, err, args));
  }

  /**
   * Runs the command line with {@code args}, writing its output to {@code out} and its errors to
   * {@code err}; returns the exit code. Never throws for a failure of the command: every failure
   * is one line on {@code err} and exit code {@value #EXIT_ERROR}. Each call is independent;
   * thread-safe as long as callers do not share the writers.
   *
   * @param clock the current time, by which {@code stuck --older-than} and {@code backlog} judge
   *     ages and {@code reopen} stamps the rows it re-opens
   */
  public static int run(Clock clock, PrintWriter out, PrintWriter err, String... args) {
    CommandLine cli = new CommandLine(new SegmentLedgerCli(clock));
    cli.setCaseInsensitiveEnumValuesAllowed(true);
    cli.setOut(out);
    cli.setErr(err);
    cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
      commandLine.getErr().println("segment-ledger: " + describe(e));
      commandLine.getErr().flush();
      return EXIT_ERROR;
    });
    int code = cli.execute(args);
    out.flush();
    err.flush();
    return code;
  }

  /** The one-line message of a failure: what could not be done, and why. */
  static String describe(Exception e) {
    if (e instanceof CliFailure) {
      return e.getMessage();
    }
    if (e instanceof JdbiException || e instanceof StoreException) {
      return "the ledger's database failed: " + Redaction.message(e);
    }
    if (e instanceof SinkException || e instanceof SdkException) {
      return "the bucket cannot be read: " + Redaction.message(e);
    }
    if (e instanceof IllegalArgumentException) {
      return Redaction.message(e);
    }
    return "unexpected " + e.getClass().getName() + ": " + Redaction.message(e);
  }

  /** The version from the jar's manifest. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = SegmentLedgerCli.class.getPackage().getImplementationVersion();
      return new String[] {"segment-ledger-cli " + (version == null ? "(development build)" : version)};
    }
  }
}
