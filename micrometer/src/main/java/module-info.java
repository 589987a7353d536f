/** Micrometer metrics and observations (traces) for Segment Ledger. */
// Micrometer's jars are automatic modules (no module-info), and MeterRegistry and
// ObservationRegistry appear in this module's API, as core's types do.
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.segmentledger.micrometer {
  requires transitive dev.segmentledger.core;
  requires transitive micrometer.core;
  requires transitive micrometer.observation;
  requires org.slf4j;

  exports dev.segmentledger.micrometer;
}
