/**
 * Segment Ledger core: the ledger contract, its engine, and the extension points.
 *
 * <p>Only {@code dev.segmentledger.core} and {@code dev.segmentledger.core.query} (the API) and
 * {@code dev.segmentledger.core.spi} (what store, sink and tracing adapters implement) are
 * exported; the engine stays internal.
 *
 * <p>On a JDK 22 or later, given native access ({@code --enable-native-access=dev.segmentledger.core},
 * or {@code ALL-UNNAMED} on the class path), the upload opens files with Linux's {@code openat2}
 * through the Foreign Function and Memory API; without it, the module calls no native code.
 */
module dev.segmentledger.core {
  requires dev.failsafe.core;
  requires org.slf4j;

  exports dev.segmentledger.core;
  exports dev.segmentledger.core.query;
  exports dev.segmentledger.core.spi;
}
