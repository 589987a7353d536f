package dev.segmentledger.it;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.AccessTarget.CodeUnitAccessTarget;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.CompositeArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.RepackageException;
import dev.segmentledger.core.spi.Repackager;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.core.spi.Tracing;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The layering of docs/design.md ("Module map and layering") as build-breaking rules, checked on
 * the production classes of every module on this module's class path: core, jdbi-store, s3-sink,
 * ffmpeg-repackager, micrometer, testkit and cli (examples and benchmarks are not on it). The cli is
 * an application of the adapters, not an adapter: it may use jdbi-store and s3-sink together. Test classes
 * are not imported: neither this module's nor the test jars of s3-sink and ffmpeg-repackager.
 */
@AnalyzeClasses(packages = "dev.segmentledger",
    importOptions = {ImportOption.DoNotIncludeTests.class, ArchitectureTest.NoTestJars.class})
class ArchitectureTest {
  static final String CORE = "dev.segmentledger.core..";
  static final String INTERNAL = "dev.segmentledger.core.internal..";
  /** The adapter modules, each one package: jdbi-store, s3-sink, ffmpeg-repackager, micrometer. */
  static final List<String> ADAPTERS = List.of("dev.segmentledger.jdbi..", "dev.segmentledger.s3..",
      "dev.segmentledger.ffmpeg..", "dev.segmentledger.micrometer..");
  /** The published modules: what the clock rule is about (testkit is for tests, and may use the system clock). */
  static final String[] PUBLISHED = {CORE, "dev.segmentledger.jdbi..", "dev.segmentledger.s3..",
      "dev.segmentledger.ffmpeg..", "dev.segmentledger.micrometer..", "dev.segmentledger.cli..",
      "dev.segmentledger.console.."};

  /** The core knows no adapter, no test support, and none of SQL, AWS, Jdbi, PostgreSQL, JUnit or Micrometer. */
  @ArchTest
  static final ArchRule coreDependsOnNoAdapterNorTheirLibraries = noClasses()
      .that().resideInAPackage(CORE)
      .should().dependOnClassesThat().resideInAnyPackage(
          "dev.segmentledger.jdbi..", "dev.segmentledger.s3..", "dev.segmentledger.ffmpeg..",
          "dev.segmentledger.micrometer..", "dev.segmentledger.testkit..",
          "java.sql..", "javax.sql..", "software.amazon..", "org.jdbi..", "org.postgresql..",
          "org.junit..", "io.micrometer..")
      .because("adapters depend on the core, never the other way round (docs/design.md, module map)");

  /** Each adapter depends on the core and its own library, never on another adapter. */
  @ArchTest
  static final ArchRule adaptersDoNotDependOnEachOther = adaptersDoNotDependOnEachOther();

  /** The API packages: what a recorder programs against. */
  static final String[] API = {"dev.segmentledger.core", "dev.segmentledger.core.query"};

  /**
   * The API never depends on the SPI (what adapters implement or use), except where it takes an
   * SPI implementation from its caller: the builder's setters ({@code LedgerBuilder}), the settings
   * that hand them back ({@code LedgerSettings}) and the reconciler's factories ({@code Reconciler.create}). The SPI may use the API's types; the
   * opposite would make every user of the API depend on the extension points.
   */
  @ArchTest
  static final ArchRule apiDoesNotImportTheSpi = noClasses()
      .that().resideInAnyPackage(API)
      .and().doNotHaveFullyQualifiedName("dev.segmentledger.core.LedgerBuilder")
      .and().doNotHaveFullyQualifiedName("dev.segmentledger.core.Reconciler")
      .and().doNotHaveFullyQualifiedName("dev.segmentledger.core.LedgerSettings")
      .should().dependOnClassesThat().resideInAPackage("dev.segmentledger.core.spi..")
      .because("the API is what users hold us to; the SPI is for adapters (docs/design.md, module map)");

