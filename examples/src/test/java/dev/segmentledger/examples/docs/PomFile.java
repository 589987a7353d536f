package dev.segmentledger.examples.docs;

import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;

/**
 * The few facts of a Maven POM the documentation tests compare with the docs: its coordinates, its
 * modules (profiles' included), its profiles, whether it is deployed, and its managed dependencies. Read with the
 * JDK's DOM parser; no interpolation beyond what the tests need.
 *
 * <p>Immutable; thread-safe.
 */
final class PomFile {

  /** A managed dependency as written: {@code version} may be a property such as {@code ${project.version}}. */
  record Managed(String groupId, String artifactId, String version, String type) {}

  private final Element project;

  private PomFile(Element project) {
    this.project = project;
  }

  static PomFile parse(String xml) {
    try {
      DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
      factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      return new PomFile(factory.newDocumentBuilder()
          .parse(new InputSource(new StringReader(xml))).getDocumentElement());
    } catch (ParserConfigurationException | SAXException | IOException e) {
      throw new IllegalArgumentException("not a POM: " + e.getMessage(), e);
    }
  }

  String artifactId() {
    return text(project, "artifactId").orElseThrow();
  }

  /** The project's own version, else its parent's. */
  String version() {
    return text(project, "version")
        .or(() -> child(project, "parent").flatMap(parent -> text(parent, "version")))
        .orElseThrow();
  }

  String packaging() {
    return text(project, "packaging").orElse("jar");
  }

  /** The {@code <module>} entries of the project and of its profiles, as written. */
  List<String> modules() {
    List<String> modules = new ArrayList<>();
    NodeList all = project.getElementsByTagName("module");
    for (int i = 0; i < all.getLength(); i++) {
      modules.add(all.item(i).getTextContent().trim());
    }
    return modules;
  }

  /** The ids of the project's profiles. */
  List<String> profileIds() {
    List<String> ids = new ArrayList<>();
    child(project, "profiles").ifPresent(profiles -> {
      for (Element profile : children(profiles, "profile")) {
        text(profile, "id").ifPresent(ids::add);
      }
    });
    return ids;
  }

  /** True unless the project's properties set {@code maven.deploy.skip} to {@code true}. */
  boolean deployed() {
    return child(project, "properties")
        .flatMap(properties -> text(properties, "maven.deploy.skip"))
        .map(skip -> !skip.equals("true"))
        .orElse(true);
  }

  List<Managed> managedDependencies() {
    List<Managed> managed = new ArrayList<>();
    child(project, "dependencyManagement").flatMap(m -> child(m, "dependencies")).ifPresent(deps -> {
      for (Element dependency : children(deps, "dependency")) {
        managed.add(new Managed(text(dependency, "groupId").orElseThrow(),
            text(dependency, "artifactId").orElseThrow(), text(dependency, "version").orElse(null),
            text(dependency, "type").orElse("jar")));
      }
    });
    return managed;
  }

  private static Optional<String> text(Element parent, String name) {
    return child(parent, name).map(element -> element.getTextContent().trim());
  }

  private static Optional<Element> child(Element parent, String name) {
    List<Element> found = children(parent, name);
    return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
  }

  private static List<Element> children(Element parent, String name) {
    List<Element> found = new ArrayList<>();
    for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
      if (node instanceof Element element && element.getTagName().equals(name)) {
        found.add(element);
      }
    }
    return found;
  }
}
