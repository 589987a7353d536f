package dev.segmentledger.console;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What the console answers: a status, a content type, headers (security headers included) and the
 * body. The host writes it out as it is: {@link #body()}, or, when {@link #streamed()} is not
 * {@code null} (a media object, only for a host that {@linkplain LedgerConsole.Builder#streamedBodies
 * streams}), that body copied as it arrives, after which the host closes it.
 * Immutable (the body array is not copied: do not change it).
 *
 * @param status the HTTP status
 * @param contentType the {@code Content-Type}
 * @param headers further headers, in order
 * @param body the bytes of the body; empty when {@code streamed} is given
 * @param streamed a body to copy to the client instead of {@code body}, or {@code null}
 */
public record ConsoleResponse(int status, String contentType, Map<String, String> headers, byte[] body,
    StreamedBody streamed) {
  public ConsoleResponse {
    Objects.requireNonNull(contentType, "contentType");
    Objects.requireNonNull(body, "body");
    headers = Map.copyOf(headers);
  }

  /** A response whose whole body is {@code body}. */
  public ConsoleResponse(int status, String contentType, Map<String, String> headers, byte[] body) {
    this(status, contentType, headers, body, null);
  }

  static ConsoleResponse html(int status, String html, String scriptOrigin) {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("Content-Security-Policy", "default-src 'none'; script-src 'self'"
        + (scriptOrigin == null ? "" : " " + scriptOrigin) + "; style-src 'self'; img-src 'self' data:;"
        + " media-src 'self' blob:; connect-src 'self'; worker-src 'self' blob:; form-action 'self';"
        + " frame-ancestors 'none'; base-uri 'none'");
    headers.put("X-Content-Type-Options", "nosniff");
    // same-origin, not no-referrer: under no-referrer a browser sends "Origin: null" even with the
    // console's own forms, which the hosts refuse as a cross-site POST; other sites still get nothing.
    headers.put("Referrer-Policy", "same-origin");
    headers.put("Cache-Control", "no-store");
    return new ConsoleResponse(status, "text/html; charset=utf-8", headers, html.getBytes(StandardCharsets.UTF_8));
  }

  static ConsoleResponse redirect(String location) {
    return new ConsoleResponse(303, "text/plain; charset=utf-8", Map.of("Location", location, "Cache-Control",
        "no-store"), new byte[0]);
  }

  /**
   * A media object, whole in {@code body} or copied through as it arrives from {@code streamed}, with
   * a policy under which nothing in it runs or loads (a playlist or segment is data: opened directly
   * in a browser, it must never act as a page of the console's origin).
   */
  static ConsoleResponse media(String contentType, byte[] body, StreamedBody streamed, String cacheControl) {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("Content-Security-Policy", "default-src 'none'; sandbox; frame-ancestors 'none'");
    headers.put("X-Content-Type-Options", "nosniff");
    headers.put("Cache-Control", cacheControl);
    return new ConsoleResponse(200, contentType, headers, body, streamed);
  }

  static ConsoleResponse bytes(int status, String contentType, byte[] body, String cacheControl) {
    return new ConsoleResponse(status, contentType, Map.of("X-Content-Type-Options", "nosniff", "Cache-Control",
        cacheControl), body);
  }
}
