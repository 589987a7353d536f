package dev.segmentledger.examples.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The one list of published artifacts, the table under "Published artifacts" in
 * {@code docs/releasing.md}, is what the build publishes: the BOM manages exactly its artifacts
 * (but the parent and the BOM itself), the reactor deploys exactly its modules (every other one
 * sets {@code maven.deploy.skip}), and {@code .ci/release-check} expects exactly its files staged.
 * A module published and missing from the table, or listed and no longer published, fails here.
 */
class PublishedArtifactsTest {

  static final String PAGE = "docs/releasing.md";
  private static final String SECTION = "## Published artifacts";
  private static final String GROUP_PATH = "dev/segmentledger";
  private static final Set<String> NOT_IN_THE_BOM = Set.of("segment-ledger-parent", "segment-ledger-bom");
  private static final Pattern CODE = Pattern.compile("`([^`]+)`");

  private static RepositoryFiles repository;
  private static PomFile parent;
  /** The table: artifact id → its published files' suffixes ({@code .pom}, {@code -all.jar}...). */
  private static Map<String, List<String>> published;

  @BeforeAll
  static void readTheList() {
    repository = RepositoryFiles.read();
    parent = PomFile.parse(repository.text("pom.xml"));
    published = publishedArtifacts(repository.text(PAGE));
    assertTrue(published.size() > 2, "the table under " + SECTION + " in " + PAGE + " lists " + published);
  }

  @Test
  void theBomManagesEveryPublishedArtifactButTheParentAndItselfAndNothingElse() {
    PomFile bom = PomFile.parse(repository.text("bom/pom.xml"));
    assertEquals("segment-ledger-bom", bom.artifactId());
    assertEquals(parent.version(), bom.version(), "the BOM's version is the parent's");

    TreeSet<String> managed = new TreeSet<>();
    for (PomFile.Managed dependency : bom.managedDependencies()) {
      assertEquals("dev.segmentledger", dependency.groupId(), dependency.toString());
      assertEquals("${project.version}", dependency.version(), dependency.toString());
      managed.add(dependency.artifactId());
    }
    TreeSet<String> listed = new TreeSet<>(published.keySet());
    listed.removeAll(NOT_IN_THE_BOM);

    assertSameArtifacts(listed, managed, "managed by the BOM");
  }

  @Test
  void theBuildDeploysExactlyTheListedArtifactsWithTheListedKindOfFiles() {
    Map<String, PomFile> deployed = new LinkedHashMap<>();
    deployed.put(parent.artifactId(), parent);
    for (String module : parent.modules()) {
      PomFile pom = PomFile.parse(repository.text(module + "/pom.xml"));
      if (pom.deployed()) {
        deployed.put(pom.artifactId(), pom);
      }
    }

    assertSameArtifacts(published.keySet(), deployed.keySet(), "deployed by the build (no maven.deploy.skip)");
    deployed.forEach((artifactId, pom) -> {
      List<String> files = published.get(artifactId);
      if (pom.packaging().equals("pom")) {
        assertEquals(List.of(".pom"), files, artifactId + " is a POM only");
      } else {
        assertTrue(files.containsAll(List.of(".pom", ".jar", "-sources.jar", "-javadoc.jar")),
            artifactId + " is published with its jar, sources and javadoc: " + files);
      }
    });
  }

  @Test
  void theReleaseCheckExpectsExactlyTheListedFiles() throws Exception {
    String version = parent.version();
    TreeSet<String> listed = new TreeSet<>();
    published.forEach((artifactId, suffixes) -> suffixes.forEach(suffix -> listed.add(
        GROUP_PATH + "/" + artifactId + "/" + version + "/" + artifactId + "-" + version + suffix)));

    TreeSet<String> expected = releaseCheckExpected(repository.text(".ci/release-check"), version);

    assertSameArtifacts(listed, expected, "staged according to .ci/release-check");
  }

