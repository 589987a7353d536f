/** Micrometer metrics for Segment Ledger. */
module dev.segmentledger.micrometer {
  requires dev.segmentledger.core;
  requires micrometer.core;
  requires org.slf4j;

  exports dev.segmentledger.micrometer;
}
