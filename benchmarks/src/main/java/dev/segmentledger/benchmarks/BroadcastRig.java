package dev.segmentledger.benchmarks;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerBuilder;
import dev.segmentledger.rig.LedgerTableReads;
import dev.segmentledger.rig.PlaylistPutLog;
import dev.segmentledger.s3.S3ObjectSink;
import dev.segmentledger.testkit.FakeRepackager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The wiring of the broadcast measures ({@link LongBroadcastMeasure}, {@link ManyBroadcastsMeasure}):
 * a started ledger on a fresh schema of durable PostgreSQL (HikariCP pool), the testkit's
 * {@link FakeRepackager} (2 s segments), an {@link S3ObjectSink} on the suite's S3 server (its own
 * process) behind a {@link PlaylistPutLog}, which is also a listener of the ledger, and the
 * {@link LedgerTableReads} of the schema. Segment files of {@link #segmentBytes()} bytes are written
 * under the allowed root as a recorder closes them (beside, then renamed). Close it: the ledger
 * stops, the schema is dropped. Not thread-safe, except {@link #register}.
 */
final class BroadcastRig implements AutoCloseable {
  static final String SEGMENT_BYTES_PROPERTY = "bench.broadcast.segment_bytes";
  private static final AtomicInteger BUCKETS = new AtomicInteger();

  private final BenchEnv.Database db;
  private final S3Client s3;
  private final PlaylistPutLog bucket;
  private final Ledger ledger;
  private final LedgerTableReads reads;
  private final Path root;
  private final byte[] segment;

  private BroadcastRig(BenchEnv.Database db, S3Client s3, PlaylistPutLog bucket, Ledger ledger,
      LedgerTableReads reads, Path root, byte[] segment) {
    this.db = db;
    this.s3 = s3;
    this.bucket = bucket;
    this.ledger = ledger;
    this.reads = reads;
    this.root = root;
    this.segment = segment;
  }

  /**
   * @param settings the ledger's settings beyond store, sink, root, repackager and listener
   */
  static BroadcastRig start(BenchEnv env, String name, int poolSize, UnaryOperator<LedgerBuilder> settings)
      throws Exception {
    int segmentBytes = Integer.getInteger(SEGMENT_BYTES_PROPERTY, 4096);
    Path root = env.newDir(name);
    BenchEnv.Database db = env.newDatabase(name, poolSize);
    S3Client s3 = null;
    try {
      s3 = UploadMeasure.client(env.s3Server().endpoint());
      String bucketName = name.replace('_', '-') + "-" + BUCKETS.incrementAndGet();
      s3.createBucket(b -> b.bucket(bucketName));
      PlaylistPutLog bucket = PlaylistPutLog.wrapping(S3ObjectSink.builder().client(s3).bucket(bucketName).build());
      LedgerTableReads reads = new LedgerTableReads(env.connectToServer(), db.schema(), db.schema(),
          () -> db.dataSource().getHikariPoolMXBean().softEvictConnections(), Duration.ofSeconds(60));
      Ledger ledger = settings.apply(Ledger.builder().stateStore(db.store()).objectSink(bucket).allowedRoot(root)
          .repackager(new FakeRepackager(Duration.ofSeconds(2)), root.resolve("playback")).listener(bucket)).build();
      ledger.start();
      byte[] segment = new byte[segmentBytes];
      Arrays.fill(segment, (byte) 'x');
      return new BroadcastRig(db, s3, bucket, ledger, reads, root, segment);
    } catch (Exception | Error e) {
      if (s3 != null) {
        s3.close();
      }
      db.close();
      throw e;
    }
  }

  /** Writes the original of {@code id} and registers it. Thread-safe. */
  void register(ItemId id) throws Exception {
    Path file = root.resolve("rec").resolve(id.broadcastId()).resolve(id.rendition() + "-" + id.sequence() + ".ts");
    Files.createDirectories(file.getParent());
    Path partial = file.resolveSibling(file.getFileName() + ".part");
    Files.write(partial, segment);
    Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE);
    ledger.register(id, file);
  }

  PlaylistPutLog bucket() {
    return bucket;
  }

  Ledger ledger() {
    return ledger;
  }

  int segmentBytes() {
    return segment.length;
  }

  /** Rows read from the ledger's tables so far, settled ({@link LedgerTableReads}). */
  long rowsRead() throws Exception {
    return reads.settledTotal();
  }

  /** The conditions every broadcast result carries. */
  void describe(Map<String, Object> c) {
    c.put("segment_bytes", segment.length);
    c.put("repackager", "testkit FakeRepackager, 2 s segments (a header added to the original's bytes)");
    c.put("sink", "S3ObjectSink (s3-sink README plain-HTTP client) on " + S3ProxyProcess.description()
        + ", wrapped by the rig's PlaylistPutLog");
    c.put("rows_read", "seq_tup_read + idx_tup_fetch of pg_stat_user_tables over the schema's segment_ledger_* tables,"
        + " settled by closing the pool's backends and waiting for them to exit (LedgerTableReads)");
    c.put("publication_lag", "from onConfirmed of the PLAYBACK row to the return of the first PUT of any .m3u8 of"
        + " its rendition's folder that lists the segment's key, not as a gap (PlaylistPutLog)");
    c.put("pool", db.dataSource().getMaximumPoolSize());
  }

  @Override
  public void close() throws Exception {
    try {
      ledger.close();
    } finally {
      try {
        reads.close();
        s3.close();
      } finally {
        db.close();
      }
    }
  }
}
