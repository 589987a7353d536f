package dev.segmentledger.s3;

/**
 * {@link ConditionalWritesCases} on the suite's S3 server: S3Proxy (2.9 by default, 3.x under {@code
 * -Ps3proxy-3}), or Ceph RGW under {@code -Prgw} ({@link S3TestServer}).
 */
class ConditionalWritesTest extends ConditionalWritesCases {
  @Override
  protected S3TestServer startServer() throws Exception {
    return S3TestServer.start();
  }

  /** What the probe found (see docs/bucket.md): S3Proxy 2.9 and 3.3, and RGW 16.2, all refuse a PUT with 412. */
  @Override
  protected boolean refusesOverwrites() {
    return true;
  }

  /** All three ignore the header on CompleteMultipartUpload and overwrite: the probe must say so. */
  @Override
  protected boolean refusesOverwritingCompletions() {
    return false;
  }
}