  /** The three exceptions take (or hand back) SPI implementations only: they use no other SPI type. */
  @ArchTest
  static final ArchRule builderAndReconcilerOnlyTakeSpiImplementations = noClasses()
      .that().haveFullyQualifiedName("dev.segmentledger.core.LedgerBuilder")
      .or().haveFullyQualifiedName("dev.segmentledger.core.Reconciler")
      .or().haveFullyQualifiedName("dev.segmentledger.core.LedgerSettings")
      .should().dependOnClassesThat(JavaClass.Predicates.resideInAPackage("dev.segmentledger.core.spi..")
          .and(DescribedPredicate.not(JavaClass.Predicates.belongToAnyOf(StateStore.class, ObjectSink.class,
              Repackager.class, Tracing.class))))
      .because("an API type may take an SPI implementation from its caller, and nothing more of the SPI");

  /**
   * The SPI holds extension contracts: the interfaces adapters implement and the records and enums
   * they exchange with the ledger. The one other class is the checked exception a contract declares
   * ({@code RepackageException}); helpers live where their callers are (the API, the engine, or a
   * contract's static methods), and the deprecated former names are kept only for binary compatibility.
   */
  @ArchTest
  static final ArchRule spiHoldsInterfacesAndTheirValueTypesOnly = classes()
      .that().resideInAPackage("dev.segmentledger.core.spi..")
      .and().areNotAnnotatedWith(Deprecated.class)
      .and().doNotHaveFullyQualifiedName(RepackageException.class.getName())
      .and().areNotAnonymousClasses() // the NONE constants' bodies
      .should().beInterfaces().orShould().beRecords().orShould().beEnums()
      .because("spi is what adapters implement; a user programs against the API (docs/design.md, module map)");

  /**
   * The exceptions a user catches are API types ({@code StoreException}, {@code SinkException},
   * {@code QueryTimeoutException}, the registration refusals), as a library's own failures are: no
   * unchecked exception of the core outside the API package but the deprecated former SPI names.
   */
  @ArchTest
  static final ArchRule exceptionsUsersCatchAreInTheApi = classes()
      .that().resideInAPackage(CORE).and().resideOutsideOfPackage(INTERNAL)
      .and().areAssignableTo(RuntimeException.class)
      .and().areNotAnnotatedWith(Deprecated.class)
      .should().resideInAPackage("dev.segmentledger.core")
      .because("what reaches a caller of the ledger is API, not an extension point (docs/design.md, module map)");

  /** The engine is not API: only the core itself uses it (its module exports only the API and spi). */
  @ArchTest
  static final ArchRule internalIsUsedOnlyInsideCore = classes()
      .that().resideInAPackage(INTERNAL)
      .should().onlyHaveDependentClassesThat().resideInAPackage(CORE)
      .because("dev.segmentledger.core.internal is unsupported and not exported (docs/design.md, module map)");

  /**
   * Where production code may read the system clock, and why. Everywhere else time comes from the
   * {@link java.time.Clock} the caller gives ({@code LedgerBuilder.clock}, {@code Reconciler.create},
   * {@code LedgerMetrics.create(registry, clock)}), so that tests drive it and rows, backoff, leases
   * and cutoff agree on one time source. Keys are {@code JavaCodeUnit.getFullName()}.
   */
  static final Map<String, String> SYSTEM_CLOCK_ALLOWED = Map.of(
      "dev.segmentledger.core.LedgerBuilder.<init>()",
      "the ledger's default clock (Clock.systemUTC()) when the caller gives none",
      "dev.segmentledger.micrometer.LedgerMetrics.create(io.micrometer.core.instrument.MeterRegistry)",
      "the metrics' documented default clock; create(registry, clock) takes the ledger's",
      "dev.segmentledger.core.internal.RepackagerTemporaries.cleanBeside(java.nio.file.Path, java.time.Duration)",
      "ages of files on disk: their modification times come from the system clock, not the ledger's",
      "dev.segmentledger.cli.SegmentLedgerCli.main([Ljava.lang.String;)",
      "the command line's clock, given to every command through SegmentLedgerCli.run(clock, ...)");

