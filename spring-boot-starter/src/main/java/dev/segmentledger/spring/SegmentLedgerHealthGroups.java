package dev.segmentledger.spring;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.health.actuate.endpoint.AdditionalHealthEndpointPath;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroup;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroupsPostProcessor;
import org.springframework.boot.health.actuate.endpoint.HttpCodeStatusMapper;
import org.springframework.boot.health.actuate.endpoint.StatusAggregator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.core.Ordered;

/**
 * Puts the {@code segmentLedger} health where it belongs: in the {@code readiness} group, and in
 * neither the overall health ({@code /actuator/health}) nor {@code liveness}, whatever the
 * application's group settings. A bucket that is down (the breaker open) or a backlog that does not
 * shrink means "send no more work here", never "this process is broken": it takes the instance out
 * of rotation (readiness 503) without failing the overall health a load balancer or an uptime check
 * reads, and without getting the process restarted. Without a readiness group (probes disabled and
 * not on Kubernetes) it says so once at start-up: set {@code management.endpoint.health.probes.enabled=true}.
 *
 * <p>Every group's aggregate also ranks the ledger's own status DEGRADED (a low disk), which
 * Spring's default aggregator would drop: a degraded ledger makes readiness DEGRADED, HTTP 200.
 */
final class SegmentLedgerHealthGroups implements HealthEndpointGroupsPostProcessor, Ordered {
  /** The name of the starter's health indicator. */
  static final String INDICATOR = "segmentLedger";

  private static final Logger log = LoggerFactory.getLogger(SegmentLedgerHealthGroups.class);

  /**
   * Last, like the availability probes' post-processor, and registered after it: it must see the
   * liveness and readiness groups that one adds.
   */
  @Override
  public int getOrder() {
    return Ordered.LOWEST_PRECEDENCE;
  }

  @Override
  public HealthEndpointGroups postProcessHealthEndpointGroups(HealthEndpointGroups groups) {
    HealthEndpointGroup primary = new Membership(groups.getPrimary(), name -> !ours(name)
        && groups.getPrimary().isMember(name));
    Map<String, HealthEndpointGroup> named = new LinkedHashMap<>();
    for (String name : groups.getNames()) {
      HealthEndpointGroup group = groups.get(name);
      named.put(name, switch (name) {
        case "readiness" -> new Membership(group, member -> ours(member) || group.isMember(member));
        case "liveness" -> new Membership(group, member -> !ours(member) && group.isMember(member));
        default -> new Membership(group, group::isMember);
      });
    }
    if (!named.containsKey("readiness")) {
      log.warn("the {} health is part of the readiness group only, and there is none: set"
          + " management.endpoint.health.probes.enabled=true to see it at /actuator/health/readiness", INDICATOR);
    }
    return HealthEndpointGroups.of(primary, named);
  }

  private static boolean ours(String name) {
    return name.equals(INDICATOR) || name.startsWith(INDICATOR + "/");
  }

  /** A group with another membership, the same in every other respect. */
  private record Membership(HealthEndpointGroup group, Predicate<String> member) implements HealthEndpointGroup {
    @Override
    public boolean isMember(String name) {
      return member.test(name);
    }

    @Override
    public boolean showComponents(SecurityContext securityContext) {
      return group.showComponents(securityContext);
    }

    @Override
    public boolean showDetails(SecurityContext securityContext) {
      return group.showDetails(securityContext);
    }

    /**
     * The group's aggregator, which also ranks {@link SegmentLedgerHealthIndicator#DEGRADED}: Spring's
     * aggregator ranks only the statuses of its order ({@code management.endpoint.health.status.order})
     * and drops every other, so a degraded ledger next to an UP member read UP. DEGRADED ranks just
     * below every status the group's own order puts before UP: the aggregate of the others is kept
     * unless it is UP or UNKNOWN (or there are no others), then it is DEGRADED. It is answered with
     * HTTP 200 (the default mapping of a status without one): the instance stays in rotation.
     */
    @Override
    public StatusAggregator getStatusAggregator() {
      StatusAggregator aggregator = group.getStatusAggregator();
      return statuses -> {
        if (!statuses.contains(SegmentLedgerHealthIndicator.DEGRADED)) {
          return aggregator.getAggregateStatus(statuses);
        }
        Set<Status> others = new LinkedHashSet<>(statuses);
        others.remove(SegmentLedgerHealthIndicator.DEGRADED);
        Status rest = others.isEmpty() ? Status.UNKNOWN : aggregator.getAggregateStatus(others);
        return rest.equals(Status.UP) || rest.equals(Status.UNKNOWN) ? SegmentLedgerHealthIndicator.DEGRADED : rest;
      };
    }

    @Override
    public HttpCodeStatusMapper getHttpCodeStatusMapper() {
      return group.getHttpCodeStatusMapper();
    }

    @Override
    public AdditionalHealthEndpointPath getAdditionalPath() {
      return group.getAdditionalPath();
    }
  }
}
