package dev.segmentledger.s3;

import java.time.Duration;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Two clients of an {@link S3FaultRig} whose multipart calls one {@link PartRecorder} counts: one
 * straight to the server ({@link #direct()}) and one through the fault proxy
 * ({@link #throughProxy()}), each with a 60 s attempt timeout. Made for one test and closed after it.
 */
final class RecordedClients implements AutoCloseable {
  private final S3Client direct;
  private final S3Client throughProxy;

  RecordedClients(S3FaultRig rig, PartRecorder recorder) {
    direct = rig.server().clientTo(rig.server().endpoint(), Duration.ofSeconds(60), recorder);
    throughProxy = rig.server().clientTo(rig.proxy().uri(), Duration.ofSeconds(60), recorder);
  }

  S3Client direct() {
    return direct;
  }

  S3Client throughProxy() {
    return throughProxy;
  }

  @Override
  public void close() {
    direct.close();
    throughProxy.close();
  }
}
