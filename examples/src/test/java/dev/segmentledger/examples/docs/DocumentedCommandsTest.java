package dev.segmentledger.examples.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The command lines the documentation shows still run against this repository: a renamed module,
 * profile, test class, script or system property fails here, with the file and line of every stale
 * command.
 *
 * <p>What is read: in every tracked Markdown file (result files and notes included: readers rerun
 * them), the fenced code blocks with no info string or {@code sh}, {@code bash}, {@code shell},
 * {@code console}, and the code spans that start with {@code ./mvnw}, {@code .ci/} or {@code bash }.
 * Continuation lines are joined, comments and a {@code $ } prompt dropped, {@code &&}, {@code ;},
 * {@code |} and parentheses split commands, leading {@code NAME=value} and {@code nice},
 * {@code ionice}, {@code time} are skipped, a {@code cd} moves the commands after it; optional
 * arguments written in brackets ({@code [-Dx=1]}) are checked as if given. Words holding {@code $},
 * {@code <} or {@code ...} are placeholders and not checked.
 *
 * <p>What is checked, by the command's first word:
 * <ul>
 *   <li>{@code ./mvnw} (run from the repository root): every module of {@code -pl} is a module of
 *       the reactor (the root pom's {@code <modules>}, its profiles' included, recursively), named
 *       by directory or {@code [groupId]:artifactId}; every profile of {@code -P} is the id of a
 *       profile of some pom.xml of the repository; every class or pattern of {@code -Dtest} (a
 *       {@code #method} ignored) matches a test source under {@code src/test/java} of the modules
 *       named by {@code -pl}, or of any module without {@code -pl}; every bare word is a phase of
 *       Maven's lifecycles, and a word with a colon is taken as a plugin goal, unchecked.</li>
 *   <li>scripts ({@code .ci/x}, {@code ./x}, a relative {@code path/x.sh}, {@code bash x},
 *       {@code sh x}): the file is tracked, at the path relative to the command's directory.</li>
 *   <li>{@code java}: a main class {@code dev.segmentledger...} has a source file; a
 *       {@code -jar} path {@code <module>/target/<name>.jar} names a module of the reactor, and
 *       {@code <name>} is its {@code artifactId-version}, optionally with a classifier its pom
 *       declares. An absolute jar path (an installed copy) is not checked.</li>
 *   <li>in {@code ./mvnw} and {@code java} commands, every {@code -Dname} of the project's
 *       namespaces ({@link DocumentedCommands#OWN_PROPERTY_PREFIXES}), including those inside a
 *       quoted value such as {@code -Dbench.args="... -Dbench.x=1"}, is read somewhere: a string
 *       literal {@code "name"} in a Java source, or {@code ${name}}, {@code <name>} or
 *       {@code <name>name</name>} (a profile's activation) in a pom.xml outside comments.</li>
 * </ul>
 *
 * <p>Not checked: any other command ({@code apt-get}, {@code npm}, {@code curl}, {@code psql},
 * {@code jfr}, {@code ffmpeg}, the installed {@code segment-ledger} CLI, ...), Maven options other
 * than those above, the values of properties, program arguments, and lines that start with no
 * command (output).
 */
class DocumentedCommandsTest {

  private static final RepositoryFiles REPOSITORY = RepositoryFiles.read();
  private static final DocumentedCommands COMMANDS = new DocumentedCommands(REPOSITORY);

  @Test
  void everyDocumentedCommandRunsAgainstThisRepository() {
    List<String> problems = new ArrayList<>();
    int checked = 0;
    for (String file : REPOSITORY.markdownFiles()) {
      MarkdownDocument document = MarkdownDocument.parse(REPOSITORY.text(file));
      checked += COMMANDS.checkedCommands(document);
      problems.addAll(COMMANDS.problems(file, document));
    }

    assertTrue(checked > 40, "expected the documentation's commands, checked " + checked);
    assertTrue(problems.isEmpty(), problems.size() + " stale documented commands (of " + checked
        + " checked):\n" + String.join("\n", problems));
  }

  @Test
  void theReactorAndTheProfilesAreRead() {
    assertTrue(COMMANDS.moduleDirectories().containsAll(List.of("", "core", "tests/integration", "examples")),
        COMMANDS.moduleDirectories().toString());
    assertTrue(COMMANDS.profiles().containsAll(List.of("demo", "long", "bench", "with-integration-tests")),
        COMMANDS.profiles().toString());
  }

  @Nested
  class TheCheckerCatchesStaleCommands {

    @Test
    void validCommandsPass() {
      assertEquals(List.of(), problems("""
          ```sh
          ./mvnw -Pdemo -pl examples -am verify -DskipTests
          ./mvnw -pl tests/integration -am verify -Dtest=BrowserPlaybackTest \\
              -Dsurefire.failIfNoSpecifiedTests=false [-Dplaylists.soak.seconds=600]
          ./mvnw -pl :segment-ledger-examples -Plong,bench test -Dtest='Documentation*Test,DocumentationRulesTest#x'
          ./mvnw -pl benchmarks -am -DskipTests package dependency:build-classpath   # a comment
          JAVA_HOME=/jdk nice -n 19 ./mvnw -B -o verify -Dtest=ArchitectureTest
          .ci/rgw start "$DIR"
          (cd benchmarks && java -cp "target/classes:$(cat cp)" dev.segmentledger.benchmarks.BenchmarkSuite \\
            -Dbench.maxItems=20)
          java -jar cli/target/segment-ledger-cli-0.1.0-SNAPSHOT-all.jar --help
          apt-get install -y chromium
          ```
          Run `./mvnw verify`, or `.ci/run`.
          ```
          crash soak: 614 kills done
          ```
          """));
    }

    @Test
    void everyStalePartIsNamedWithItsLine() {
      List<String> problems = problems("""
          # Title

          ```bash
          ./mvnw -pl engine-tests,core -Pnope verify -Dtest=NoSuchTest -Dsurefire.failIfNoSpecifiedTests=false
          ./mvnw -pl core vrify -Dpgmatrix.skip \\
            -Dbench.args="--only=x -Dbench.no.such=1"
          bash benchmarks/no-such.sh
          (cd benchmarks && java -cp x dev.segmentledger.benchmarks.NoSuchMain)
          java -jar cli/target/segment-ledger-cli-0.0.9-all.jar
          ```
          and `.ci/no-such-script`
          """);

      assertEquals(10, problems.size(), String.join("\n", problems));
      assertTrue(problems.get(0).startsWith("X.md:4: ./mvnw -pl engine-tests")
          && problems.get(0).contains("-pl engine-tests: no such module"), problems.get(0));
      assertTrue(problems.get(1).contains("-Pnope: no profile"), problems.get(1));
      assertTrue(problems.get(2).contains("-Dtest=NoSuchTest: no such test class"), problems.get(2));
      assertTrue(problems.get(3).startsWith("X.md:5: ") && problems.get(3).contains("vrify: neither"),
          problems.get(3));
      assertTrue(problems.get(4).contains("-Dpgmatrix.skip: read by no"), problems.get(4));
      assertTrue(problems.get(5).contains("-Dbench.no.such: read by no"), problems.get(5));
      assertTrue(problems.get(6).startsWith("X.md:7: ") && problems.get(6).contains("no script benchmarks/no-such.sh"),
          problems.get(6));
      assertTrue(problems.get(7).contains("dev.segmentledger.benchmarks.NoSuchMain: no such class"), problems.get(7));
      assertTrue(problems.get(8).contains("not segment-ledger-cli-0.0.9-all.jar"), problems.get(8));
      assertTrue(problems.get(9).startsWith("X.md:11: ") && problems.get(9).contains("no script .ci/no-such-script"),
          problems.get(9));
    }

    @Test
    void aTestNamedOutsideTheSelectedModulesIsStale() {
      List<String> problems = problems("""
          ```sh
          ./mvnw -pl core -am test -Dtest=DocumentationRulesTest
          ```
          """);

      assertEquals(1, problems.size(), String.join("\n", problems));
    }

    private List<String> problems(String markdown) {
      return COMMANDS.problems("X.md", MarkdownDocument.parse(markdown));
    }
  }
}
