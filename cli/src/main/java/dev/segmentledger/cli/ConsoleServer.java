package dev.segmentledger.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.segmentledger.console.ConsoleRequest;
import dev.segmentledger.console.ConsoleResponse;
import dev.segmentledger.console.LedgerConsole;
import dev.segmentledger.console.StreamedBody;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The console on the JDK's {@code com.sun.net.httpserver.HttpServer}, behind an access token.
 *
 * <p>Design: the token is the only credential. It arrives once in the URL ({@code ?token=}), is
 * checked, and is turned into an {@code HttpOnly}, {@code SameSite=Strict} cookie with a redirect
 * to the URL without it; afterwards the cookie (or an {@code Authorization: Bearer} header, for
 * scripts) is checked on every request in constant time. A request without it gets 401 and nothing
 * else. Forms are protected against cross-site requests by the strict cookie (a browser does not
 * send it from another site) and by refusing a POST whose {@code Origin} is another origin, or
 * {@code null} (a sandboxed frame, a redirected form); a POST without {@code Origin} (a script with
 * the token in its {@code Authorization} header) is served. Bodies
 * are limited to 64 KiB. A media object is copied through as it arrives, never held whole. Four threads serve requests. Thread-safe.
 */
final class ConsoleServer {
  static final String COOKIE = "segment_ledger_console";
  private static final int MAX_BODY = 64 * 1024;

  private final HttpServer server;
  private final ExecutorService threads;
  private final LedgerConsole console;
  private final byte[] token;

  private ConsoleServer(HttpServer server, ExecutorService threads, LedgerConsole console, String token) {
    this.server = server;
    this.threads = threads;
    this.console = console;
    this.token = token.getBytes(StandardCharsets.UTF_8);
  }

  static ConsoleServer start(LedgerConsole console, InetSocketAddress address, String token) throws IOException {
    HttpServer http = HttpServer.create(address, 0);
    ExecutorService threads = Executors.newFixedThreadPool(4, r -> {
      Thread t = new Thread(r, "segment-ledger-console-http");
      t.setDaemon(true);
      return t;
    });
    ConsoleServer server = new ConsoleServer(http, threads, console, token);
    http.createContext("/", server::serve);
    http.setExecutor(threads);
    http.start();
    return server;
  }

  /** The base URL, {@code http://address:port/}. */
  String url() {
    InetSocketAddress address = server.getAddress();
    String host = address.getAddress().isAnyLocalAddress() ? "127.0.0.1" : address.getHostString();
    return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + address.getPort() + "/";
  }

  void stop() {
    server.stop(1);
    threads.shutdownNow();
  }

