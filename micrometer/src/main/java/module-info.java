/** Micrometer metrics and observations (traces) for Segment Ledger. */
module dev.segmentledger.micrometer {
  requires dev.segmentledger.core;
  requires micrometer.core;
  requires micrometer.observation;
  requires org.slf4j;

  exports dev.segmentledger.micrometer;
}
