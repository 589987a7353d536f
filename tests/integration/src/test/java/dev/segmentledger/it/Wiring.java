package dev.segmentledger.it;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.segmentledger.core.Backoff;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerBuilder;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.Repackager;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.core.spi.UploadContent;
import dev.segmentledger.testkit.LedgerEvents;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;

/**
 * The production wiring with test timings: fast sweeps, short backoff, and short leases, so that
 * the rows a killed process was uploading are taken over within seconds, not the default minutes.
 */
final class Wiring {
  static final Backoff SHORT_BACKOFF = new Backoff(Duration.ofMillis(50), Duration.ofMillis(200), 2.0, 0.2);
  static final Duration SHORT_LEASE = Duration.ofSeconds(2);

  private Wiring() {}

  static LedgerBuilder ledger(StateStore store, ObjectSink sink, Path root, Repackager repackager,
      LedgerEvents events) {
    return Ledger.builder()
        .stateStore(store)
        .objectSink(sink)
        .allowedRoot(root)
        .repackager(repackager, root.resolve("playback"))
        .sweepInterval(Duration.ofMillis(50))
        .backoff(SHORT_BACKOFF)
        .leaseDuration(SHORT_LEASE)
        .workers(2)
        .listener(events);
  }

  /**
   * A pooled data source on {@code jdbcUrl} ({@code user} and {@code password} may be null), as a
   * production deployment would give the store: the test fixture's data source opens a connection
   * per call, which dominates the cost of an upload once thousands of items are moved.
   */
  static HikariDataSource pool(String jdbcUrl, String user, String password, int size) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(jdbcUrl);
    config.setUsername(user);
    config.setPassword(password);
    config.setMaximumPoolSize(size);
    return new HikariDataSource(config);
  }

  /**
   * The recorded file of an ORIGINAL item under the root: written once, atomically (a closed
   * segment appears whole or not at all), and returned as it is when it exists already.
   */
  static Path record(Path root, ItemId id) {
    try {
      Path file = root.resolve("rec").resolve(id.broadcastId()).resolve(id.rendition() + "-" + id.sequence() + ".ts");
      Files.createDirectories(file.getParent());
      if (Files.exists(file)) {
        // A recorder writes a segment once; a restarted recorder registers the files it finds. (A
        // rewrite, even of the same bytes, is a changed file: the upload refuses it, FILE_CHANGED.)
        return file.toRealPath();
      }
      // Written beside it and renamed into place, as a recorder closes a segment: a process killed
      // while writing leaves only a temporary file, never a partial segment a restart would register.
      Path partial = Files.createTempFile(file.getParent(), file.getFileName().toString(), ".part");
      Files.writeString(partial, "recorded bytes of " + id + "\n".repeat((int) (id.sequence() % 7 + 1)));
      return Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE).toRealPath();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The bytes of a file as sink content. */
  static UploadContent contentOf(Path file) {
    try {
      byte[] bytes = Files.readAllBytes(file);
      return new UploadContent() {
        @Override
        public long size() {
          return bytes.length;
        }

        @Override
        public InputStream openStream() {
          return new ByteArrayInputStream(bytes);
        }
      };
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
