package dev.segmentledger.spring;

import dev.segmentledger.core.Backoff;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerBuilder;
import dev.segmentledger.core.Reconciler;
import dev.segmentledger.ffmpeg.FfmpegRepackager;
import dev.segmentledger.s3.ConditionalWrites;
import dev.segmentledger.s3.Integrity;
import dev.segmentledger.s3.S3ObjectSink;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * The {@code segment-ledger.*} properties: every setting of {@link LedgerBuilder}, the S3 bucket,
 * and the starter's own (migration, health, endpoint). Validated when bound; a wrong value stops
 * the application with a message that names the property.
 */
@ConfigurationProperties(SegmentLedgerProperties.PREFIX)
public class SegmentLedgerProperties implements InitializingBean {
  /** The prefix of every property. */
  public static final String PREFIX = "segment-ledger";

  /** Whether to build a ledger at all. */
  private boolean enabled = true;

  /**
   * The only directory whose files may be uploaded (required); relative paths given to register are
   * resolved against it.
   */
  private String allowedRoot;

  /** Apply the missing schema migrations of the ledger tables at start-up. */
  private boolean migrate = false;

  /** Number of upload worker threads. */
  private int workers = LedgerBuilder.DEFAULT_WORKERS;

  /** Capacity of the bounded in-memory queue. */
  private int queueCapacity = LedgerBuilder.DEFAULT_QUEUE_CAPACITY;

  /** Rows read per axis per sweep round. */
  private int sweepBatchSize = LedgerBuilder.DEFAULT_SWEEP_BATCH_SIZE;

  /** Pause between sweep rounds. */
  private Duration sweepInterval = LedgerBuilder.DEFAULT_SWEEP_INTERVAL;

  /** How long stopping the ledger waits for in-flight uploads. */
  private Duration shutdownTimeout = LedgerBuilder.DEFAULT_SHUTDOWN_TIMEOUT;

  /**
   * Unconfirmed rows registered longer ago than this are excluded from recovery (PAST_CUTOFF). Unset:
   * retried for ever.
   */
  private Duration cutoff;

  /** The name of this instance among all sharing the database; unset: hostname-pid-random. */
  private String nodeId;

  /**
   * The storage group of this instance: the instances that can read the files it registers (a host
   * with a local disk: its own name). Unset: storage every instance can read.
   */
  private String storageGroup;

  /**
   * The free space under the allowed root below which the disk is low: the health is then DEGRADED
   * with the cause LOW_DISK (for example {@code 20GB}). Unset: no threshold.
   */
  private DataSize lowDiskThreshold;

  /**
   * Opt-in local retention of originals: how long after an original and its derived rows were
   * confirmed its recorded file is deleted from this host's disk. Unset: originals are never deleted.
   */
  private Duration localRetention;

  /**
   * How long a lease keeps other instances from a row past the last sign of life of the attempt that
   * holds it (renewed by the heartbeat while the attempt lives).
   */
  private Duration leaseDuration = LedgerBuilder.DEFAULT_LEASE;

  /** How long an attempt may make no progress before its own node cancels it (STALLED). */
  private Duration stallTimeout = LedgerBuilder.DEFAULT_STALL_TIMEOUT;

  /** Deaths blamed on a row before it is rejected as a poison (REPEATEDLY_ABANDONED). */
  private int maxAbandonedAttempts = LedgerBuilder.DEFAULT_MAX_ABANDONED_ATTEMPTS;

  /** Attempts after which INTERNAL_ERROR and REPACKAGE_FAILED end a row REJECTED. */
  private int maxErrorAttempts = LedgerBuilder.DEFAULT_MAX_ERROR_ATTEMPTS;

  /** The fewest segments of a rendition's live window playlist ({rendition}/live.m3u8); at least 3. */
  private int liveWindowSegments = LedgerBuilder.DEFAULT_LIVE_WINDOW_SEGMENTS;

  /** The shortest time between two PUTs of a live broadcast's full media playlist (0: every publication). */
  private Duration fullPlaylistInterval = LedgerBuilder.DEFAULT_FULL_PLAYLIST_INTERVAL;

  /** How old an unfinished multipart upload must be for reconcile-and-repair to abort it. */
  private Duration abortUnfinishedUploadsAfter = Reconciler.DEFAULT_ABORT_UNFINISHED_AFTER;

