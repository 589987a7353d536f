package dev.segmentledger.examples.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.commonmark.node.AbstractVisitor;
import org.commonmark.node.FencedCodeBlock;
import org.commonmark.parser.Parser;
import org.junit.jupiter.api.Test;

/**
 * The rules of the documentation that a reader relies on: the README is a front page of at most 300
 * lines; it shows exactly two set-up commands, the demo on embedded defaults and the tests, and CI
 * runs the README's test command as it is written, then the long profile tests/README.md shows;
 * user documentation cites the design document rather than issue numbers (result files and
 * profiling notes, records of their day, excepted); the design's module map has a row for every
 * module of the build.
 */
class DocumentationRulesTest {

  static final int README_MAX_LINES = 300;
  static final String DEMO_COMMAND = "./mvnw -Pdemo -pl examples -am verify -DskipTests";
  static final String TEST_COMMAND = "./mvnw verify";
  static final String LONG_COMMAND = "./mvnw -pl tests/engine,tests/integration,benchmarks -am -Plong test";
  private static final Pattern ISSUE_NUMBER = Pattern.compile("(?i)\\bissues?\\s+(no\\.\\s*)?#?\\d+");

  private final RepositoryFiles repository = RepositoryFiles.read();

  @Test
  void theReadmeIsAFrontPageOfAtMost300Lines() {
    long lines = repository.text("README.md").lines().count();

    assertTrue(lines <= README_MAX_LINES, "README.md has " + lines + " lines; at most "
        + README_MAX_LINES + ": move the detail to a page under docs/ and link it");
  }

  @Test
  void theReadmeShowsTwoSetUpCommandsAndCiRunsItsTestCommandThenTheLongProfile() {
    List<String> shellBlocks = new ArrayList<>();
    Parser.builder().build().parse(repository.text("README.md")).accept(new AbstractVisitor() {
      @Override
      public void visit(FencedCodeBlock block) {
        if (block.getInfo().equals("sh")) {
          shellBlocks.add(block.getLiteral().strip());
        }
      }
    });

    assertEquals(List.of(DEMO_COMMAND, TEST_COMMAND), shellBlocks,
        "the README's shell blocks: the demo on embedded defaults, then the tests");
    List<String> ciCommands = repository.text(".ci/run").lines().map(String::strip)
        .filter(line -> !line.isEmpty() && !line.startsWith("#")).toList();
    assertEquals(List.of(TEST_COMMAND, LONG_COMMAND), ciCommands.subList(ciCommands.size() - 2, ciCommands.size()),
        ".ci/run ends with the README's test command, then the long profile, so that every test runs");
    assertTrue(repository.text("tests/README.md").contains(LONG_COMMAND), "tests/README.md shows the long profile");
    assertTrue(repository.text("README.md").contains("`" + LONG_COMMAND + "`"), "README.md names the long profile");
  }

  @Test
  void userDocumentationNamesNoIssueNumbers() {
    List<String> found = new ArrayList<>();
    for (String file : repository.markdownFiles()) {
      if (isRecord(file)) {
        continue;
      }
      List<String> lines = repository.text(file).lines().toList();
      for (int i = 0; i < lines.size(); i++) {
        if (ISSUE_NUMBER.matcher(lines.get(i)).find()) {
          found.add(file + ":" + (i + 1) + ": " + lines.get(i).strip());
        }
      }
    }

    assertTrue(found.isEmpty(), "cite the design document's sections instead of issue numbers:\n"
        + String.join("\n", found));
  }

  @Test
  void theIssueRuleCatchesTheWaysIssuesWereCited() {
    for (String text : List.of("issue 21", "(Issue 19's final code)", "issues 14 and 17", "issue #17")) {
      assertTrue(ISSUE_NUMBER.matcher(text).find(), text);
    }
    for (String text : List.of("aws/aws-sdk-java-v2#6774", "an issue with 3 parts", "the issue's example")) {
      assertFalse(ISSUE_NUMBER.matcher(text).find(), text);
    }
  }

  @Test
  void theDesignsModuleMapNamesEveryModuleOfTheBuild() {
    String design = repository.text("docs/design.md");
    int start = design.indexOf("\n## Module map and layering\n");
    assertTrue(start >= 0, "docs/design.md has no section \"Module map and layering\"");
    int end = design.indexOf("\n## ", start + 1);
    String map = design.substring(start, end < 0 ? design.length() : end);
    List<String> missing = new ArrayList<>();
    for (String module : PomFile.parse(repository.text("pom.xml")).modules()) {
      if (!map.contains("\n| `" + module + "` |")) {
        missing.add(module);
      }
    }

    assertEquals(List.of(), missing, "modules of the root pom.xml without a row in the design's module map");
  }

  /** Benchmark and test results and profiling notes record their day as it was; not user docs. */
  private static boolean isRecord(String file) {
    return file.contains("/results/") || file.endsWith("profile-notes.md");
  }
}
