package dev.segmentledger.spring;

import dev.segmentledger.console.ConsoleRequest;
import dev.segmentledger.console.ConsoleResponse;
import dev.segmentledger.console.LedgerConsole;
import dev.segmentledger.console.StreamedBody;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.web.csrf.CsrfToken;
import org.springframework.web.HttpRequestHandler;

/**
 * Serves the {@link LedgerConsole} below its path as a Spring MVC handler, to authenticated users
 * holding the console's role only. The application's Spring Security configuration authenticates
 * (form login, HTTP Basic, SSO: whatever it has); this handler then refuses, itself, a request
 * without an authenticated user (401) or without the role (403), so the console is never served
 * because a security rule was missing. The application's CSRF token goes into every form.
 * Thread-safe.
 */
final class ConsoleRequestHandler implements HttpRequestHandler {
  private final LedgerConsole console;
  private final String path;
  private final String authority;

  ConsoleRequestHandler(LedgerConsole console, String path, String role) {
    this.console = Objects.requireNonNull(console, "console");
    this.path = path;
    this.authority = "ROLE_" + role;
  }

  @Override
  public void handleRequest(HttpServletRequest request, HttpServletResponse response) throws IOException {
    Authentication user = SecurityContextHolder.getContext().getAuthentication();
    if (user == null || !user.isAuthenticated() || user.getPrincipal() == null
        || "anonymousUser".equals(user.getPrincipal())) {
      plain(response, HttpServletResponse.SC_UNAUTHORIZED, "the console needs a signed-in user with role "
          + authority.substring(5));
      return;
    }
    if (user.getAuthorities().stream().noneMatch(a -> authority.equals(a.getAuthority()))) {
      plain(response, HttpServletResponse.SC_FORBIDDEN, "the console is for users with role " + authority.substring(5));
      return;
    }
    String base = request.getContextPath() + path;
    String below = request.getRequestURI().substring(Math.min(request.getRequestURI().length(), base.length()));
    if (below.isEmpty()) {
      response.sendRedirect(base + "/");
      return;
    }
    Map<String, List<String>> parameters = new LinkedHashMap<>();
    request.getParameterMap().forEach((name, values) -> parameters.put(name, Arrays.asList(values)));
    Map<String, String> formFields = new LinkedHashMap<>();
    if (request.getAttribute(CsrfToken.class.getName()) instanceof CsrfToken csrf) {
      formFields.put(csrf.getParameterName(), csrf.getToken());
    }
    ConsoleResponse answer = console.handle(new ConsoleRequest(request.getMethod(), below, parameters, base,
        user.getName(), formFields));
    response.setStatus(answer.status());
    answer.headers().forEach(response::setHeader);
    response.setContentType(answer.contentType());
    if (answer.streamed() != null) {
      try (StreamedBody streamed = answer.streamed()) {
        if (streamed.length() >= 0) {
          response.setContentLengthLong(streamed.length());
        }
        if (!"HEAD".equals(request.getMethod())) {
          streamed.writeTo(response.getOutputStream()); // a media object, copied through as it arrives
        }
      }
      return;
    }
    response.setContentLength(answer.body().length);
    response.getOutputStream().write(answer.body());
  }

  private static void plain(HttpServletResponse response, int status, String message) throws IOException {
    response.setStatus(status);
    response.setContentType("text/plain; charset=utf-8");
    response.setHeader("Cache-Control", "no-store");
    response.getOutputStream().write(message.getBytes(StandardCharsets.UTF_8));
  }
}
