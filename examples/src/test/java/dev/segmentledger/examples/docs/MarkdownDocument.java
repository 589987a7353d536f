package dev.segmentledger.examples.docs;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.commonmark.ext.heading.anchor.IdGenerator;
import org.commonmark.node.AbstractVisitor;
import org.commonmark.node.Code;
import org.commonmark.node.FencedCodeBlock;
import org.commonmark.node.Heading;
import org.commonmark.node.Image;
import org.commonmark.node.Link;
import org.commonmark.node.Node;
import org.commonmark.node.SourceSpan;
import org.commonmark.node.Text;
import org.commonmark.parser.IncludeSourceSpans;
import org.commonmark.parser.Parser;

/**
 * One Markdown file as GitHub renders it, for the link checks: the destinations of its links and
 * images (with their lines), and the anchors of its headings, computed the way GitHub computes them
 * (the heading's text, code spans included, lower-cased, spaces to {@code -}, every character but
 * letters, digits, {@code -} and {@code _} removed, a repeated anchor suffixed {@code -1},
 * {@code -2}...). Parsing is commonmark-java's, anchors its heading-anchor extension's
 * {@link IdGenerator}, which follows those rules. For the command checks, its fenced code blocks and
 * code spans, with their lines.
 *
 * <p>Immutable; thread-safe.
 */
final class MarkdownDocument {

  /** A link or image destination, exactly as written after Markdown unescaping, and its line. */
  record LinkTarget(String destination, int line) {}

  /**
   * The text of a fenced code block or of a code span. {@code info} is a fenced block's info string
   * (its language, {@code ""} when none) and {@code null} for a code span; {@code line} is the line
   * of the text's first line (the line after a block's opening fence).
   */
  record CodeText(String text, int line, String info) {
    boolean inline() {
      return info == null;
    }
  }

  private static final Parser PARSER =
      Parser.builder().includeSourceSpans(IncludeSourceSpans.BLOCKS_AND_INLINES).build();

  private final List<LinkTarget> links;
  private final Set<String> anchors;
  private final List<CodeText> code;

  private MarkdownDocument(List<LinkTarget> links, Set<String> anchors, List<CodeText> code) {
    this.links = List.copyOf(links);
    this.anchors = Collections.unmodifiableSet(anchors);
    this.code = List.copyOf(code);
  }

  static MarkdownDocument parse(String markdown) {
    Node document = PARSER.parse(markdown);
    List<LinkTarget> links = new ArrayList<>();
    Set<String> anchors = new LinkedHashSet<>();
    List<CodeText> code = new ArrayList<>();
    IdGenerator ids = IdGenerator.builder().build();
    document.accept(new AbstractVisitor() {
      @Override
      public void visit(Link link) {
        links.add(new LinkTarget(link.getDestination(), lineOf(link)));
        visitChildren(link);
      }

      @Override
      public void visit(Image image) {
        links.add(new LinkTarget(image.getDestination(), lineOf(image)));
        visitChildren(image);
      }

      @Override
      public void visit(Heading heading) {
        anchors.add(ids.generateId(textOf(heading).trim().toLowerCase(Locale.ROOT)));
        visitChildren(heading);
      }

      @Override
      public void visit(FencedCodeBlock block) {
        code.add(new CodeText(block.getLiteral(), lineOf(block) + 1, block.getInfo().strip()));
      }

      @Override
      public void visit(Code span) {
        code.add(new CodeText(span.getLiteral(), lineOf(span), null));
      }
    });
    return new MarkdownDocument(links, anchors, code);
  }

  List<LinkTarget> links() {
    return links;
  }

  /** The fenced code blocks and code spans, in document order. */
  List<CodeText> code() {
    return code;
  }

  /** The anchors GitHub gives this document's headings, in document order. */
  Set<String> anchors() {
    return anchors;
  }

  private static String textOf(Heading heading) {
    StringBuilder text = new StringBuilder();
    heading.accept(new AbstractVisitor() {
      @Override
      public void visit(Text node) {
        text.append(node.getLiteral());
      }

      @Override
      public void visit(Code node) {
        text.append(node.getLiteral());
      }
    });
    return text.toString();
  }

  private static int lineOf(Node node) {
    List<SourceSpan> spans = node.getSourceSpans();
    return spans.isEmpty() ? 0 : spans.get(0).getLineIndex() + 1;
  }
}
