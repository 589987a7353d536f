/** Micrometer metrics for Segment Ledger. */
module dev.segmentledger.micrometer {
  requires dev.segmentledger.core;
  requires micrometer.core;

  exports dev.segmentledger.micrometer;
}