  private final BackoffProperties backoff = new BackoffProperties();
  private final Breaker breaker = new Breaker();
  private final Repackager repackager = new Repackager();
  private final S3 s3 = new S3();
  private final Metrics metrics = new Metrics();
  private final UplinkProperties uplink = new UplinkProperties();
  private final Health health = new Health();
  private final Endpoint endpoint = new Endpoint();

  @Override
  public void afterPropertiesSet() {
    List<String> problems = problems();
    if (!problems.isEmpty()) {
      throw new IllegalStateException("Invalid Segment Ledger configuration: " + String.join("; ", problems));
    }
  }

  /**
   * Every problem of these settings, each naming its property; empty when valid. The required
   * {@code allowed-root} and {@code s3.bucket} are checked where they are used: not when the
   * application defines its own ledger or sink.
   */
  public List<String> problems() {
    List<String> p = new ArrayList<>();
    if (!enabled) {
      return p;
    }
    // Every value is checked by the builder that takes it: one source for every check.
    bindTo(Ledger.builder(), p);
    if (repackager.enabled) {
      if (repackager.playbackRoot == null || repackager.playbackRoot.isBlank()) {
        p.add(PREFIX + ".repackager.playback-root is required when segment-ledger.repackager.enabled=true");
      }
      check(p, "repackager.timeout", () -> FfmpegRepackager.builder().timeout(repackager.timeout));
    }
    positive(p, "metrics.backlog-refresh-interval", metrics.backlogRefreshInterval, true);
    positive(p, "health.max-oldest-age", health.maxOldestAge, true);
    if ((s3.accessKey == null) != (s3.secretKey == null)) {
      p.add(PREFIX + ".s3.access-key and segment-ledger.s3.secret-key go together: set both or neither");
    }
    S3ObjectSink.Builder sink = S3ObjectSink.builder();
    check(p, "s3.multipart-threshold", () -> sink.multipartThreshold(s3.multipartThreshold));
    check(p, "s3.part-size", () -> sink.partSize(s3.partSize));
    check(p, "s3.part-concurrency", () -> sink.partConcurrency(s3.partConcurrency));
    if (s3.conditionalWrites == null) {
      p.add(PREFIX + ".s3.conditional-writes must be one of " + allowed(ConditionalWrites.values()));
    }
    if (s3.integrity == null) {
      p.add(PREFIX + ".s3.integrity must be one of " + allowed(Integrity.values()));
    }
    return p;
  }

  /**
   * Gives every ledger setting of these properties to {@code ledger}: the one place where a property
   * meets its {@link LedgerBuilder} setter (and so its {@link dev.segmentledger.core.LedgerSettings}
   * property). The collaborators (store, sink, allowed root, repackager, listeners, tracing) are the
   * auto-configuration's. Valid properties ({@link #problems()} empty) leave {@code problems} empty.
   *
   * @param problems where each refused value is recorded, under its property's name
   * @return {@code ledger}
   */
  LedgerBuilder bindTo(LedgerBuilder ledger, List<String> problems) {
    check(problems, "workers", () -> ledger.workers(workers));
    check(problems, "queue-capacity", () -> ledger.queueCapacity(queueCapacity));
    check(problems, "sweep-batch-size", () -> ledger.sweepBatchSize(sweepBatchSize));
    check(problems, "sweep-interval", () -> ledger.sweepInterval(sweepInterval));
    check(problems, "shutdown-timeout", () -> ledger.shutdownTimeout(shutdownTimeout));
    check(problems, "backoff", () -> ledger.backoff(toBackoff()));
    check(problems, "breaker", () -> ledger.circuitBreaker(breaker.failures, breaker.openDelay));
    check(problems, "lease-duration", () -> ledger.leaseDuration(leaseDuration));
    check(problems, "stall-timeout", () -> ledger.stallTimeout(stallTimeout));
    check(problems, "max-abandoned-attempts", () -> ledger.maxAbandonedAttempts(maxAbandonedAttempts));
    check(problems, "max-error-attempts", () -> ledger.maxErrorAttempts(maxErrorAttempts));
    check(problems, "live-window-segments", () -> ledger.liveWindowSegments(liveWindowSegments));
    check(problems, "full-playlist-interval", () -> ledger.fullPlaylistInterval(fullPlaylistInterval));
    check(problems, "abort-unfinished-uploads-after",
        () -> ledger.abortUnfinishedUploadsAfter(abortUnfinishedUploadsAfter));
    if (cutoff != null) {
      check(problems, "cutoff", () -> ledger.cutoff(cutoff));
    }
    if (nodeId != null) {
      check(problems, "node-id", () -> ledger.nodeId(nodeId));
    }
    if (storageGroup != null) {
      check(problems, "storage-group", () -> ledger.storageGroup(storageGroup));
    }
    if (lowDiskThreshold != null) {
      check(problems, "low-disk-threshold", () -> ledger.lowDiskThreshold(lowDiskThreshold.toBytes()));
    }
    if (localRetention != null) {
      check(problems, "local-retention", () -> ledger.localRetention(localRetention));
    }
    check(problems, "uplink", () -> ledger.uplink(uplink.toUplink()));
    return ledger;
  }

