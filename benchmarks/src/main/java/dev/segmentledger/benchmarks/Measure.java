package dev.segmentledger.benchmarks;

import java.util.List;

/** One measure of the suite; it returns one or more results. */
interface Measure {
  String name();

  List<BenchResult> run(BenchEnv env) throws Exception;
}
