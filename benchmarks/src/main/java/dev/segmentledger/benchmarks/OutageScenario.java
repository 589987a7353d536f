package dev.segmentledger.benchmarks;

import dev.segmentledger.rig.FaultProxy;
import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * One S3 misbehaviour of the outage benchmark, applied to the {@link FaultProxy} in front of the S3 endpoint
 * for {@link #duration()} and then cleared. Flapping is driven by the runner: {@link #set} is
 * called with {@code down} alternating every {@link #flapPeriod()}.
 *
 * @param name the measure name (for {@code --scenarios=})
 * @param description what the endpoint does, for the results
 * @param duration how long the fault lasts (full scale)
 * @param flapPeriod for flapping, the length of each up and each down phase; else {@code null}
 * @param fault what the proxy does while the fault is on
 */
record OutageScenario(String name, String description, Duration duration, Duration flapPeriod, Fault fault) {

  /** Switches the fault on ({@code down}) or off on the proxy. */
  @FunctionalInterface
  interface Fault {
    void set(FaultProxy proxy, boolean down) throws IOException;
  }

  void set(FaultProxy proxy, boolean down) throws IOException {
    fault.set(proxy, down);
  }

  /**
   * The control: the same timeline with no fault at all (120 s of "fault" during which nothing is
   * done to the endpoint). Not one of the six and not run by default ({@code --scenarios=none}):
   * its register p99 over a window as long as a fault's is the reference that the 20 s steady
   * phase is too short to give (periodic stalls such as a PostgreSQL checkpoint fall in a 120 s
   * window far more often than in a 20 s one).
   */
  static OutageScenario control() {
    return new OutageScenario("none", "control: no fault (the endpoint is left alone for 120 s)",
        Duration.ofSeconds(120), null, (p, down) -> { });
  }

  /** Every scenario {@code --scenarios=} accepts: the six and the {@link #control}. */
  static List<OutageScenario> selectable() {
    List<OutageScenario> scenarios = new java.util.ArrayList<>(all());
    scenarios.add(control());
    return List.copyOf(scenarios);
  }

  /** The six outage scenarios, in the benchmark's order (benchmarks/README.md). */
  static List<OutageScenario> all() {
    return List.of(
        new OutageScenario("refused", "full outage: the port refuses connections", Duration.ofSeconds(60), null,
            (p, down) -> {
              if (down) {
                p.refuseConnections();
              } else {
                p.acceptConnections();
              }
            }),
        new OutageScenario("black_hole", "black hole: connections accepted, never answered (client timeouts)",
            Duration.ofSeconds(60), null, (p, down) -> p.blackHole(down)),
        new OutageScenario("slow_down", "throttling: 50 % of PUTs answered 503 SlowDown", Duration.ofSeconds(120), null,
            (p, down) -> p.slowDown(down ? 0.5 : 0, r -> r.method().equals("PUT"))),
        new OutageScenario("slow_server", "slow server: +500 ms before every request is relayed",
            Duration.ofSeconds(120), null, (p, down) -> p.delay(down ? Duration.ofMillis(500) : Duration.ZERO)),
        new OutageScenario("lost_ack", "lost acknowledgements: 10 % of PUTs reach the server, the reply is reset",
            Duration.ofSeconds(120), null, (p, down) -> p.loseAcknowledgements(down ? 0.1 : 0, r -> r.method().equals("PUT"))),
        new OutageScenario("flapping", "flapping: 5 s refused / 5 s up", Duration.ofSeconds(120), Duration.ofSeconds(5),
            (p, down) -> {
              if (down) {
                p.refuseConnections();
              } else {
                p.acceptConnections();
              }
            }));
  }
}
