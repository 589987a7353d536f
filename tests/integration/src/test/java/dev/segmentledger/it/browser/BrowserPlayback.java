package dev.segmentledger.it.browser;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriverException;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Plays an HLS multivariant playlist in a real browser: headless Chromium (Debian's
 * {@code chromium}) driven through Debian's {@code chromedriver} by Selenium, with hls.js, and
 * reports how far playback got. "Played, not parsed": a playlist passes only if a
 * browser's media stack decodes and advances through it.
 *
 * <p>The player page ({@code player.html}, a test resource) and {@code hls.min.js} (the npm
 * package pinned in {@code tests/integration/browser/package-lock.json}, installed by
 * {@code npm ci}) are uploaded into the bucket ({@link #publishPlayer}) and opened from the same
 * HTTP origin as the media, so the browser loads page, library, playlists and segments from the S3
 * server itself, with no CORS rules and no other web server.
 *
 * <p>Tools are found by system property or at Debian's paths: {@code segmentledger.chromium}
 * ({@code /usr/bin/chromium}), {@code segmentledger.chromedriver} ({@code /usr/bin/chromedriver}),
 * {@code segmentledger.hlsjs} ({@code browser/node_modules/hls.js/dist/hls.min.js} under the module
 * directory). {@link #requireTools()} fails when one is missing under {@code CI=true}, and skips
 * with the commands to install it otherwise. Selenium Manager is never used: the driver is given
 * explicitly, so nothing is downloaded.
 */
public final class BrowserPlayback {
  /** The player page's object name, beside {@link #HLS_JS}. */
  public static final String PAGE = "player.html";
  /** hls.js's object name, beside {@link #PAGE}. */
  public static final String HLS_JS = "hls.min.js";
  /** The flags Chromium plays with here (as root, headless, no network beyond loopback). */
  public static final List<String> CHROMIUM_FLAGS = List.of(
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
      "--disable-dev-shm-usage", "--autoplay-policy=no-user-gesture-required", "--mute-audio",
      "--window-size=800,600");
  private static final long POLL_MILLIS = 250;
  private static final Duration POLL = Duration.ofMillis(POLL_MILLIS);

  private BrowserPlayback() {}

  /** Where the browser, its driver and hls.js are. */
  public record Tools(Path chromium, Path chromedriver, Path hlsJs) {}

  /**
   * What the page observed when {@link #play} stopped watching.
   *
   * @param position the video's {@code currentTime}, seconds of media played
   * @param duration the video's duration as the browser knows it, -1 if unknown
   * @param ended whether the video ended
   * @param totalFrames video frames the browser decoded ({@code getVideoPlaybackQuality}), -1 if unknown
   * @param droppedFrames of those, frames dropped, -1 if unknown
   * @param hlsVersion the hls.js version that played, null if it did not load
   * @param fatalErrors fatal hls.js errors, media element errors, page errors, a refused {@code play()}
   * @param errors non-fatal hls.js errors (hls.js recovered from them)
   * @param events media element and hls.js events, stamped with seconds since the page loaded
   * @param console the page's console output
   * @param buffered the buffered ranges at the end
   * @param elapsed wall-clock time from opening the page to the end of watching
   */
  public record Observation(
      double position, double duration, boolean ended, long totalFrames, long droppedFrames, String hlsVersion,
      List<String> fatalErrors, List<String> errors, List<String> events, List<String> console, String buffered,
      Duration elapsed) {

    /** A multi-line account of the observation, for test output and failure messages. */
    public String report() {
      StringBuilder s = new StringBuilder(String.format(Locale.ROOT,
          "position %.2f s of %.2f s, ended %s, frames %d (dropped %d), hls.js %s, buffered [%s], watched %.1f s",
          position, duration, ended, totalFrames, droppedFrames, hlsVersion, buffered, elapsed.toMillis() / 1000.0));
      section(s, "fatal errors", fatalErrors);
      section(s, "non-fatal errors", errors);
      section(s, "events", events);
      section(s, "console", console);
      return s.toString();
    }

    private static void section(StringBuilder s, String title, List<String> lines) {
      s.append('\n').append(title).append(": ").append(lines.isEmpty() ? "none" : "");
      for (String line : lines) {
        s.append("\n  ").append(line);
      }
    }
  }

  /**
   * The browser, its driver and hls.js. When one is missing: under {@code CI=true} the calling
   * test fails; otherwise it is skipped (aborted) with a message that says how to install it.
   */
  public static Tools requireTools() {
    Path chromium = Path.of(System.getProperty("segmentledger.chromium", "/usr/bin/chromium"));
    Path chromedriver = Path.of(System.getProperty("segmentledger.chromedriver", "/usr/bin/chromedriver"));
    Path hlsJs = Path.of(System.getProperty("segmentledger.hlsjs",
        Path.of(System.getProperty("basedir", ".")).resolve("browser/node_modules/hls.js/dist/hls.min.js").toString()));
    List<String> missing = new ArrayList<>();
    if (!Files.isExecutable(chromium)) {
      missing.add("Chromium at " + chromium + " (apt-get install -y chromium)");
    }
    if (!Files.isExecutable(chromedriver)) {
      missing.add("chromedriver at " + chromedriver + " (apt-get install -y chromium-driver)");
    }
    if (!Files.isRegularFile(hlsJs)) {
      missing.add("hls.js at " + hlsJs + " (npm ci --prefix tests/integration/browser)");
    }
    if (!missing.isEmpty()) {
      String message = "browser playback needs " + String.join(", ", missing)
          + "; .ci/run installs all three";
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        Assertions.fail(message + " (CI=true: a missing tool fails the test, it never skips)");
      }
      Assumptions.abort(message + " (skipped: CI is not set)");
    }
    return new Tools(chromium, chromedriver, hlsJs);
  }

  /**
   * Uploads the player page ({@code text/html}) and hls.js ({@code application/javascript}) to
   * {@code bucket} under {@code prefix} (empty, or ending in {@code /}).
   *
   * @return the key of the page
   */
  public static String publishPlayer(S3Client client, String bucket, String prefix, Tools tools) {
    if (!prefix.isEmpty() && !prefix.endsWith("/")) {
      throw new IllegalArgumentException("prefix must be empty or end in '/': " + prefix);
    }
    byte[] page;
    try (InputStream in = BrowserPlayback.class.getResourceAsStream("/browser/" + PAGE)) {
      if (in == null) {
        throw new IllegalStateException("test resource /browser/" + PAGE + " not found");
      }
      page = in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    client.putObject(b -> b.bucket(bucket).key(prefix + PAGE).contentType("text/html"),
        RequestBody.fromBytes(page));
    client.putObject(b -> b.bucket(bucket).key(prefix + HLS_JS).contentType("application/javascript"),
        RequestBody.fromFile(tools.hlsJs()));
    return prefix + PAGE;
  }

  /**
   * Opens {@code page} (the player, as published by {@link #publishPlayer}) on {@code playlist}
   * and watches until playback reaches {@code stopAtSeconds} of media, ends, meets a fatal error,
   * or {@code timeout} passes, whichever comes first.
   *
   * @param artifacts where to leave {@code screenshot.png}, {@code observation.txt} and
   *     {@code chromedriver.log} of the run, or null for none
   */
  public static Observation play(Tools tools, URI page, URI playlist, Duration timeout, double stopAtSeconds,
      Path artifacts) throws IOException, InterruptedException {
    return watch(tools, page, playlist, "", timeout,
        snapshot -> number(snapshot.get("position")) >= stopAtSeconds || Boolean.TRUE.equals(snapshot.get("ended"))
            || !strings(snapshot.get("fatal")).isEmpty(),
        snapshot -> { }, artifacts);
  }

  /**
   * Opens {@code page} on {@code playlist} with {@code query} appended to its query string (empty,
   * or {@code &name=value...}; see player.html), hands each snapshot the page reports (every
   * {@value #POLL_MILLIS} ms) to {@code samples}, and stops once {@code stop} holds for one, a fatal
   * error is reported, or {@code timeout} passes.
   */
  public static Observation watch(Tools tools, URI page, URI playlist, String query, Duration timeout,
      Predicate<Map<?, ?>> stop, Consumer<Map<?, ?>> samples, Path artifacts) throws IOException, InterruptedException {
    Path profile = Files.createTempDirectory("segment-ledger-chromium");
    ChromeDriverService.Builder serviceBuilder = new ChromeDriverService.Builder()
        .usingDriverExecutable(tools.chromedriver().toFile())
        .usingAnyFreePort();
    if (artifacts != null) {
      Files.createDirectories(artifacts);
      serviceBuilder.withLogFile(artifacts.resolve("chromedriver.log").toFile());
    }
    ChromeDriverService service = serviceBuilder.build();
    ChromeOptions options = new ChromeOptions();
    options.setBinary(tools.chromium().toFile());
    options.addArguments(CHROMIUM_FLAGS);
    options.addArguments("--user-data-dir=" + profile);
    ChromeDriver driver = null;
    long start = System.nanoTime();
    try {
      driver = new ChromeDriver(service, options);
      driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30)).scriptTimeout(Duration.ofSeconds(10));
      URI url = URI.create(page + "?src=" + URLEncoder.encode(playlist.toString(), StandardCharsets.UTF_8) + query);
      start = System.nanoTime();
      driver.get(url.toString());
      long deadline = start + timeout.toNanos();
      Map<?, ?> snapshot = null;
      while (true) {
        Object result = ((JavascriptExecutor) driver)
            .executeScript("return window.__playback && window.__playback.snapshot ? window.__playback.snapshot() : null;");
        if (result instanceof Map<?, ?> map) {
          snapshot = map;
          samples.accept(map);
          if (stop.test(map) || !strings(map.get("fatal")).isEmpty()) {
            break;
          }
        }
        if (System.nanoTime() >= deadline) {
          break;
        }
        Thread.sleep(POLL.toMillis());
      }
      Observation observation = observation(snapshot, Duration.ofNanos(System.nanoTime() - start));
      if (artifacts != null) {
        Files.write(artifacts.resolve("screenshot.png"), driver.getScreenshotAs(OutputType.BYTES));
        Files.writeString(artifacts.resolve("observation.txt"), "page " + url + "\n" + observation.report() + "\n");
      }
      return observation;
    } finally {
      if (driver != null) {
        try {
          driver.quit();
        } catch (WebDriverException e) {
          // the browser is gone already; the service below is stopped either way
        }
      }
      service.stop();
      deleteRecursively(profile);
    }
  }

  /** {@code played} got past {@code seconds} of media, decoded video frames and met no fatal error. */
  public static void assertPlayedPast(Observation played, double seconds) {
    assertTrue(played.fatalErrors().isEmpty(), "fatal errors while playing:\n" + played.report());
    assertTrue(played.position() > seconds, "playback did not get past " + seconds + " s of media:\n" + played.report());
    assertTrue(played.totalFrames() > 0, "no video frame decoded:\n" + played.report());
  }

  private static Observation observation(Map<?, ?> s, Duration elapsed) {
    if (s == null) {
      return new Observation(0, -1, false, -1, -1, null,
          List.of("the player page never reported (did player.html load?)"), List.of(), List.of(), List.of(), "",
          elapsed);
    }
    Object version = s.get("hlsVersion");
    return new Observation(number(s.get("position")), number(s.get("duration")), Boolean.TRUE.equals(s.get("ended")),
        (long) number(s.get("totalFrames")), (long) number(s.get("droppedFrames")),
        version == null ? null : version.toString(), strings(s.get("fatal")), strings(s.get("errors")),
        strings(s.get("events")), strings(s.get("console")), String.valueOf(s.get("buffered")), elapsed);
  }

  /** A number the page reported, or -1 if it reported none. */
  public static double number(Object value) {
    return value instanceof Number n ? n.doubleValue() : -1;
  }

  private static List<String> strings(Object value) {
    if (!(value instanceof List<?> list)) {
      return List.of();
    }
    return list.stream().map(String::valueOf).toList();
  }

  private static void deleteRecursively(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      // Chromium may still be writing into its profile while it exits; the temp dir is left then
    }
  }
}
