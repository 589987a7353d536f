package dev.segmentledger.examples.docs;

import dev.segmentledger.examples.docs.MarkdownDocument.CodeText;
import dev.segmentledger.examples.docs.ShellCommands.Command;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks the command lines the documentation shows against the repository (the rules are
 * {@link DocumentedCommandsTest}'s). Which snippets are read: fenced code blocks with no info string
 * or {@code sh}, {@code bash}, {@code shell}, {@code console}; and code spans that start with
 * {@code ./mvnw}, {@code .ci/} or {@code bash }. Which commands are checked, by their first word:
 * {@code ./mvnw}, a script ({@code .ci/...}, {@code ./...}, a relative {@code .../x.sh},
 * {@code bash x}, {@code sh x}) and {@code java}; any other command is not this repository's and is
 * skipped, as is any line that starts with no command (output).
 *
 * <p>Immutable once built; thread-safe.
 */
final class DocumentedCommands {

  /** The prefixes of the system properties of this project: only these are looked up. */
  static final List<String> OWN_PROPERTY_PREFIXES = List.of("segmentledger.", "dev.segmentledger.",
      "playlists.", "failover.", "outage.", "bench.", "demo.", "pgmatrix.");

  /** The phases of Maven's clean, default and site lifecycles. */
  static final Set<String> PHASES = Set.of("pre-clean", "clean", "post-clean", "validate", "initialize",
      "generate-sources", "process-sources", "generate-resources", "process-resources", "compile",
      "process-classes", "generate-test-sources", "process-test-sources", "generate-test-resources",
      "process-test-resources", "test-compile", "process-test-classes", "test", "prepare-package",
      "package", "pre-integration-test", "integration-test", "post-integration-test", "verify",
      "install", "deploy", "pre-site", "site", "post-site", "site-deploy");

  private static final Set<String> SHELL_INFO = Set.of("", "sh", "bash", "shell", "console");
  private static final Set<String> MAVEN_OPTIONS_WITH_VALUE = Set.of("-T", "--threads", "-f", "--file",
      "-s", "--settings", "-gs", "--global-settings", "-rf", "--resume-from", "-l", "--log-file",
      "-b", "--builder", "-t", "--toolchains");
  private static final Pattern PROPERTY = Pattern.compile("(?<![\\w.-])-D([A-Za-z][\\w.-]*)");
  private static final Pattern MAIN_CLASS = Pattern.compile("dev\\.segmentledger(\\.\\w+)+");
  private static final Pattern MODULE_JAR = Pattern.compile("(?:(.*)/)?target/([^/]+)\\.jar");
  private static final Pattern XML_COMMENT = Pattern.compile("<!--.*?-->", Pattern.DOTALL);
  private static final String OWN_SOURCES = "examples/src/test/java/dev/segmentledger/examples/docs/";

  private final RepositoryFiles repository;
  /** Module directory ({@code ""} for the root) to its POM, for every module of the reactor. */
  private final Map<String, PomFile> modules = new LinkedHashMap<>();
  private final Map<String, String> moduleTexts = new LinkedHashMap<>();
  private final Set<String> profiles = new TreeSet<>();
  private final List<String> javaSources = new ArrayList<>();
  private final List<String> pomTexts = new ArrayList<>();

  DocumentedCommands(RepositoryFiles repository) {
    this.repository = repository;
    addModule("");
    for (String file : repository.tracked()) {
      if (file.equals("pom.xml") || file.endsWith("/pom.xml")) {
        String pom = repository.text(file);
        profiles.addAll(PomFile.parse(pom).profileIds());
        pomTexts.add(XML_COMMENT.matcher(pom).replaceAll(""));
      } else if (file.endsWith(".java") && !file.startsWith(OWN_SOURCES)) {
        javaSources.add(repository.text(file));
      }
    }
  }

  private void addModule(String directory) {
    String pomPath = directory.isEmpty() ? "pom.xml" : directory + "/pom.xml";
    String text = repository.text(pomPath);
    PomFile pom = PomFile.parse(text);
    modules.put(directory, pom);
    moduleTexts.put(directory, text);
    for (String module : pom.modules()) {
      addModule(ShellCommands.resolve(directory, module));
    }
  }

  /** The reactor's module directories ({@code ""} for the root). */
  Set<String> moduleDirectories() {
    return modules.keySet();
  }

  Set<String> profiles() {
    return profiles;
  }

  /** The problems of the commands of one Markdown file, as {@code file:line: command: problem}. */
  List<String> problems(String file, MarkdownDocument document) {
    List<String> problems = new ArrayList<>();
    for (CodeText code : document.code()) {
      if (code.inline() ? isCommandSpan(code.text()) : SHELL_INFO.contains(code.info())) {
        for (Command command : ShellCommands.parse(code.text(), code.line())) {
          for (String problem : problems(command)) {
            problems.add(file + ":" + command.line() + ": " + command.text() + "\n    " + problem);
          }
        }
      }
    }
    return problems;
  }

  /** The number of commands checked (not skipped) in a document. */
  int checkedCommands(MarkdownDocument document) {
    int checked = 0;
    for (CodeText code : document.code()) {
      if (code.inline() ? isCommandSpan(code.text()) : SHELL_INFO.contains(code.info())) {
        for (Command command : ShellCommands.parse(code.text(), code.line())) {
          String first = command.words().get(0);
          if (first.equals("./mvnw") || first.equals("java") || scriptOf(command.words()) != null) {
            checked++;
          }
        }
      }
    }
    return checked;
  }

  private static boolean isCommandSpan(String text) {
    String command = text.replaceFirst("^(nice -n \\d+ )?(ionice -c\\d )?", "");
    return command.equals("./mvnw") || command.startsWith("./mvnw ") || command.startsWith(".ci/")
        || command.startsWith("bash ");
  }

  List<String> problems(Command command) {
    List<String> problems = new ArrayList<>();
    List<String> words = command.words();
    String first = words.get(0);
    if (first.equals("./mvnw")) {
      if (!command.directory().isEmpty()) {
        problems.add("./mvnw is at the repository root, not in " + command.directory());
      }
      maven(words, problems);
      properties(words, problems);
    } else if (first.equals("java")) {
      java(words, command.directory(), problems);
      properties(words, problems);
    } else {
      String script = scriptOf(words);
      if (script != null && !isPlaceholder(script)) {
        String path = ShellCommands.resolve(command.directory(), script);
        if (!repository.tracked().contains(path)) {
          problems.add("no script " + path + " in the repository");
        }
      }
    }
    return problems;
  }

  /** The script a command runs, or null if it runs none of this repository's. */
  private static String scriptOf(List<String> words) {
    String first = words.get(0);
    if ((first.equals("bash") || first.equals("sh")) && words.size() > 1 && !words.get(1).startsWith("-")) {
      return words.get(1);
    }
    if (first.startsWith(".ci/") || (first.startsWith("./") && !first.equals("./mvnw"))
        || (!first.startsWith("/") && first.contains("/") && first.endsWith(".sh"))) {
      return first;
    }
    return null;
  }

  private void maven(List<String> words, List<String> problems) {
    List<String> selected = new ArrayList<>();
    boolean projectsGiven = false;
    List<String> tests = new ArrayList<>();
    for (int i = 1; i < words.size(); i++) {
      String word = unbracketed(words.get(i));
      String next = i + 1 < words.size() ? unbracketed(words.get(i + 1)) : "";
      if (word.equals("-pl") || word.equals("--projects")) {
        projectsGiven = true;
        i++;
        for (String project : next.split(",")) {
          String module = module(project.replaceFirst("^[!?+-]+", ""));
          if (module == null) {
            problems.add("-pl " + project + ": no such module in the reactor (the root pom's modules, "
                + "by directory or :artifactId)");
          } else {
            selected.add(module);
          }
        }
      } else if (word.equals("-P") || word.equals("--activate-profiles") || word.startsWith("-P")) {
        String value = next;
        if (word.startsWith("-P") && word.length() > 2) {
          value = word.substring(2);
        } else {
          i++;
        }
        for (String profile : value.split(",")) {
          String id = profile.replaceFirst("^[!?+-]+", "");
          if (!profiles.contains(id)) {
            problems.add("-P" + id + ": no profile of that id in any pom.xml of the repository");
          }
        }
      } else if (word.startsWith("-D")) {
        String property = word.length() > 2 ? word.substring(2) : next;
        if (word.length() == 2) {
          i++;
        }
        if (property.startsWith("test=")) {
          tests.addAll(List.of(property.substring("test=".length()).split(",")));
        }
      } else if (MAVEN_OPTIONS_WITH_VALUE.contains(word)) {
        i++;
      } else if (!word.startsWith("-") && !isPlaceholder(word)
          && !PHASES.contains(word) && !word.contains(":")) {
        problems.add(word + ": neither a Maven lifecycle phase nor a plugin goal (prefix:goal)");
      }
    }
    List<String> scope = projectsGiven ? selected : null;
    for (String test : tests) {
      String pattern = test.strip().replaceFirst("^!", "").replaceFirst("#.*", "");
      if (!pattern.isEmpty() && !isPlaceholder(pattern) && !testExists(pattern, scope)) {
        problems.add("-Dtest=" + test + ": no such test class in the src/test of "
            + (scope == null ? "any module" : "the modules of -pl " + scope));
      }
    }
  }

  /** The module directory a -pl entry names, or null. */
  private String module(String project) {
    if (project.contains(":")) {
      String artifactId = project.substring(project.lastIndexOf(':') + 1);
      return modules.entrySet().stream().filter(entry -> entry.getValue().artifactId().equals(artifactId))
          .map(Map.Entry::getKey).findFirst().orElse(null);
    }
    String directory = ShellCommands.resolve("", project);
    return modules.containsKey(directory) ? directory : null;
  }

  private boolean testExists(String pattern, List<String> scope) {
    String path = pattern.endsWith(".java") ? pattern.substring(0, pattern.length() - 5) : pattern;
    boolean qualified = path.contains("/") || (path.contains(".") && !path.contains("*"));
    Pattern glob = Pattern.compile(
        (qualified ? "(.*/)?" : "") + path.replace(".", "/").replace("**/", "\u0001")
            .replace("*", "[^/]*").replace("?", ".").replace("\u0001", "(.*/)?")
            .replace("$", "\\$"));
    for (String file : repository.tracked()) {
      if (!file.endsWith(".java") || !file.contains("src/test/java/")) {
        continue;
      }
      if (scope != null && scope.stream().noneMatch(module -> file.startsWith(module.isEmpty() ? "" : module + "/")
          && file.substring(module.isEmpty() ? 0 : module.length() + 1).startsWith("src/test/java/"))) {
        continue;
      }
      String className = file.substring(file.indexOf("src/test/java/") + "src/test/java/".length(),
          file.length() - ".java".length());
      String tested = qualified ? className : className.substring(className.lastIndexOf('/') + 1);
      if (glob.matcher(tested).matches()) {
        return true;
      }
    }
    return false;
  }

  private void java(List<String> words, String directory, List<String> problems) {
    for (int i = 1; i < words.size(); i++) {
      String word = words.get(i);
      if (word.equals("-jar") && i + 1 < words.size()) {
        jar(words.get(i + 1), directory, problems);
        return;
      } else if (word.equals("-cp") || word.equals("-classpath") || word.equals("--class-path")) {
        i++;
      } else if (!word.startsWith("-")) {
        if (MAIN_CLASS.matcher(word).matches() && repository.tracked().stream()
            .noneMatch(file -> file.endsWith("/java/" + word.replace('.', '/') + ".java"))) {
          problems.add(word + ": no such class in the repository's sources");
        }
        return;
      }
    }
  }

  /** A jar a module builds: {@code <module>/target/<artifactId>-<version>[-<classifier>].jar}. */
  private void jar(String jar, String directory, List<String> problems) {
    if (jar.startsWith("/") || isPlaceholder(jar)) {
      return;
    }
    Matcher matcher = MODULE_JAR.matcher(ShellCommands.resolve(directory, jar));
    if (!matcher.matches()) {
      return;
    }
    String module = matcher.group(1) == null ? "" : matcher.group(1);
    PomFile pom = modules.get(module);
    if (pom == null) {
      problems.add(jar + ": " + (module.isEmpty() ? "the root" : module) + " is no module of the reactor");
      return;
    }
    String prefix = pom.artifactId() + "-" + pom.version();
    String name = matcher.group(2);
    String classifier = name.startsWith(prefix + "-") ? name.substring(prefix.length() + 1) : null;
    boolean built = name.equals(prefix) || (classifier != null && moduleTexts.get(module)
        .matches("(?s).*<(shadedClassifierName|classifier)>" + Pattern.quote(classifier) + "</\\1>.*"));
    if (!built) {
      problems.add(jar + ": " + module + " builds " + prefix + ".jar (and jars with its classifiers), "
          + "not " + name + ".jar");
    }
  }

  /** Every -D property of the project's namespaces, quoted values' included, is read somewhere. */
  private void properties(List<String> words, List<String> problems) {
    for (String word : words) {
      Matcher matcher = PROPERTY.matcher(word);
      while (matcher.find()) {
        String name = matcher.group(1);
        if (isOwn(name) && !isRead(name)) {
          problems.add("-D" + name + ": read by no Java source and no pom.xml of the repository");
        }
      }
    }
  }

  private static boolean isOwn(String name) {
    return OWN_PROPERTY_PREFIXES.stream()
        .anyMatch(prefix -> name.startsWith(prefix) || name.equals(prefix.substring(0, prefix.length() - 1)));
  }

  private boolean isRead(String name) {
    String literal = "\"" + name + "\"";
    return javaSources.stream().anyMatch(source -> source.contains(literal))
        || pomTexts.stream().anyMatch(pom -> pom.contains("${" + name + "}") || pom.contains("<" + name + ">")
            || pom.contains("<name>" + name + "</name>"));
  }

  private static String unbracketed(String word) {
    String unbracketed = word.startsWith("[") ? word.substring(1) : word;
    return unbracketed.endsWith("]") ? unbracketed.substring(0, unbracketed.length() - 1) : unbracketed;
  }

  private static boolean isPlaceholder(String word) {
    return word.contains("$") || word.contains("<") || word.contains("...");
  }
}