  private void serve(HttpExchange exchange) throws IOException {
    try (exchange) {
      URI uri = exchange.getRequestURI();
      Map<String, List<String>> parameters = parse(uri.getRawQuery());
      String given = first(parameters, "token");
      if (given != null && exchange.getRequestMethod().equals("GET")) {
        if (!matches(given)) {
          send(exchange, 401, "the token is not this console's: open the URL the console command printed");
          return;
        }
        exchange.getResponseHeaders().add("Set-Cookie", COOKIE + "=" + given
            + "; Path=/; HttpOnly; SameSite=Strict");
        exchange.getResponseHeaders().add("Location", uri.getRawPath());
        exchange.getResponseHeaders().add("Cache-Control", "no-store");
        exchange.sendResponseHeaders(303, -1);
        return;
      }
      if (!authorised(exchange)) {
        send(exchange, 401, "this console needs its access token: open the URL the console command printed");
        return;
      }
      if (exchange.getRequestMethod().equals("POST")) {
        String origin = exchange.getRequestHeaders().getFirst("Origin");
        if (origin != null && !sameOrigin(origin, exchange.getRequestHeaders().getFirst("Host"))) {
          send(exchange, 403, "refused: a POST from Origin " + (origin.equals("null") ? "null (a sandboxed or"
              + " redirected form)" : "of another site") + "; only this console's own pages may post to it");
          return;
        }
        try (InputStream in = exchange.getRequestBody()) {
          byte[] body = in.readNBytes(MAX_BODY + 1);
          if (body.length > MAX_BODY) {
            send(exchange, 413, "a form of at most 64 KiB");
            return;
          }
          parse(new String(body, StandardCharsets.UTF_8)).forEach((k, v) -> parameters.computeIfAbsent(k,
              x -> new ArrayList<>()).addAll(v));
        }
      }
      String path = uri.getPath() == null || uri.getPath().isEmpty() ? "/" : uri.getPath();
      ConsoleResponse response = console.handle(new ConsoleRequest(exchange.getRequestMethod(), path, parameters,
          "", "the console command's token holder", Map.of()));
      response.headers().forEach((name, value) -> exchange.getResponseHeaders().add(name, value));
      exchange.getResponseHeaders().add("Content-Type", response.contentType());
      boolean head = exchange.getRequestMethod().equals("HEAD");
      if (response.streamed() != null) {
        try (StreamedBody streamed = response.streamed()) {
          long length = streamed.length();
          exchange.sendResponseHeaders(response.status(), head || length == 0 ? -1 : Math.max(0, length));
          if (!head) {
            streamed.writeTo(exchange.getResponseBody()); // chunked when the length is unknown
          }
        }
        return;
      }
      exchange.sendResponseHeaders(response.status(), head || response.body().length == 0 ? -1
          : response.body().length);
      if (!head) {
        exchange.getResponseBody().write(response.body());
      }
    }
  }

  /**
   * Whether {@code origin} is this console's own: http(s) at the request's {@code Host} (a TLS proxy
   * in front keeps the host).
   * {@code null}, which a sandboxed frame, a {@code data:} page or a form redirected across origins
   * sends, is no origin of this console's, and neither is anything unparsable.
   */
  static boolean sameOrigin(String origin, String host) {
    if (host == null || origin.equals("null")) {
      return false;
    }
    try {
      URI uri = new URI(origin);
      boolean web = "http".equalsIgnoreCase(uri.getScheme()) || "https".equalsIgnoreCase(uri.getScheme());
      return web && host.equalsIgnoreCase(uri.getRawAuthority());
    } catch (URISyntaxException e) {
      return false;
    }
  }

  private boolean authorised(HttpExchange exchange) {
    String authorization = exchange.getRequestHeaders().getFirst("Authorization");
    if (authorization != null && authorization.startsWith("Bearer ")) {
      return matches(authorization.substring("Bearer ".length()).trim());
    }
    for (String header : exchange.getRequestHeaders().getOrDefault("Cookie", List.of())) {
      for (String cookie : header.split(";")) {
        String[] pair = cookie.trim().split("=", 2);
        if (pair.length == 2 && pair[0].equals(COOKIE) && matches(pair[1])) {
          return true;
        }
      }
    }
    return false;
  }

  private boolean matches(String given) {
    return MessageDigest.isEqual(token, given.getBytes(StandardCharsets.UTF_8));
  }

  private static void send(HttpExchange exchange, int status, String message) throws IOException {
    byte[] body = message.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "text/plain; charset=utf-8");
    exchange.getResponseHeaders().add("Cache-Control", "no-store");
    exchange.sendResponseHeaders(status, body.length);
    exchange.getResponseBody().write(body);
  }

  private static Map<String, List<String>> parse(String raw) {
    Map<String, List<String>> parameters = new LinkedHashMap<>();
    if (raw == null || raw.isEmpty()) {
      return parameters;
    }
    for (String pair : raw.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      String[] kv = pair.split("=", 2);
      String key = URLDecoder.decode(kv[0], StandardCharsets.UTF_8);
      String value = kv.length == 2 ? URLDecoder.decode(kv[1], StandardCharsets.UTF_8) : "";
      parameters.computeIfAbsent(key, k -> new ArrayList<>()).add(value);
    }
    return parameters;
  }

  private static String first(Map<String, List<String>> parameters, String name) {
    List<String> values = parameters.get(name);
    return values == null || values.isEmpty() ? null : values.get(0);
  }
}
