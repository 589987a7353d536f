package dev.segmentledger.examples;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.Registration;
import dev.segmentledger.core.RootReplacedException;
import dev.segmentledger.core.StoreException;
import dev.segmentledger.ffmpeg.FfmpegRepackager;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.s3.ObjectOptions;
import dev.segmentledger.s3.S3ObjectSink;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.StorageClass;

/**
 * The code snippets of README.md, compiled with the project so that they cannot rot. Each
 * method is one snippet; keep them in sync with the README and the docs/ page each names.
 */
final class ReadmeSnippets {
  private static final Logger log = LoggerFactory.getLogger(ReadmeSnippets.class);

  private ReadmeSnippets() {}

  // README: "Quickstart", the wiring
  static Ledger wire(DataSource dataSource, S3Client s3) {
    Ledger ledger = Ledger.builder()
        .stateStore(JdbiStateStore.create(Jdbi.create(dataSource)).migrate())
        .objectSink(S3ObjectSink.builder().client(s3).bucket("recordings").build())
        .allowedRoot(Path.of("/var/recordings"))
        .build();
    ledger.start();
    ledger.register(ItemId.original("b42", "720p", 7), Path.of("/var/recordings/b42/720p/00007.ts"));
    return ledger;
  }

  // README: "Quickstart" — all three axes, with the ffmpeg repackager and a cutoff
  static Ledger wireAllAxes(DataSource dataSource, S3Client s3) {
    return Ledger.builder()
        .stateStore(JdbiStateStore.create(Jdbi.create(dataSource)).migrate())
        .objectSink(S3ObjectSink.builder().client(s3).bucket("recordings").prefix("live/").build())
        .allowedRoot(Path.of("/var/recordings"))
        .repackager(FfmpegRepackager.builder().build(), Path.of("/var/recordings/playback"))
        .cutoff(Duration.ofDays(2))
        .build();
  }

  // README: "Quickstart" — register each closed file, end the broadcast, serve the playlist
  static void record(Ledger ledger, Path closedFile, long sequence) {
    Registration registration = ledger.register(ItemId.original("b42", "720p", sequence), closedFile);
    if (registration.rejected()) {
      log.warn("refused: {} {}", registration.item().reason(), registration.item().lastError());
    }
  }

  // docs/bucket.md: "Request options" — per-object options on top of the default content types
  static S3ObjectSink withRequestOptions(S3Client s3) {
    return S3ObjectSink.builder()
        .client(s3)
        .bucket("recordings")
        .objectOptions((key, defaults) -> {
          ObjectOptions.Builder options = defaults.toBuilder() // keeps the content type by extension
              .sseKms("arn:aws:kms:eu-west-1:111122223333:key/recordings")
              .expectedBucketOwner("111122223333");
          Optional<ItemId> id = ObjectKeys.idOf(key);
          if (id.isEmpty()) { // a playlist (.m3u8): rewritten while the broadcast is live
            options.cacheControl("no-cache");
          } else if (id.get().axis() == Axis.ORIGINAL) { // archive copies: rarely read
            options.storageClass(StorageClass.STANDARD_IA).tag("kind", "original");
          } else { // init and segments, what players fetch: never change once written
            options.cacheControl("public, max-age=31536000, immutable");
          }
          return options.build();
        })
        .build();
  }

  // docs/failover.md: "When PostgreSQL fails over" — the pool: only a primary, every wait bounded
  static HikariDataSource failoverPool() {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl("jdbc:postgresql://db-1:5432,db-2:5432/recorder"
        + "?targetServerType=primary" // a standby, or a node being promoted that still refuses writes, is skipped
        + "&connectTimeout=2"         // s: TCP connect to one host
        + "&socketTimeout=5"          // s: any wait for an answer (a frozen primary); above the longest statement
        + "&loginTimeout=10"          // s: one login over all hosts; above socketTimeout (a frozen first host)
        + "&tcpKeepAlive=true");
    config.setConnectionTimeout(3_000); // ms: how long register waits for a connection to a primary
    config.setValidationTimeout(1_000); // ms: the check of a connection idle for more than 0.5 s
    config.setKeepaliveTime(30_000);    // ms: idle connections are checked, those to a dead primary dropped
    return new HikariDataSource(config);
  }

  // docs/failover.md: "When PostgreSQL fails over" — the recorder registers a closed file until a call returns
  static Registration registerUntilDone(Ledger ledger, ItemId id, Path closedFile) throws InterruptedException {
    long pauseMs = 50;
    while (true) {
      try {
        return ledger.register(id, closedFile);
      } catch (StoreException e) {
        // NOT_WRITTEN: no primary took it. UNKNOWN: the answer was lost, the row may exist. Either way
        // register again: the same file is the same row (created() == false if it was committed).
        log.warn("registering {} failed ({}); again in {} ms: {}", id, e.writeOutcome(), pauseMs, e.getMessage());
      } catch (RootReplacedException e) {
        // The allowed root is not the directory the ledger opened (unmounted, a symlink in its place):
        // nothing was written; the same call succeeds once the root is back.
        log.warn("registering {} refused ({}); again in {} ms: {}", id, e.reason(), pauseMs, e.getMessage());
      }
      Thread.sleep(pauseMs);
      pauseMs = Math.min(2 * pauseMs, 1_000);
    }
  }

  static String finish(Ledger ledger) {
    ledger.endBroadcast("b42");
    return ledger.playback("b42", "720p").mediaPlaylist().orElse("#EXTM3U\n");
  }
}
