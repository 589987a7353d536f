package dev.segmentledger.s3;

/**
 * How an {@link S3ObjectSink} asks the server to check the bytes it stores. In both modes every
 * request body carries its {@code Content-MD5}, and the object carries its SHA-256 as user metadata.
 */
public enum Integrity {
  /**
   * {@code Content-MD5} only: the requests of servers without S3's additional checksums (Ceph RGW
   * before 19, Backblaze B2, Google Cloud Storage's XML API, S3Proxy before 3). The default.
   */
  MD5_ONLY,
  /**
   * Also S3's full-object CRC32C: {@code x-amz-checksum-crc32c} on {@code PutObject}; on a multipart
   * upload, {@code CreateMultipartUpload} asks for a {@code FULL_OBJECT} CRC32C, each {@code
   * UploadPart} carries its part's CRC32C, and {@code CompleteMultipartUpload} lists them with the
   * whole object's, so the server refuses any part, or an assembled object, whose bytes differ. For
   * AWS S3 and servers that implement its checksums.
   */
  CHECKSUMS
}
