package dev.segmentledger.examples.docs;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.NavigableSet;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * The files git tracks in this repository, as the documentation tests see them: paths relative to
 * the repository root, with {@code /} as separator. The root is found by walking up from the
 * working directory to the directory holding {@code mvnw} and the parent POM, so the tests do not
 * depend on where their module sits.
 *
 * <p>Immutable once read; safe to share between the tests of one JVM.
 */
final class RepositoryFiles {

  private static final String PARENT_ARTIFACT = "<artifactId>segment-ledger-parent</artifactId>";

  private final Path root;
  private final NavigableSet<String> tracked;

  private RepositoryFiles(Path root, NavigableSet<String> tracked) {
    this.root = root;
    this.tracked = Collections.unmodifiableNavigableSet(tracked);
  }

  /** Reads the tracked files of the repository the working directory belongs to. */
  static RepositoryFiles read() {
    Path root = findRoot(Path.of("").toAbsolutePath());
    return new RepositoryFiles(root, gitLsFiles(root));
  }

  Path root() {
    return root;
  }

  /** Every tracked path, sorted. */
  NavigableSet<String> tracked() {
    return tracked;
  }

  /** The tracked {@code *.md} files, sorted. */
  List<String> markdownFiles() {
    return tracked.stream().filter(path -> path.endsWith(".md")).toList();
  }

  String text(String path) {
    try {
      return Files.readString(root.resolve(path), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + path, e);
    }
  }

  private static Path findRoot(Path start) {
    for (Path dir = start; dir != null; dir = dir.getParent()) {
      Path pom = dir.resolve("pom.xml");
      if (Files.isRegularFile(dir.resolve("mvnw")) && Files.isRegularFile(pom)) {
        try {
          if (Files.readString(pom).contains(PARENT_ARTIFACT)) {
            return dir;
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
    throw new IllegalStateException("no Segment Ledger checkout above " + start
        + " (looked for mvnw beside the pom.xml of segment-ledger-parent)");
  }

  private static TreeSet<String> gitLsFiles(Path root) {
    ProcessBuilder builder = new ProcessBuilder("git", "ls-files", "-z").directory(root.toFile())
        .redirectError(ProcessBuilder.Redirect.INHERIT);
    try {
      Process git = builder.start();
      byte[] out;
      try (InputStream in = git.getInputStream()) {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        in.transferTo(buffer);
        out = buffer.toByteArray();
      }
      if (!git.waitFor(60, TimeUnit.SECONDS) || git.exitValue() != 0) {
        throw new IllegalStateException("git ls-files failed in " + root
            + ": the documentation tests need a git checkout and git on the PATH");
      }
      TreeSet<String> files = new TreeSet<>(
          Arrays.asList(new String(out, StandardCharsets.UTF_8).split("\0")));
      files.remove("");
      return files;
    } catch (IOException e) {
      throw new IllegalStateException("cannot run git in " + root
          + ": the documentation tests need a git checkout and git on the PATH", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running git ls-files", e);
    }
  }
}
