package dev.segmentledger.spring;

import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerBuilder;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.Repackager;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.ffmpeg.FfmpegRepackager;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.micrometer.LedgerMetrics;
import dev.segmentledger.micrometer.ObservationTracing;
import dev.segmentledger.s3.S3ObjectSink;
import io.micrometer.observation.ObservationRegistry;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

/**
 * Builds a {@link Ledger} from the application's {@link DataSource} and {@link S3Client} (or an S3
 * client of {@code segment-ledger.s3.*}), configured by {@link SegmentLedgerProperties}. Each bean
 * backs off when the application defines its own: {@link StateStore}, {@link ObjectSink}, {@link
 * S3Client}, {@link Ledger}. Every {@link LedgerListener} bean is added to the ledger; a {@link
 * Repackager} bean (with {@code segment-ledger.repackager.playback-root}) replaces the ffmpeg one.
 * The ledger is started and stopped by {@link SegmentLedgerLifecycle}.
 */
@AutoConfiguration(afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnProperty(prefix = SegmentLedgerProperties.PREFIX, name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(SegmentLedgerProperties.class)
public class SegmentLedgerAutoConfiguration {

  /** The ledger tables in the application's database; migrated first if {@code segment-ledger.migrate=true}. */
  @Bean
  @ConditionalOnMissingBean(StateStore.class)
  @ConditionalOnBean(DataSource.class)
  public JdbiStateStore segmentLedgerStateStore(DataSource dataSource, SegmentLedgerProperties properties) {
    JdbiStateStore store = JdbiStateStore.create(Jdbi.create(dataSource));
    return properties.isMigrate() ? store.migrate() : store;
  }

  /** Event counters; Spring Boot binds them to each MeterRegistry (a {@code MeterBinder}). */
  @Bean
  @ConditionalOnMissingBean
  public LedgerMetrics segmentLedgerMetrics() {
    return LedgerMetrics.unbound(Clock.systemUTC());
  }

  /** The ledger, started by {@link SegmentLedgerLifecycle}. */
  @Bean
  @ConditionalOnMissingBean(Ledger.class)
  public Ledger segmentLedger(StateStore store, ObjectSink sink, SegmentLedgerProperties properties,
      ObjectProvider<LedgerListener> listeners, ObjectProvider<Repackager> repackager,
      ObjectProvider<ObservationRegistry> observations) {
    if (properties.getAllowedRoot() == null || properties.getAllowedRoot().isBlank()) {
      throw new IllegalStateException(SegmentLedgerProperties.PREFIX
          + ".allowed-root is required: the only directory whose files may be uploaded");
    }
    LedgerBuilder builder = properties.bindTo(Ledger.builder()
        .stateStore(store)
        .objectSink(sink)
        .allowedRoot(Path.of(properties.getAllowedRoot())));
    // Spring Boot's tracing (Brave or OpenTelemetry through Micrometer Tracing) handles the
    // observations of this registry: the ledger's spans join the application's traces.
    ObservationRegistry observationRegistry = observations.getIfUnique();
    if (observationRegistry != null && !observationRegistry.isNoop()) {
      builder.tracing(ObservationTracing.create(observationRegistry));
    }
    SegmentLedgerProperties.Repackager repackaging = properties.getRepackager();
    Repackager custom = repackager.getIfUnique();
    if (custom != null || repackaging.isEnabled()) {
      if (repackaging.getPlaybackRoot() == null || repackaging.getPlaybackRoot().isBlank()) {
        throw new IllegalStateException(SegmentLedgerProperties.PREFIX
            + ".repackager.playback-root is required with a repackager");
      }
      builder.repackager(custom != null ? custom : ffmpeg(repackaging), Path.of(repackaging.getPlaybackRoot()));
    }
    listeners.orderedStream().forEach(builder::listener);
    Ledger ledger = builder.build();
    listeners.orderedStream()
        .filter(LedgerMetrics.class::isInstance)
        .forEach(l -> ((LedgerMetrics) l).bindGauges(ledger));
    return ledger;
  }

  private static Repackager ffmpeg(SegmentLedgerProperties.Repackager properties) {
    FfmpegRepackager.Builder builder = FfmpegRepackager.builder()
        .ffmpeg(Path.of(properties.getFfmpeg()))
        .timeout(properties.getTimeout());
    if (properties.getFfprobe() != null) {
      builder.ffprobe(Path.of(properties.getFfprobe()));
    }
    return builder.build();
  }

  /** The S3 bucket, unless the application defines its own {@link ObjectSink}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnMissingBean(ObjectSink.class)
  static class S3SinkConfiguration {

    /** An S3 client of {@code segment-ledger.s3.*}, unless the application has an {@link S3Client} bean. */
    @Bean
    @ConditionalOnMissingBean(S3Client.class)
    S3Client segmentLedgerS3Client(SegmentLedgerProperties properties) {
      SegmentLedgerProperties.S3 s3 = properties.getS3();
      S3ClientBuilder builder = S3Client.builder().forcePathStyle(s3.isPathStyle());
      if (s3.getRegion() != null) {
        builder.region(Region.of(s3.getRegion()));
      }
      if (s3.getEndpoint() != null) {
        builder.endpointOverride(URI.create(s3.getEndpoint()));
      }
      if (s3.getAccessKey() != null) {
        builder.credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create(s3.getAccessKey(), s3.getSecretKey())));
      }
      if (s3.isChecksumsWhenRequired()) {
        builder.requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
            .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED);
      }
      return builder.build();
    }

    @Bean
    S3ObjectSink segmentLedgerObjectSink(S3Client client, SegmentLedgerProperties properties) {
      SegmentLedgerProperties.S3 s3 = properties.getS3();
      if (s3.getBucket() == null || s3.getBucket().isBlank()) {
        throw new IllegalStateException(SegmentLedgerProperties.PREFIX + ".s3.bucket is required");
      }
      return S3ObjectSink.builder()
          .client(client)
          .bucket(s3.getBucket())
          .prefix(s3.getPrefix())
          .multipartThreshold(s3.getMultipartThreshold())
          .partSize(s3.getPartSize())
          .partConcurrency(s3.getPartConcurrency())
          .conditionalWrites(s3.getConditionalWrites())
          .integrity(s3.getIntegrity())
          .build();
    }
  }
}
