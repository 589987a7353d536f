package dev.segmentledger.console;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One request to the console, as its host (the Spring Boot starter, the command line's server, or
 * your own) hands it over after authenticating and authorising it. Immutable.
 *
 * @param method the HTTP method, upper case
 * @param path the path below the console's mount point, starting with {@code /} ({@code /} for the start page)
 * @param parameters the query and form parameters, each name with its values in order
 * @param basePath where the console is mounted as the browser sees it ({@code ""} or, for example,
 *     {@code /segment-ledger}): every link and form of a page starts with it
 * @param user who is asking (the host authenticated them): named in the detail of a row re-opened
 * @param formFields hidden fields every form of a page must carry back to the host, for example the
 *     host's CSRF token ({@code _csrf}); empty if none
 */
public record ConsoleRequest(String method, String path, Map<String, List<String>> parameters, String basePath,
    String user, Map<String, String> formFields) {

  public ConsoleRequest {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(basePath, "basePath");
    Objects.requireNonNull(user, "user");
    if (!path.startsWith("/")) {
      throw new IllegalArgumentException("path must start with '/': " + path);
    }
    if (!basePath.isEmpty() && (!basePath.startsWith("/") || basePath.endsWith("/"))) {
      throw new IllegalArgumentException("basePath must be empty or start and not end with '/': " + basePath);
    }
    parameters = Map.copyOf(parameters);
    formFields = Map.copyOf(formFields);
  }

  /** The first value of parameter {@code name}, or {@code null} if it is absent or empty. */
  public String parameter(String name) {
    List<String> values = parameters.get(name);
    if (values == null || values.isEmpty() || values.get(0) == null || values.get(0).isEmpty()) {
      return null;
    }
    return values.get(0);
  }
}
