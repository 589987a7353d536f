package dev.segmentledger.spring;

import java.util.LinkedHashMap;
import java.util.Map;
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
import org.springframework.core.Ordered;

/**
 * Puts the {@code segmentLedger} health where it belongs: in the {@code readiness} group, and in
 * neither the overall health ({@code /actuator/health}) nor {@code liveness}, whatever the
 * application's group settings. A bucket that is down (the breaker open) or a backlog that does not
 * shrink means "send no more work here", never "this process is broken": it takes the instance out
 * of rotation (readiness 503) without failing the overall health a load balancer or an uptime check
 * reads, and without getting the process restarted. Without a readiness group (probes disabled and
 * not on Kubernetes) it says so once at start-up: set {@code management.endpoint.health.probes.enabled=true}.
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
        default -> group;
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

    @Override
    public StatusAggregator getStatusAggregator() {
      return group.getStatusAggregator();
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