  /** {@link #bindTo(LedgerBuilder, List)} for a ledger being built: a refused value fails, naming its property. */
  LedgerBuilder bindTo(LedgerBuilder ledger) {
    List<String> problems = new ArrayList<>();
    bindTo(ledger, problems);
    if (!problems.isEmpty()) {
      throw new IllegalStateException("Invalid Segment Ledger configuration: " + String.join("; ", problems));
    }
    return ledger;
  }

  /**
   * Runs {@code setting} (a builder's setter, which checks its value) and records what it refuses
   * under the property's name: the builder owns the check and its message.
   */
  private static void check(List<String> problems, String name, Runnable setting) {
    try {
      setting.run();
    } catch (IllegalArgumentException | NullPointerException e) {
      problems.add(PREFIX + "." + name + ": " + e.getMessage());
    }
  }

  /** The values of an enum property as they are written: {@code auto, required, off}. */
  private static String allowed(Enum<?>[] values) {
    return Arrays.stream(values).map(v -> v.name().toLowerCase(Locale.ROOT).replace('_', '-'))
        .collect(Collectors.joining(", "));
  }

  private static void positive(List<String> problems, String name, Duration value, boolean required) {
    if (value == null) {
      if (required) {
        problems.add(PREFIX + "." + name + " is required");
      }
    } else if (value.isNegative() || value.isZero()) {
      problems.add(PREFIX + "." + name + " must be > 0, was " + value);
    }
  }

  /** The backoff of these settings. */
  public Backoff toBackoff() {
    return new Backoff(backoff.initial, backoff.max, backoff.multiplier, backoff.jitter);
  }

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public String getAllowedRoot() {
    return allowedRoot;
  }

  public void setAllowedRoot(String allowedRoot) {
    this.allowedRoot = allowedRoot;
  }

  public boolean isMigrate() {
    return migrate;
  }

  public void setMigrate(boolean migrate) {
    this.migrate = migrate;
  }

  public int getWorkers() {
    return workers;
  }

  public void setWorkers(int workers) {
    this.workers = workers;
  }

  public int getQueueCapacity() {
    return queueCapacity;
  }

  public void setQueueCapacity(int queueCapacity) {
    this.queueCapacity = queueCapacity;
  }

  public int getSweepBatchSize() {
    return sweepBatchSize;
  }

  public void setSweepBatchSize(int sweepBatchSize) {
    this.sweepBatchSize = sweepBatchSize;
  }

  public Duration getSweepInterval() {
    return sweepInterval;
  }

  public void setSweepInterval(Duration sweepInterval) {
    this.sweepInterval = sweepInterval;
  }

  public Duration getShutdownTimeout() {
    return shutdownTimeout;
  }

  public void setShutdownTimeout(Duration shutdownTimeout) {
    this.shutdownTimeout = shutdownTimeout;
  }

  public Duration getCutoff() {
    return cutoff;
  }

  public void setCutoff(Duration cutoff) {
    this.cutoff = cutoff;
  }

  public String getNodeId() {
    return nodeId;
  }

  public void setNodeId(String nodeId) {
    this.nodeId = nodeId;
  }

  public String getStorageGroup() {
    return storageGroup;
  }

  public void setStorageGroup(String storageGroup) {
    this.storageGroup = storageGroup;
  }

  public DataSize getLowDiskThreshold() {
    return lowDiskThreshold;
  }

  public void setLowDiskThreshold(DataSize lowDiskThreshold) {
    this.lowDiskThreshold = lowDiskThreshold;
  }

  public Duration getLocalRetention() {
    return localRetention;
  }

  public void setLocalRetention(Duration localRetention) {
    this.localRetention = localRetention;
  }

  public Duration getLeaseDuration() {
    return leaseDuration;
  }

  public void setLeaseDuration(Duration leaseDuration) {
    this.leaseDuration = leaseDuration;
  }

  public Duration getStallTimeout() {
    return stallTimeout;
  }

  public void setStallTimeout(Duration stallTimeout) {
    this.stallTimeout = stallTimeout;
  }