  /**
   * No wall-clock read outside {@link #SYSTEM_CLOCK_ALLOWED}. {@code System.nanoTime()} is not a
   * wall clock and stays allowed: it measures timeouts and never reaches a row.
   */
  @ArchTest
  static final ArchRule productionCodeReadsTimeOnlyFromItsClock = classes()
      .that().resideInAnyPackage(PUBLISHED)
      .should(readTheSystemClockOnlyWhereAllowed())
      .because("time comes from the injected Clock (docs/design.md, module map)");

  private static ArchRule adaptersDoNotDependOnEachOther() {
    List<ArchRule> rules = new ArrayList<>();
    for (String adapter : ADAPTERS) {
      String[] others = ADAPTERS.stream().filter(a -> !a.equals(adapter)).toArray(String[]::new);
      rules.add(noClasses().that().resideInAPackage(adapter)
          .should().dependOnClassesThat().resideInAnyPackage(others));
    }
    return CompositeArchRule.of(rules)
        .as("adapters (jdbi, s3, ffmpeg, micrometer) should not depend on each other")
        .because("each adapter is an optional module of its own (docs/design.md, module map)");
  }

  private static ArchCondition<JavaClass> readTheSystemClockOnlyWhereAllowed() {
    return new ArchCondition<>("read the system clock only where allowed") {
      @Override
      public void check(JavaClass javaClass, ConditionEvents events) {
        for (JavaAccess<?> access : javaClass.getAccessesFromSelf()) {
          if (readsSystemClock(access) && !SYSTEM_CLOCK_ALLOWED.containsKey(access.getOrigin().getFullName())) {
            events.add(SimpleConditionEvent.violated(access, access.getDescription()));
          }
        }
      }
    };
  }

  private static final Set<String> DATE_TIME_TYPES = Set.of("java.time.Instant", "java.time.LocalDateTime",
      "java.time.LocalDate", "java.time.LocalTime", "java.time.OffsetDateTime", "java.time.OffsetTime",
      "java.time.ZonedDateTime", "java.time.Year", "java.time.YearMonth", "java.time.MonthDay");

  /**
   * Calls (or method references) that read the system clock: {@code X.now()} and {@code X.now(zone)}
   * of the java.time types ({@code X.now(clock)} reads the given clock and is fine),
   * {@code Clock.system*()} and the zone-taking {@code Clock.tick*()}, {@code InstantSource.system()},
   * {@code System.currentTimeMillis()}, {@code new Date()} and {@code Calendar.getInstance(...)}.
   */
  static boolean readsSystemClock(JavaAccess<?> access) {
    if (!(access.getTarget() instanceof CodeUnitAccessTarget target)) {
      return false;
    }
    String owner = target.getOwner().getName();
    String name = target.getName();
    List<JavaClass> parameters = target.getRawParameterTypes();
    if (DATE_TIME_TYPES.contains(owner) && name.equals("now")) {
      return parameters.isEmpty() || !parameters.get(0).isEquivalentTo(java.time.Clock.class);
    }
    return switch (owner) {
      case "java.time.Clock" -> name.startsWith("system") || (name.startsWith("tick") && !name.equals("tick"));
      case "java.time.InstantSource" -> name.equals("system");
      case "java.lang.System" -> name.equals("currentTimeMillis");
      case "java.util.Date" -> name.equals("<init>") && parameters.isEmpty();
      case "java.util.Calendar" -> name.equals("getInstance");
      default -> false;
    };
  }

  /** Leaves out the test jars on the class path (s3-sink's and ffmpeg-repackager's {@code -tests.jar}). */
  public static final class NoTestJars implements ImportOption {
    @Override
    public boolean includes(Location location) {
      return !location.contains("-tests.jar");
    }
  }
}
