package dev.segmentledger.examples.docs;

import java.io.File;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Says whether a link written in a tracked Markdown file resolves as it would on GitHub: a relative
 * path (to the file's directory, or to the repository root with a leading {@code /}) must name a
 * tracked file or a directory holding one, inside the repository; an {@code #anchor} must be the
 * anchor of a heading of the Markdown file it points into (the same file when the path is empty),
 * or a line anchor ({@code #L12}, {@code #L12-L20}) of another tracked file. Links with a scheme
 * ({@code https:}, {@code mailto:}) are not checked.
 *
 * <p>Immutable; thread-safe.
 */
final class LinkChecker {

  /** A link that does not resolve: where it is written, what it says, and why it fails. */
  record Broken(String file, int line, String destination, String problem) {
    @Override
    public String toString() {
      return file + ":" + line + ": (" + destination + ") " + problem;
    }
  }

  private static final Pattern SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*:");
  private static final Pattern LINE_ANCHOR = Pattern.compile("L\\d+(-L\\d+)?");

  private final NavigableSet<String> tracked;
  private final Map<String, MarkdownDocument> documents;

  /**
   * @param tracked every tracked path, relative to the repository root, {@code /} as separator
   * @param documents every tracked Markdown file by its path
   */
  LinkChecker(NavigableSet<String> tracked, Map<String, MarkdownDocument> documents) {
    this.tracked = tracked;
    this.documents = Map.copyOf(documents);
  }

  /** Every link of every document that does not resolve, in file and line order. */
  List<Broken> brokenLinks() {
    List<Broken> broken = new ArrayList<>();
    documents.keySet().stream().sorted().forEach(file -> {
      for (MarkdownDocument.LinkTarget link : documents.get(file).links()) {
        problem(file, link.destination())
            .ifPresent(problem -> broken.add(new Broken(file, link.line(), link.destination(), problem)));
      }
    });
    return broken;
  }

  /** Why {@code destination}, written in {@code file}, does not resolve; empty if it does. */
  Optional<String> problem(String file, String destination) {
    if (destination.isEmpty() || SCHEME.matcher(destination).find() || destination.startsWith("//")) {
      return Optional.empty();
    }
    int hash = destination.indexOf('#');
    String pathPart = hash < 0 ? destination : destination.substring(0, hash);
    String fragment = hash < 0 ? null : decode(destination.substring(hash + 1));
    int query = pathPart.indexOf('?');
    if (query >= 0) {
      pathPart = pathPart.substring(0, query);
    }
    String target;
    if (pathPart.isEmpty()) {
      target = file;
    } else {
      String base = pathPart.startsWith("/") ? "" : directoryOf(file);
      Optional<String> normalized = normalize(base + decode(pathPart));
      if (normalized.isEmpty()) {
        return Optional.of("leads outside the repository");
      }
      target = normalized.get();
    }
    if (!exists(target)) {
      return Optional.of("no tracked file or directory " + target
          + " (a new file must be added to git)");
    }
    if (fragment == null || fragment.isEmpty()) {
      return Optional.empty();
    }
    MarkdownDocument document = documents.get(target);
    if (document != null) {
      return document.anchors().contains(fragment)
          ? Optional.empty()
          : Optional.of("no heading of " + target + " has the anchor #" + fragment
              + "; its anchors: " + document.anchors());
    }
    if (tracked.contains(target) && LINE_ANCHOR.matcher(fragment).matches()) {
      return Optional.empty();
    }
    return Optional.of("#" + fragment + " is not a heading anchor or line anchor of " + target);
  }

  private boolean exists(String path) {
    if (path.isEmpty() || tracked.contains(path)) {
      return true;
    }
    String directory = path + "/";
    String next = tracked.ceiling(directory);
    return next != null && next.startsWith(directory);
  }

  private static String directoryOf(String file) {
    int slash = file.lastIndexOf('/');
    return slash < 0 ? "" : file.substring(0, slash + 1);
  }

  /** Resolves {@code .} and {@code ..}; empty if the path climbs above the root. */
  private static Optional<String> normalize(String path) {
    String relative = path.replaceFirst("^/+", "");
    String normalized = Path.of(relative).normalize().toString().replace(File.separatorChar, '/');
    return normalized.equals("..") || normalized.startsWith("../")
        ? Optional.empty()
        : Optional.of(normalized);
  }

  private static String decode(String text) {
    return text.indexOf('%') < 0
        ? text
        : URLDecoder.decode(text.replace("+", "%2B"), StandardCharsets.UTF_8);
  }
}