  public int getMaxErrorAttempts() {
    return maxErrorAttempts;
  }

  public void setMaxErrorAttempts(int maxErrorAttempts) {
    this.maxErrorAttempts = maxErrorAttempts;
  }

  public int getLiveWindowSegments() {
    return liveWindowSegments;
  }

  public void setLiveWindowSegments(int liveWindowSegments) {
    this.liveWindowSegments = liveWindowSegments;
  }

  public Duration getFullPlaylistInterval() {
    return fullPlaylistInterval;
  }

  public void setFullPlaylistInterval(Duration fullPlaylistInterval) {
    this.fullPlaylistInterval = fullPlaylistInterval;
  }

  public int getMaxAbandonedAttempts() {
    return maxAbandonedAttempts;
  }

  public void setMaxAbandonedAttempts(int maxAbandonedAttempts) {
    this.maxAbandonedAttempts = maxAbandonedAttempts;
  }

  public Duration getAbortUnfinishedUploadsAfter() {
    return abortUnfinishedUploadsAfter;
  }

  public void setAbortUnfinishedUploadsAfter(Duration abortUnfinishedUploadsAfter) {
    this.abortUnfinishedUploadsAfter = abortUnfinishedUploadsAfter;
  }

  public BackoffProperties getBackoff() {
    return backoff;
  }

  public Breaker getBreaker() {
    return breaker;
  }

  public Repackager getRepackager() {
    return repackager;
  }

  public S3 getS3() {
    return s3;
  }

  public Metrics getMetrics() {
    return metrics;
  }

  public UplinkProperties getUplink() {
    return uplink;
  }

  public Health getHealth() {
    return health;
  }

  public Endpoint getEndpoint() {
    return endpoint;
  }

  /** Backoff between failed attempts of one row. */
  public static class BackoffProperties {
    /** Delay after the first failure. */
    private Duration initial = Backoff.DEFAULT.initial();
    /** Longest delay. */
    private Duration max = Backoff.DEFAULT.max();
    /** Factor by which the delay grows after each further failure. */
    private double multiplier = Backoff.DEFAULT.multiplier();
    /** Fraction of the delay that is random, 0 to 1. */
    private double jitter = Backoff.DEFAULT.jitter();

    public Duration getInitial() {
      return initial;
    }

    public void setInitial(Duration initial) {
      this.initial = initial;
    }

    public Duration getMax() {
      return max;
    }

    public void setMax(Duration max) {
      this.max = max;
    }

    public double getMultiplier() {
      return multiplier;
    }

    public void setMultiplier(double multiplier) {
      this.multiplier = multiplier;
    }

    public double getJitter() {
      return jitter;
    }

    public void setJitter(double jitter) {
      this.jitter = jitter;
    }
  }

  /** The circuit breaker around the bucket. */
  public static class Breaker {
    /** Transient or configuration failures of the bucket in a row that open the breaker. */
    private int failures = LedgerBuilder.DEFAULT_BREAKER_FAILURES;
    /** How long the breaker stays open before one probe upload. */
    private Duration openDelay = LedgerBuilder.DEFAULT_BREAKER_OPEN_DELAY;

    public int getFailures() {
      return failures;
    }

    public void setFailures(int failures) {
      this.failures = failures;
    }

    public Duration getOpenDelay() {
      return openDelay;
    }

    public void setOpenDelay(Duration openDelay) {
      this.openDelay = openDelay;
    }
  }

  /** The ffmpeg repackager that fills the PLAYBACK and INIT axes. */
  public static class Repackager {
    /** Repackage each original with ffmpeg into playback files (PLAYBACK and INIT axes). */
    private boolean enabled = false;
    /** Where playback files are written; inside the allowed root (relative: against it). */
    private String playbackRoot;
    /** The ffmpeg executable: a path, or a name looked up on PATH. */
    private String ffmpeg = "ffmpeg";
    /** The ffprobe executable; unset: ffprobe beside ffmpeg. */
    private String ffprobe;
    /** The longest one ffmpeg or ffprobe run may take. */
    private Duration timeout = FfmpegRepackager.DEFAULT_TIMEOUT;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public String getPlaybackRoot() {
      return playbackRoot;
    }

    public void setPlaybackRoot(String playbackRoot) {
      this.playbackRoot = playbackRoot;
    }

    public String getFfmpeg() {
      return ffmpeg;
    }

    public void setFfmpeg(String ffmpeg) {
      this.ffmpeg = ffmpeg;
    }