  @Test
  void aTableWithoutAModuleDiffersFromTheBom() {
    Map<String, List<String>> shorter = publishedArtifacts("""
        ## Published artifacts

        | artifact | module | published files | what it is |
        |---|---|---|---|
        | `segment-ledger-parent` | the root `pom.xml` | `.pom` | the parent |
        | `segment-ledger-core` | `core` | `.pom`, `.jar` | the ledger |

        ## Next section

        | `segment-ledger-s3` | `s3-sink` | `.pom` | not in the section |
        """);

    assertEquals(List.of("segment-ledger-parent", "segment-ledger-core"), List.copyOf(shorter.keySet()));
    assertEquals(List.of(".pom", ".jar"), shorter.get("segment-ledger-core"));
    assertFalse(shorter.keySet().containsAll(published.keySet()));
  }

  private static void assertSameArtifacts(Set<String> listed, Set<String> actual, String what) {
    TreeSet<String> missing = new TreeSet<>(actual);
    missing.removeAll(listed);
    TreeSet<String> extra = new TreeSet<>(listed);
    extra.removeAll(actual);
    assertTrue(missing.isEmpty() && extra.isEmpty(), "the list in " + PAGE + " is not what is " + what
        + ": missing from the list " + missing + "; listed, not " + what + " " + extra);
  }

  /** The table under {@link #SECTION}: its "artifact" and "published files" columns. */
  static Map<String, List<String>> publishedArtifacts(String page) {
    Matcher heading = Pattern.compile("(?m)^" + Pattern.quote(SECTION) + "$").matcher(page);
    assertTrue(heading.find(), PAGE + " has no section " + SECTION);
    int start = heading.start();
    int end = page.indexOf("\n## ", start + SECTION.length() + 1);
    String section = page.substring(start, end < 0 ? page.length() : end);
    List<String> rows = section.lines().filter(line -> line.startsWith("|")).toList();
    assertTrue(rows.size() > 2, "no table under " + SECTION);
    List<String> header = cells(rows.get(0));
    int artifactColumn = header.indexOf("artifact");
    int filesColumn = header.indexOf("published files");
    assertTrue(artifactColumn >= 0 && filesColumn >= 0,
        "the table under " + SECTION + " needs the columns \"artifact\" and \"published files\": " + header);
    Map<String, List<String>> artifacts = new LinkedHashMap<>();
    for (String row : rows.subList(2, rows.size())) {
      List<String> cells = cells(row);
      String artifactId = codeSpans(cells.get(artifactColumn)).get(0);
      artifacts.put(artifactId, codeSpans(cells.get(filesColumn)));
    }
    return artifacts;
  }

  private static List<String> cells(String row) {
    String inner = row.trim();
    inner = inner.substring(1, inner.endsWith("|") ? inner.length() - 1 : inner.length());
    return Arrays.stream(inner.split("\\|", -1)).map(String::trim).toList();
  }

  private static List<String> codeSpans(String cell) {
    List<String> spans = new ArrayList<>();
    Matcher matcher = CODE.matcher(cell);
    while (matcher.find()) {
      spans.add(matcher.group(1));
    }
    return spans;
  }

  /**
   * Runs the script's own {@code expected} function with bash, with the variables it reads, and
   * returns its lines.
   */
  private static TreeSet<String> releaseCheckExpected(String script, String version) throws Exception {
    Matcher function = Pattern.compile("(?ms)^expected\\(\\) \\{\\n.*?^\\}$").matcher(script);
    assertTrue(function.find(), ".ci/release-check has no expected() function");
    String program = "group_path=" + GROUP_PATH + "\nversion=" + version + "\n" + function.group()
        + "\nexpected\n";
    Process bash = new ProcessBuilder("bash", "-euo", "pipefail", "-c", program)
        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
    String out;
    try (InputStream in = bash.getInputStream()) {
      out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertTrue(bash.waitFor(30, TimeUnit.SECONDS), "bash did not finish");
    assertEquals(0, bash.exitValue(), "expected() failed: " + out);
    return new TreeSet<>(out.lines().filter(line -> !line.isBlank()).toList());
  }
}
