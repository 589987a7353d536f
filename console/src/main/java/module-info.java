/** The Segment Ledger operations console: pages rendered on the server, hosted by a web framework or the JDK. */
module dev.segmentledger.console {
  requires transitive dev.segmentledger.core;
  requires java.net.http;
  requires org.slf4j;

  exports dev.segmentledger.console;
}