    public String getFfprobe() {
      return ffprobe;
    }

    public void setFfprobe(String ffprobe) {
      this.ffprobe = ffprobe;
    }

    public Duration getTimeout() {
      return timeout;
    }

    public void setTimeout(Duration timeout) {
      this.timeout = timeout;
    }
  }

  /**
   * The bucket. The S3 client is the application's {@code S3Client} bean if it has one, else one
   * built from these properties.
   */
  public static class S3 {
    /** The bucket (required). */
    private String bucket;
    /** A prefix before every key, e.g. recordings/. */
    private String prefix = "";
    /** The endpoint of an S3-compatible store; unset: AWS. Used only without an S3Client bean. */
    private String endpoint;
    /** The region; unset: the SDK's default region chain. Used only without an S3Client bean. */
    private String region;
    /** Path-style addressing (bucket in the path), for most S3-compatible stores. Used only without an S3Client bean. */
    private boolean pathStyle = false;
    /** Static access key; unset: the SDK's default credentials chain. Used only without an S3Client bean. */
    private String accessKey;
    /** Static secret key, with access-key. Used only without an S3Client bean. */
    private String secretKey;
    /**
     * Send request checksums only where S3 requires them, and validate response checksums only
     * then (for S3-compatible stores that refuse the SDK's default checksums). Used only without an
     * S3Client bean.
     */
    private boolean checksumsWhenRequired = false;
    /** Content of at least this many bytes is uploaded as multipart. */
    private long multipartThreshold = S3ObjectSink.DEFAULT_MULTIPART_THRESHOLD;
    /** The size of each multipart part but the last (5 MiB to 5 GiB). */
    private long partSize = S3ObjectSink.DEFAULT_PART_SIZE;

    /** Parts of one multipart upload in flight at once (memory: this many read buffers per upload). */
    private int partConcurrency = S3ObjectSink.DEFAULT_PART_CONCURRENCY;

    /**
     * Whether the bucket is asked to refuse replacing an item's object (If-None-Match: * on its
     * first PUT): off (the default), auto (detected once against the bucket at the first write,
     * falling back to off where the server ignores it) or required (fail where it is not honoured).
     */
    private ConditionalWrites conditionalWrites = ConditionalWrites.OFF;

    /**
     * How the server checks the bytes stored: md5-only (Content-MD5) or checksums (also S3's
     * full-object CRC32C, for AWS S3 and servers that implement it).
     */
    private Integrity integrity = Integrity.MD5_ONLY;

    public String getBucket() {
      return bucket;
    }

    public void setBucket(String bucket) {
      this.bucket = bucket;
    }

    public String getPrefix() {
      return prefix;
    }

    public void setPrefix(String prefix) {
      this.prefix = prefix;
    }

    public String getEndpoint() {
      return endpoint;
    }

    public void setEndpoint(String endpoint) {
      this.endpoint = endpoint;
    }

    public String getRegion() {
      return region;
    }

    public void setRegion(String region) {
      this.region = region;
    }

    public boolean isPathStyle() {
      return pathStyle;
    }

    public void setPathStyle(boolean pathStyle) {
      this.pathStyle = pathStyle;
    }

    public String getAccessKey() {
      return accessKey;
    }

    public void setAccessKey(String accessKey) {
      this.accessKey = accessKey;
    }

    public String getSecretKey() {
      return secretKey;
    }

    public void setSecretKey(String secretKey) {
      this.secretKey = secretKey;
    }

    public boolean isChecksumsWhenRequired() {
      return checksumsWhenRequired;
    }

    public void setChecksumsWhenRequired(boolean checksumsWhenRequired) {
      this.checksumsWhenRequired = checksumsWhenRequired;
    }

    public long getMultipartThreshold() {
      return multipartThreshold;
    }

    public void setMultipartThreshold(long multipartThreshold) {
      this.multipartThreshold = multipartThreshold;
    }

    public int getPartConcurrency() {
      return partConcurrency;
    }

    public void setPartConcurrency(int partConcurrency) {
      this.partConcurrency = partConcurrency;
    }

    public long getPartSize() {
      return partSize;
    }

    public void setPartSize(long partSize) {
      this.partSize = partSize;
    }

    public ConditionalWrites getConditionalWrites() {
      return conditionalWrites;
    }

    public void setConditionalWrites(ConditionalWrites conditionalWrites) {
      this.conditionalWrites = conditionalWrites;
    }

    public Integrity getIntegrity() {
      return integrity;
    }

