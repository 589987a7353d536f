package dev.segmentledger.benchmarks;

import java.util.List;

/**
 * One way the primary of a pg_auto_failover cluster ({@link AutoFailoverCluster}) goes away while
 * a recorder registers live ({@link FailoverMeasure}).
 *
 * @param name the measure name (for {@code --scenarios=})
 * @param description what is done to the primary, for the results
 * @param fault what {@link FailoverRun} does
 */
record FailoverScenario(String name, String description, Fault fault) {

  /** What happens to the primary. */
  enum Fault {
    /** SIGKILL of the postmaster; its keeper lives on and the monitor fails over. */
    KILL_POSTMASTER,
    /** {@code pg_autoctl perform switchover}: planned, orderly. */
    SWITCHOVER,
    /** SIGSTOP of every process of the primary's node, SIGCONT once the other node is primary. */
    FREEZE
  }

  /** The three scenarios: a kill, a planned switchover, a frozen primary. */
  static List<FailoverScenario> all() {
    return List.of(
        new FailoverScenario("kill", "the primary's postmaster is SIGKILLed (its pg_autoctl keeper lives on: it"
            + " reports PostgreSQL down, restarts it and is told to demote it; the monitor promotes the secondary)",
            Fault.KILL_POSTMASTER),
        new FailoverScenario("switchover", "planned switchover: pg_autoctl perform switchover (the primary drains"
            + " and is demoted by a fast shutdown, the secondary is promoted)", Fault.SWITCHOVER),
        new FailoverScenario("freeze", "the primary's node stops answering without closing anything: SIGSTOP of"
            + " all its processes (pg_autoctl keeper, postmaster, every backend), so connections stay open and"
            + " unanswered as for a cut network; SIGCONT once the other node has been primary for a while (the thawed"
            + " node is demoted by its keeper and rewound)", Fault.FREEZE));
  }
}
