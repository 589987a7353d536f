package dev.segmentledger.examples.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Every relative link in every tracked Markdown file resolves, as GitHub resolves it: the file or
 * directory exists (and is tracked), and an {@code #anchor} is the anchor of one of the target's
 * headings. The nested tests check the checker itself on small documents, so that a broken link or
 * a wrong anchor rule fails here rather than on GitHub.
 */
class MarkdownLinksTest {

  @Test
  void everyRelativeLinkOfEveryTrackedMarkdownFileResolves() {
    RepositoryFiles repository = RepositoryFiles.read();
    Map<String, MarkdownDocument> documents = new LinkedHashMap<>();
    for (String file : repository.markdownFiles()) {
      documents.put(file, MarkdownDocument.parse(repository.text(file)));
    }
    assertTrue(documents.containsKey("README.md") && documents.size() > 10,
        "expected the README and the docs pages among the tracked Markdown files: " + documents.keySet());
    int links = documents.values().stream().mapToInt(document -> document.links().size()).sum();
    assertTrue(links > 50, "expected the documentation's links, found " + links);

    List<LinkChecker.Broken> broken = new LinkChecker(repository.tracked(), documents).brokenLinks();

    assertTrue(broken.isEmpty(), broken.size() + " of " + links + " links do not resolve:\n"
        + broken.stream().map(Object::toString).collect(Collectors.joining("\n")));
  }

  @Nested
  class AnchorsAreGitHubs {

    @Test
    void punctuationIsRemovedSpacesBecomeHyphensAndCodeSpansCount() {
      MarkdownDocument document = MarkdownDocument.parse("""
          # Segment Ledger: the design
          ## Many nodes: leases
          ## Guarantees, where they are enforced, which tests prove them
          ## The `segmentledger` endpoint
          ## Plain-HTTP endpoints (MinIO, S3Proxy, ... on `http://`)
          ### Why batched deletes, not partitions
          ## SDK 2.30+ and S3-compatible servers
          ## *Emphasis* and [a link](other.md) in a heading
          """);

      assertEquals(List.of(
              "segment-ledger-the-design",
              "many-nodes-leases",
              "guarantees-where-they-are-enforced-which-tests-prove-them",
              "the-segmentledger-endpoint",
              "plain-http-endpoints-minio-s3proxy--on-http",
              "why-batched-deletes-not-partitions",
              "sdk-230-and-s3-compatible-servers",
              "emphasis-and-a-link-in-a-heading"),
          List.copyOf(document.anchors()));
    }

    @Test
    void aRepeatedHeadingGetsANumberedAnchor() {
      MarkdownDocument document = MarkdownDocument.parse("## Limits\n\n## Limits\n\n## Limits\n");

      assertEquals(List.of("limits", "limits-1", "limits-2"), List.copyOf(document.anchors()));
    }
  }

  @Nested
  class TheCheckFindsBrokenLinks {

    private final TreeSet<String> tracked = new TreeSet<>(Set.of(
        "README.md", "docs/a.md", "docs/b.md", "core/src/main/java/X.java", "LICENSE"));

    private LinkChecker checker(String readme, String a) {
      return new LinkChecker(tracked, Map.of(
          "README.md", MarkdownDocument.parse(readme),
          "docs/a.md", MarkdownDocument.parse(a),
          "docs/b.md", MarkdownDocument.parse("# B\n\n## Known limits\n")));
    }

    @Test
    void linksThatResolveAreNotReported() {
      LinkChecker checker = checker("""
          # Title
          [a](docs/a.md), [b's limits](docs/b.md#known-limits), [here](#title), [X](core/src/main/java/X.java#L3-L9),
          [core](core/), [core again](core), [licence](/LICENSE), [web](https://example.com/x.md#nothing),
          [mail](mailto:someone@example.com), ![image](docs/a.md)
          """, "[back](../README.md#title) and [sibling](b.md) and [self](#a)\n\n# A\n");

      assertEquals(List.of(), checker.brokenLinks());
    }

    @Test
    void aMissingFileAMissingAnchorAndAPathOutsideTheRepositoryAreReported() {
      LinkChecker checker = checker("""
          # Title
          [gone](reconciler.md) and [no such heading](docs/b.md#limits)
          [not here](#titles) and [outside](../elsewhere/README.md) and [java anchor](core/src/main/java/X.java#method)
          """, "[wrong base](docs/b.md)\n");

      List<LinkChecker.Broken> broken = checker.brokenLinks();

      assertEquals(List.of("reconciler.md", "docs/b.md#limits", "#titles", "../elsewhere/README.md",
              "core/src/main/java/X.java#method", "docs/b.md"),
          broken.stream().map(LinkChecker.Broken::destination).toList(), broken.toString());
      assertEquals(List.of(2, 2, 3, 3, 3, 1), broken.stream().map(LinkChecker.Broken::line).toList());
      assertTrue(broken.get(1).problem().contains("known-limits"), "names the anchors there are");
    }

    @Test
    void aFileThatExistsButIsNotTrackedIsReported() {
      LinkChecker checker = checker("[new page](docs/new-page.md)\n", "");

      assertFalse(checker.brokenLinks().isEmpty());
    }
  }
}