    public void setIntegrity(Integrity integrity) {
      this.integrity = integrity;
    }
  }

  /** How the node shares its uplink: lanes and bandwidth cap (see {@link dev.segmentledger.core.Uplink}). */
  public static class UplinkProperties {
    /** Whether work is taken by lane (live, originals, backfill); false: one queue in arrival order. */
    private boolean lanes = true;
    /** The share of the work taken reserved for originals of live broadcasts while they wait. */
    private double originalShare = 0.2;
    /** The share of the work taken reserved for backfill while it waits. */
    private double backfillShare = 0.2;
    /** The cap on request body bytes a second over the node; unset or 0: none. */
    private DataSize bytesPerSecond;
    /** The cap on request bodies (PUTs and parts) started a second; 0: none. */
    private long requestsPerSecond;
    /**
     * The byte cap by time of day or week, as rclone's --bwlimit timetable: "08:00,512KiB 18:00,20MiB
     * 23:00,off" or "Mon-08:00,1MiB Sat-00:00,off"; when set, it decides the byte cap instead of
     * bytes-per-second.
     */
    private String timetable;
    /** The time zone the timetable's times are read in; unset: the JVM's default zone. */
    private java.time.ZoneId timetableZone;

    /**
     * These properties as the ledger's setting.
     *
     * @throws IllegalArgumentException if a value is out of range or the timetable cannot be read
     */
    public dev.segmentledger.core.Uplink toUplink() {
      return dev.segmentledger.core.Uplink.builder().lanes(lanes).reservedShares(originalShare, backfillShare)
          .bytesPerSecond(bytesPerSecond == null ? 0 : bytesPerSecond.toBytes())
          .requestsPerSecond(requestsPerSecond)
          .timetable(timetable == null || timetable.isBlank() ? null : dev.segmentledger.core.UplinkTimetable.parse(
              timetable, timetableZone == null ? java.time.ZoneId.systemDefault() : timetableZone))
          .build();
    }

    public String getTimetable() {
      return timetable;
    }

    public void setTimetable(String timetable) {
      this.timetable = timetable;
    }

    public java.time.ZoneId getTimetableZone() {
      return timetableZone;
    }

    public void setTimetableZone(java.time.ZoneId timetableZone) {
      this.timetableZone = timetableZone;
    }

    public boolean isLanes() {
      return lanes;
    }

    public void setLanes(boolean lanes) {
      this.lanes = lanes;
    }

    public double getOriginalShare() {
      return originalShare;
    }

    public void setOriginalShare(double originalShare) {
      this.originalShare = originalShare;
    }

    public double getBackfillShare() {
      return backfillShare;
    }

    public void setBackfillShare(double backfillShare) {
      this.backfillShare = backfillShare;
    }

    public DataSize getBytesPerSecond() {
      return bytesPerSecond;
    }

    public void setBytesPerSecond(DataSize bytesPerSecond) {
      this.bytesPerSecond = bytesPerSecond;
    }

    public long getRequestsPerSecond() {
      return requestsPerSecond;
    }

    public void setRequestsPerSecond(long requestsPerSecond) {
      this.requestsPerSecond = requestsPerSecond;
    }
  }

  /** Metrics (with a Micrometer MeterRegistry). */
  public static class Metrics {
    /** How often the backlog gauges and the health indicator re-read the backlog from the database. */
    private Duration backlogRefreshInterval = Duration.ofSeconds(30);

    public Duration getBacklogRefreshInterval() {
      return backlogRefreshInterval;
    }

    public void setBacklogRefreshInterval(Duration backlogRefreshInterval) {
      this.backlogRefreshInterval = backlogRefreshInterval;
    }
  }

  /** The segmentLedger health indicator (meant for the readiness group). */
  public static class Health {
    /**
     * Out of service once the oldest unconfirmed row is older than this and the backlog has not
     * shrunk since the previous read.
     */
    private Duration maxOldestAge = Duration.ofMinutes(15);

    public Duration getMaxOldestAge() {
      return maxOldestAge;
    }

    public void setMaxOldestAge(Duration maxOldestAge) {
      this.maxOldestAge = maxOldestAge;
    }
  }

  /** The segmentledger actuator endpoint. */
  public static class Endpoint {
    /** Expose the write operation that re-opens rejected rows. */
    private boolean reopenEnabled = false;

    public boolean isReopenEnabled() {
      return reopenEnabled;
    }

    public void setReopenEnabled(boolean reopenEnabled) {
      this.reopenEnabled = reopenEnabled;
    }
  }
}
