package dev.segmentledger.it.browser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.BroadcastStatus;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.ffmpeg.Cli;
import dev.segmentledger.ffmpeg.FfmpegRepackager;
import dev.segmentledger.it.browser.BrowserPlayback.Tools;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.s3.S3ObjectSink;
import dev.segmentledger.s3.S3ProxyServer;
import dev.segmentledger.testkit.LedgerEvents;
import dev.segmentledger.testkit.PlaybackBucketServer;
import dev.segmentledger.testkit.PostgresExtension;
import dev.segmentledger.testkit.TestMedia;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriverException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The operations console in headless Chromium, served as shipped: the command line's runnable jar
 * runs {@code console} in a process of its own, on a ledger in PostgreSQL and S3Proxy. The browser
 * opens the printed URL with the token it was given (which becomes the session's cookie), reads the backlog, pages through
 * 60 rejected rows with the keyset link, finds a last error holding markup and a bidi control shown
 * as text, re-opens a row through its confirmation page, runs a reconcile step, and plays a 15 s
 * broadcast's multivariant playlist with hls.js past 10 s through the console's host. A second
 * console without {@code --reopen-enabled} offers no re-open and refuses one. Screenshots are left in
 * {@code target/console-browser}.
 */
class ConsoleBrowserTest {
  @RegisterExtension static final PostgresExtension PG = PostgresExtension.create();
  private static final String PLAYED = "console-show";
  private static final String REJECTS = "console-rejects";
  static final String HOSTILE = "<img src=x onerror=\"document.title='owned'\">\u202Egnp.exe";
  private static final Path ARTIFACTS = Path.of("target", "console-browser");

  @Test
  @Timeout(300)
  void theConsolePagesPagesReopensShowsHostileTextAsTextAndPlaysPastTenSeconds(@TempDir Path dir) throws Exception {
    Tools tools = BrowserPlayback.requireTools();
    Cli.requireFfmpeg();
    Path root = Files.createDirectories(dir.resolve("root")).toRealPath();
    List<Path> chunks = TestMedia.recordChunks(Cli.FFMPEG, root.resolve("rec"), Duration.ofSeconds(15),
        Duration.ofSeconds(5));
    Jdbi jdbi = Jdbi.create(PG.dataSource());
    JdbiStateStore store = JdbiStateStore.create(jdbi).migrate();
    List<Process> consoles = new ArrayList<>();
    try (PlaybackBucketServer server = PlaybackBucket.start();
        S3Client s3 = S3ProxyServer.client(server.signedEndpoint(), Duration.ofSeconds(30))) {
      String bucket = server.createBucket("console");
      S3ObjectSink sink = S3ObjectSink.builder().client(s3).bucket(bucket).build();
      LedgerEvents events = new LedgerEvents();
      try (Ledger ledger = Ledger.builder().stateStore(store).objectSink(sink).allowedRoot(root)
          .repackager(FfmpegRepackager.builder().ffmpeg(Cli.FFMPEG).ffprobe(Cli.FFPROBE).build(),
              root.resolve("playback"))
          .sweepInterval(Duration.ofMillis(100)).listener(events).build()) {
        ledger.start();
        for (int i = 0; i < chunks.size(); i++) {
          ledger.register(ItemId.original(PLAYED, "360p", i), chunks.get(i));
        }
        ledger.endBroadcast(PLAYED);
        for (int i = 0; i < 60; i++) { // outside the root: REJECTED at once, never uploaded
          ledger.register(ItemId.original(REJECTS, "720p", i), Files.writeString(dir.resolve(i + ".ts"), "x"));
        }
        events.awaitUntil("the broadcast is complete and its playlists published",
            () -> ledger.broadcastStatus(PLAYED).phase() == BroadcastStatus.Phase.COMPLETE
                && store.playlists().find(PLAYED).stream().allMatch(p -> p.published() > 0 && p.publishedFinal()),
            Duration.ofSeconds(150));
      }
      long hostileRow = store.find(ItemId.original(REJECTS, "720p", 7)).orElseThrow().rowId();
      jdbi.useHandle(h -> h.createUpdate("UPDATE segment_ledger_item SET last_error = :e WHERE id = :id")
          .bind("e", HOSTILE).bind("id", hostileRow).execute());

      Map<String, String> env = new HashMap<>(Map.of("SEGMENT_LEDGER_CONSOLE_TOKEN", "console-test-token-0123456789",
          "AWS_ACCESS_KEY_ID", S3ProxyServer.ACCESS_KEY, "AWS_SECRET_ACCESS_KEY", S3ProxyServer.SECRET_KEY));
      if (PG.password() != null) {
        env.put("SEGMENT_LEDGER_JDBC_PASSWORD", PG.password());
      }
      List<String> common = new ArrayList<>(List.of("--port", "0", "--jdbc-url", PG.jdbcUrl(),
          "--media-base-url", server.anonymousEndpoint() + "/" + bucket + "/", "--hls-js", tools.hlsJs().toString(),
          "--bucket", bucket, "--s3-endpoint", server.signedEndpoint().toString()));
      if (PG.user() != null) {
        common.addAll(List.of("--jdbc-user", PG.user()));
      }
      List<String> enabledArgs = new ArrayList<>(common);
      enabledArgs.add("--reopen-enabled");
      String enabled = startConsole(dir.resolve("enabled"), enabledArgs, env, consoles);
      String disabled = startConsole(dir.resolve("disabled"), common, env, consoles);

      ChromeDriverService service = new ChromeDriverService.Builder()
          .usingDriverExecutable(tools.chromedriver().toFile()).usingAnyFreePort().build();
      ChromeOptions options = new ChromeOptions();
      options.setBinary(tools.chromium().toFile());
      options.addArguments(BrowserPlayback.CHROMIUM_FLAGS);
      options.addArguments("--window-size=1280,1000", "--user-data-dir=" + dir.resolve("profile"));
      Files.createDirectories(ARTIFACTS);
      ChromeDriver driver = new ChromeDriver(service, options);
      try {
        driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
        driver.get(enabled); // ?token=...: becomes the cookie, then the overview
        assertFalse(driver.getCurrentUrl().contains("token="), "the token leaves the address bar");
        assertTrue(driver.findElement(By.id("backlog")).getText().contains("ORIGINAL"));
        shot(driver, "overview.png");

        String base = enabled.substring(0, enabled.indexOf("?"));
        driver.get(base + "rows?broadcast=" + REJECTS + "&limit=25");
        List<String> first = rowIds(driver);
        assertEquals(25, first.size());
        follow(driver, By.id("next"), By.id("rows"));
        List<String> second = rowIds(driver);
        assertEquals(25, second.size());
        assertTrue(second.stream().noneMatch(first::contains), "the next page starts after the last row");
        follow(driver, By.id("next"), By.id("rows"));
        assertEquals(10, rowIds(driver).size(), "60 rows: 25 + 25 + 10");

        driver.get(base + "rows?broadcast=" + REJECTS + "&limit=100");
        WebElement hostile = driver.findElement(By.cssSelector("tr[data-row='" + hostileRow + "'] td.error"));
        assertEquals("<img src=x onerror=\"document.title='owned'\">\\u202egnp.exe", hostile.getText());
        assertTrue(driver.findElements(By.cssSelector("td.error img")).isEmpty(), "no element from a row's text");
        assertFalse(driver.getTitle().contains("owned"), "no script from a row's text ran");
        shot(driver, "rows.png");

        follow(driver, By.cssSelector("tr[data-row='" + hostileRow + "'] a.reopen"), By.id("confirm"));
        assertTrue(driver.findElement(By.tagName("h1")).getText().contains("Re-open row " + hostileRow + "?"));
        assertEquals(ItemState.REJECTED, state(store, hostileRow), "the confirmation page changes nothing");
        assertTrue(follow(driver, By.id("confirm"), By.id("reopened")).getText().contains("PENDING again"));
        assertEquals(ItemState.PENDING, state(store, hostileRow));

        driver.get(base + "broadcast?id=" + PLAYED);
        assertEquals("COMPLETE", driver.findElement(By.id("phase")).getText());
        assertTrue(driver.findElement(By.id("playlists")).getText().contains(PLAYED + "/master.m3u8"));
        double position = awaitPlayback(driver, 10.0, Duration.ofSeconds(60));
        shot(driver, "console.png");
        assertTrue(position > 10.0, "the player got to " + position + " s: " + player(driver));

        follow(driver, By.linkText("Reconcile with the bucket"), By.id("reconcile"));
        follow(driver, By.id("reconcile"), By.id("summary"));
        assertTrue(driver.findElement(By.id("summary")).getText().contains("0 differences; the pass is complete"),
            driver.findElement(By.id("summary")).getText());

        String disabledBase = disabled.substring(0, disabled.indexOf("?"));
        driver.get(disabled);
        driver.get(disabledBase + "rows?broadcast=" + REJECTS + "&limit=100");
        assertTrue(driver.findElements(By.cssSelector("a.reopen")).isEmpty(), "no re-open offered when disabled");
        long other = store.find(ItemId.original(REJECTS, "720p", 8)).orElseThrow().rowId();
        driver.get(disabledBase + "reopen?row=" + other);
        assertEquals("Re-open is disabled", driver.findElement(By.tagName("h1")).getText());
        assertEquals(ItemState.REJECTED, state(store, other));
      } finally {
        driver.quit();
        service.stop();
      }
    } finally {
      for (Process console : consoles) {
        console.destroy();
        console.waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  /** Starts {@code java -jar segment-ledger-cli-*-all.jar console ...}; returns the URL it prints. */
  private static String startConsole(Path dir, List<String> args, Map<String, String> env, List<Process> started)
      throws Exception {
    Files.createDirectories(dir);
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-jar", dev.segmentledger.it.RunnableCli.jar().toString(), "console"));
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().putAll(env);
    builder.redirectOutput(dir.resolve("stdout").toFile()).redirectError(dir.resolve("stderr").toFile());
    Process process = builder.start();
    started.add(process);
    Pattern url = Pattern.compile("segment-ledger console on (http://\\S+/) ");
    String token = env.get("SEGMENT_LEDGER_CONSOLE_TOKEN");
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < deadline) {
      String stdout = Files.readString(dir.resolve("stdout"), StandardCharsets.UTF_8);
      Matcher m = url.matcher(stdout);
      if (m.find()) {
        assertFalse(stdout.contains(token), "a token from the environment is never printed: " + stdout);
        return m.group(1) + "?token=" + token;
      }
      assertTrue(process.isAlive(), "the console exited: " + Files.readString(dir.resolve("stderr")));
      Thread.sleep(100);
    }
    throw new AssertionError("the console printed no URL: " + Files.readString(dir.resolve("stderr")));
  }

  /**
   * Clicks what {@code click} finds and waits for the page it leads to: a click returns once the
   * event is dispatched, not once the next page is loaded, so the old page must go stale and the
   * next one hold {@code expected} before anything is read from it.
   */
  private static WebElement follow(ChromeDriver driver, By click, By expected) {
    WebElement clicked = driver.findElement(click);
    clicked.click();
    WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(30));
    wait.until(d -> isStale(clicked));
    return wait.until(ExpectedConditions.presenceOfElementLocated(expected));
  }

  /**
   * {@link ExpectedConditions#stalenessOf}, and the other way Chromium reports an element of the page
   * just left while it is being torn down: "Node with given id does not belong to the document".
   */
  private static boolean isStale(WebElement element) {
    try {
      element.isEnabled();
      return false;
    } catch (StaleElementReferenceException e) {
      return true;
    } catch (WebDriverException e) {
      if (String.valueOf(e.getMessage()).contains("does not belong to the document")) {
        return true;
      }
      throw e;
    }
  }

  private static List<String> rowIds(ChromeDriver driver) {
    return driver.findElements(By.cssSelector("#rows tbody tr")).stream().map(r -> r.getAttribute("data-row"))
        .toList();
  }

  private static ItemState state(JdbiStateStore store, long rowId) {
    return store.findByRowId(rowId).map(LedgerItem::state).orElseThrow();
  }

  private static Object player(ChromeDriver driver) {
    return ((JavascriptExecutor) driver).executeScript("return window.__console ? window.__console.player : null;");
  }

  private static double awaitPlayback(ChromeDriver driver, double past, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    double position = 0;
    while (System.nanoTime() < deadline) {
      Object state = player(driver);
      if (state instanceof Map<?, ?> map) {
        position = map.get("position") instanceof Number n ? n.doubleValue() : 0;
        assertTrue(!(map.get("fatal") instanceof List<?> fatal) || fatal.isEmpty(), "player failed: " + map);
        if (position > past) {
          return position;
        }
      }
      Thread.sleep(250);
    }
    return position;
  }

  private static void shot(ChromeDriver driver, String name) throws Exception {
    Files.write(ARTIFACTS.resolve(name), driver.getScreenshotAs(OutputType.BYTES));
  }
}
