package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ClosedFile;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.Printable;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.Registration;
import dev.segmentledger.core.RootReplacedException;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.UnfinishedUpload;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.UploadContent;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The file boundary against an adversary (docs/design.md, principle 7), one row per hostile input.
 *
 * <p>Each row arranges a file, registers it, optionally tampers with it after registration or
 * during the PUT, and runs the manual ledger until it settles. It then checks the named reason,
 * the row's final state, whether registration already refused it, and the PUT attempts the
 * recording sink saw for the item's key: zero for every file refused at the boundary. The only
 * rejected rows with a PUT are the two whose file changes <em>during</em> the PUT, after every
 * check has passed; they prove the row is still not confirmed. Retried reasons are run once more
 * after their backoff, to show they stay retryable and still never reach the sink; terminal
 * ones, to show nothing touches them again.
 */
class HostileFilesTest {
  private static final ItemId ID = ItemId.original("b1", "720p", 7);
  private static final String CONTENT = "segment bytes"; // 13 bytes

  @TempDir Path temp;
  private LedgerFixture f;
  private Path outside;
  private final TamperingSink sink = new TamperingSink();

  @BeforeEach
  void setUp() throws IOException {
    f = new LedgerFixture(temp);
    outside = Files.createDirectories(temp.resolve("outside"));
    Files.writeString(outside.resolve("secret.ts"), CONTENT); // same size as a good segment
  }

  /** What a row expects: the reason ({@code null}: uploaded), final state, refused at registration, PUTs. */
  record Expect(Reason reason, ItemState state, boolean refusedAtRegistration, int puts) {
    static Expect uploaded() {
      return new Expect(null, ItemState.CONFIRMED, false, 1);
    }

    static Expect refusedAtRegistration(Reason reason) {
      return new Expect(reason, ItemState.REJECTED, true, 0);
    }

    static Expect refusedAtUpload(Reason reason) {
      return new Expect(reason, reason.isTerminal() ? ItemState.REJECTED : ItemState.PENDING, false, 0);
    }

    static Expect notConfirmedAfterPut(Reason reason) {
      return new Expect(reason, ItemState.REJECTED, false, 1);
    }
  }

  interface Arrange {
    Path file(HostileFilesTest t) throws Exception;
  }

  interface Tamper {
    void apply(HostileFilesTest t, Path registered) throws Exception;
  }

  static Stream<Arguments> hostileFiles() {
    return Stream.of(
        // Escapes by path.
        row("'..' escape from the root", t -> t.f.root.resolve("../outside/secret.ts"),
            Expect.refusedAtRegistration(Reason.OUTSIDE_ROOT)),
        row("relative '..' escape through a subdirectory", t -> {
          Files.createDirectories(t.f.root.resolve("b1"));
          return Path.of("b1/../../outside/secret.ts");
        }, Expect.refusedAtRegistration(Reason.OUTSIDE_ROOT)),
        row("absolute path elsewhere", t -> t.outside.resolve("secret.ts"),
            Expect.refusedAtRegistration(Reason.OUTSIDE_ROOT)),
        row("absolute system file /etc/passwd", t -> Path.of("/etc/passwd"),
            Expect.refusedAtRegistration(Reason.OUTSIDE_ROOT)),
        row("sibling directory whose name starts with the root's name", t -> {
          Path sibling = Files.createDirectories(t.temp.resolve("recordings-evil"));
          return Files.writeString(sibling.resolve("a.ts"), CONTENT);
        }, Expect.refusedAtRegistration(Reason.OUTSIDE_ROOT)),
        row("relative path into the prefix-sharing sibling", t -> {
          Files.writeString(Files.createDirectories(t.temp.resolve("recordings2")).resolve("a.ts"), CONTENT);
          return Path.of("../recordings2/a.ts");
        }, Expect.refusedAtRegistration(Reason.OUTSIDE_ROOT)),
        // Escapes by symlink.
        row("symlink to a file outside", t -> Files.createSymbolicLink(t.f.root.resolve("link.ts"),
            t.outside.resolve("secret.ts")), Expect.refusedAtRegistration(Reason.OUTSIDE_ROOT)),
        row("symlinked directory leading outside", t -> {
          Files.createSymbolicLink(t.f.root.resolve("b1"), t.outside);
          return t.f.root.resolve("b1/secret.ts");
        }, Expect.refusedAtRegistration(Reason.OUTSIDE_ROOT)),
        row("symlink chain ending outside", t -> {
          Files.createSymbolicLink(t.f.root.resolve("c"), t.outside.resolve("secret.ts"));
          Files.createSymbolicLink(t.f.root.resolve("b"), Path.of("c"));
          return Files.createSymbolicLink(t.f.root.resolve("a.ts"), Path.of("b"));
        }, Expect.refusedAtRegistration(Reason.OUTSIDE_ROOT)),
        row("symlink to a device outside (/dev/zero)", t -> Files.createSymbolicLink(t.f.root.resolve("zero.ts"),
            Path.of("/dev/zero")), Expect.refusedAtRegistration(Reason.OUTSIDE_ROOT)),
        row("symlink loop", t -> {
          Files.createSymbolicLink(t.f.root.resolve("a.ts"), Path.of("b.ts"));
          return Files.createSymbolicLink(t.f.root.resolve("b.ts"), Path.of("a.ts"));
        }, Expect.refusedAtRegistration(Reason.NOT_REGULAR_FILE)),
        // Not a regular file.
        row("directory", t -> Files.createDirectories(t.f.root.resolve("dir.ts")),
            Expect.refusedAtRegistration(Reason.NOT_REGULAR_FILE)),
        row("FIFO (never opened: opening would block)", t -> mkfifo(t.f.root.resolve("pipe.ts")),
            Expect.refusedAtRegistration(Reason.NOT_REGULAR_FILE)),
        row("unix domain socket", t -> socket(t.f.root.resolve("socket.ts")),
            Expect.refusedAtRegistration(Reason.NOT_REGULAR_FILE)),
        // Missing, unreadable, empty.
        row("missing file", t -> t.f.root.resolve("never-written.ts"),
            Expect.refusedAtRegistration(Reason.MISSING_FILE)),
        row("zero-length file", t -> Files.createFile(t.f.root.resolve("empty.ts")),
            Expect.refusedAtRegistration(Reason.EMPTY_FILE)),
        row("unreachable at registration: a regular file used as a directory", t -> {
          Files.writeString(t.f.root.resolve("b1"), "x");
          return t.f.root.resolve("b1/7.ts");
        }, Expect.refusedAtRegistration(Reason.UNREADABLE)),
        // The root itself replaced while the ledger runs.
        // (Refused at registration it is an exception, not a row: see aRegistrationRefusedForAReplacedRoot...)
        tampered("the root replaced by a symlink to outside after registration (retried)",
            HostileFilesTest::segment, (t, file) -> t.replaceRootWithSymlinkOutside(),
            Expect.refusedAtUpload(Reason.ROOT_REPLACED)),
        // Changed after registration, before the upload (TOCTOU).
        tampered("symlink to outside swapped in after registration", HostileFilesTest::segment,
            (t, file) -> replaceWithSymlink(file, t.outside.resolve("secret.ts")),
            Expect.refusedAtUpload(Reason.OUTSIDE_ROOT)),
        tampered("directory swapped for a symlink to outside after registration", t ->
                Files.writeString(Files.createDirectories(t.f.root.resolve("b1")).resolve("7.ts"), CONTENT),
            (t, file) -> {
              Files.move(file.getParent(), t.f.root.resolve("moved-away"));
              Files.copy(t.outside.resolve("secret.ts"), t.outside.resolve("7.ts"));
              Files.createSymbolicLink(file.getParent(), t.outside);
            }, Expect.refusedAtUpload(Reason.OUTSIDE_ROOT)),
        tampered("FIFO swapped in after registration", HostileFilesTest::segment,
            (t, file) -> {
              Files.delete(file);
              mkfifo(file);
            }, Expect.refusedAtUpload(Reason.NOT_REGULAR_FILE)),
        tampered("unreadable at upload: its directory replaced by a regular file (retried)",
            HostileFilesTest::segment, (t, file) -> {
              Files.move(file.getParent(), t.f.root.resolve("moved-away"));
              Files.writeString(file.getParent(), "not a directory");
            }, Expect.refusedAtUpload(Reason.UNREADABLE)),
        tampered("deleted after registration", HostileFilesTest::segment, (t, file) -> Files.delete(file),
            Expect.refusedAtUpload(Reason.MISSING_FILE)),
        tampered("still being written: grew after registration", HostileFilesTest::segment,
            (t, file) -> Files.writeString(file, " and more", StandardOpenOption.APPEND),
            Expect.refusedAtUpload(Reason.FILE_GREW)),
        tampered("truncated after registration", HostileFilesTest::segment,
            (t, file) -> truncate(file, 4), Expect.refusedAtUpload(Reason.FILE_SHRANK)),
        tampered("replaced by a shorter file after registration", HostileFilesTest::segment,
            (t, file) -> Files.move(Files.writeString(t.f.root.resolve("new.ts"), "short"), file,
                StandardCopyOption.REPLACE_EXISTING), Expect.refusedAtUpload(Reason.FILE_SHRANK)),
        // Changed during the PUT, after every check passed.
        duringPut("grew during the upload", (t, file) -> Files.writeString(file, "++", StandardOpenOption.APPEND),
            Expect.notConfirmedAfterPut(Reason.FILE_GREW)),
        duringPut("truncated during the upload", (t, file) -> truncate(file, 3),
            Expect.notConfirmedAfterPut(Reason.FILE_SHRANK)),
        // Odd but legal: uploaded.
        row("legal: a relative path is taken from the root, not the working directory", t -> {
          t.write("b1/7.ts");
          return Path.of("b1/7.ts");
        }, Expect.uploaded()),
        // The documented limit (README, LedgerBuilder.allowedRoot): a hard link is a file of the root.
        row("limit: a hard link inside the root to a file outside is uploaded",
            t -> Files.createLink(t.f.root.resolve("hardlink.ts"), t.outside.resolve("secret.ts")), Expect.uploaded()),
        row("legal: spaces in the name", t -> t.write("my recording 7 .ts"), Expect.uploaded()),
        row("legal: Unicode name", t -> t.write("émission-直播-🎥.ts"), Expect.uploaded()),
        row("legal: newline and tab in the name", t -> t.write("line\nbreak\t.ts"), Expect.uploaded()),
        row("legal: name starting with '..'", t -> t.write("..7.ts"), Expect.uploaded()),
        row("legal: '..' that stays inside the root", t -> {
          t.write("b1/7.ts");
          Files.createDirectories(t.f.root.resolve("b2"));
          return Path.of("b2/../b1/7.ts");
        }, Expect.uploaded()),
        row("legal: symlink chain inside the root", t -> {
          t.write("data/7.ts");
          Files.createSymbolicLink(t.f.root.resolve("b"), Path.of("data/7.ts"));
          return Files.createSymbolicLink(t.f.root.resolve("a.ts"), Path.of("b"));
        }, Expect.uploaded()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("hostileFiles")
  void aHostileFileHasANamedOutcomeAndIsNeverPut(String name, Arrange arrange, Tamper afterRegistration,
      Tamper duringPut, Expect expect) throws Exception {
    ManualLedger ledger = f.builder().objectSink(sink).buildManual();
    Path file = arrange.file(this);
    Registration registration = ledger.register(ID, file);
    assertEquals(expect.refusedAtRegistration(), registration.rejected(), "refused at registration");
    if (afterRegistration != null) {
      afterRegistration.apply(this, file);
    }
    if (duringPut != null) {
      sink.beforeRead = () -> duringPut.apply(this, f.root.resolve(file));
    }

    LedgerFixture.settle(ledger);
    LedgerItem row = ledger.find(ID).orElseThrow(() -> new AssertionError("the row was lost"));
    assertEquals(expect.state(), row.state(), "final state");
    assertEquals(expect.reason(), row.reason(), "reason: " + row.lastError());
    assertEquals(expect.puts(), f.sink.attempts(ID.objectKey()).size(), "PUT attempts");
    assertEquals(expect.puts(), f.sink.putCount(), "no PUT to any other key");

    if (expect.reason() == null) {
      assertArrayEquals(Files.readAllBytes(f.root.resolve(file)), f.sink.bytes(ID.objectKey()).orElseThrow());
      return;
    }
    assertFalse(row.lastError() == null || row.lastError().isBlank(), "the reason has a detail");
    assertPrintable(row.lastError());
    if (!expect.refusedAtRegistration()) {
      // At registration every refusal is final (there is no size to retry against); after it,
      // Reason.isTerminal() alone decides.
      assertEquals(expect.reason().isTerminal(), row.state() == ItemState.REJECTED, "Reason.isTerminal() decides");
    }

    // After the backoff: a terminal row is left alone; a retried one is retried and still never PUT.
    sink.beforeRead = null;
    f.clock.advance(Duration.ofSeconds(1));
    LedgerFixture.settle(ledger);
    LedgerItem later = ledger.find(ID).orElseThrow();
    assertEquals(expect.state(), later.state());
    assertEquals(expect.reason(), later.reason());
    assertEquals(expect.puts(), f.sink.putCount(), "no further PUT");
    assertEquals(later.state() == ItemState.REJECTED ? row.attempts() : row.attempts() + 1, later.attempts(),
        "attempts after the backoff");
  }

  static Stream<Arguments> hostileIdentifiers() {
    return Stream.of(
        id("broadcast '..'", () -> ItemId.original("..", "720p", 0), "broadcastId"),
        id("broadcast '../etc'", () -> ItemId.original("../etc", "720p", 0), "broadcastId"),
        id("broadcast with a slash", () -> ItemId.original("b1/other", "720p", 0), "broadcastId"),
        id("broadcast absolute", () -> ItemId.original("/b1", "720p", 0), "broadcastId"),
        id("broadcast with a newline", () -> ItemId.original("b1\nb2", "720p", 0), "broadcastId"),
        id("broadcast too long (65)", () -> ItemId.original("b".repeat(65), "720p", 0), "broadcastId"),
        id("broadcast empty", () -> ItemId.original("", "720p", 0), "broadcastId"),
        id("rendition '.'", () -> ItemId.original("b1", ".", 0), "rendition"),
        id("rendition with NUL", () -> ItemId.original("b1", "720p\u0000", 0), "rendition"),
        id("rendition with backslash", () -> ItemId.original("b1", "..\\..", 0), "rendition"),
        id("rendition with Cyrillic look-alike", () -> ItemId.original("b1", "720\u0440", 0), "rendition"),
        id("rendition with a space", () -> ItemId.original("b1", "720 p", 0), "rendition"),
        id("broadcast with a line separator", () -> ItemId.original("b1\u2028b2", "720p", 0), "broadcastId"),
        id("broadcast with NEL", () -> ItemId.original("b1\u0085b2", "720p", 0), "broadcastId"),
        id("rendition with a bidi override", () -> ItemId.original("b1", "p027\u202e", 0), "rendition"));
  }

  @ParameterizedTest(name = "hostile identifier: {0}")
  @MethodSource("hostileIdentifiers")
  void aHostileIdentifierIsRefusedBeforeAnyRowIsWritten(String name, Supplier<ItemId> hostile, String field)
      throws IOException {
    ManualLedger ledger = f.builder().objectSink(sink).buildManual();
    Path file = segment(this);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ledger.register(hostile.get(), file));
    assertTrue(e.getMessage().startsWith(field + " "), e.getMessage());
    assertPrintable(e.getMessage());
    LedgerFixture.settle(ledger);
    for (Axis axis : Axis.values()) {
      for (ItemState state : ItemState.values()) {
        assertEquals(0, f.store.count(axis, state), "no row written");
      }
    }
    assertEquals(0, f.sink.putCount());
  }

  /**
   * A failure detail carries outside input (here a file name in a repackager's message): the
   * row's last error and the listener's detail show it escaped, by the same rule as file names.
   */
  @Test
  void outsideInputInAFailureDetailIsEscaped() {
    ManualLedger ledger = f.repackagingBuilder().buildManual();
    f.repackager.failInit(true);
    Path original = f.record("b1/720p/7\u2028INFO forged \u202e\u0085.ts", CONTENT);
    assertFalse(ledger.register(ID, original).rejected());
    LedgerFixture.settle(ledger);
    LedgerItem init = ledger.find(ItemId.init("b1", "720p")).orElseThrow();
    assertEquals(Reason.REPACKAGE_FAILED, init.reason());
    assertTrue(init.lastError().contains("7\\u2028INFO forged \\u202e\\u0085.ts"), init.lastError());
    assertPrintable(init.lastError());
  }

  /**
   * The root renamed away and a symlink to outside put in its place: a registration is refused with
   * ROOT_REPLACED and writes no row (the reason is the root's, not the file's), and the same
   * registration succeeds and is uploaded once the root is back at its path.
   */
  @Test
  void aRegistrationRefusedForAReplacedRootWritesNoRowAndSucceedsOnceTheRootIsBack() throws Exception {
    ManualLedger ledger = f.builder().objectSink(sink).buildManual();
    Path file = segment(this);
    replaceRootWithSymlinkOutside();
    RootReplacedException refused = assertThrows(RootReplacedException.class, () -> ledger.register(ID, file));
    assertEquals(Reason.ROOT_REPLACED, refused.reason(), refused.getMessage());
    assertPrintable(refused.getMessage());
    assertTrue(ledger.find(ID).isEmpty(), "no row written");

    Files.delete(f.root);
    Files.move(temp.resolve("recordings-moved"), f.root); // the held directory is back
    assertFalse(ledger.register(ID, file).rejected(), "the same registration, once the root is back");
    LedgerFixture.settle(ledger);
    assertEquals(ItemState.CONFIRMED, ledger.find(ID).orElseThrow().state());
    assertArrayEquals(CONTENT.getBytes(StandardCharsets.UTF_8), f.sink.bytes(ID.objectKey()).orElseThrow());
  }

  /**
   * The batch path: a batch registered while the root is a symlink is refused as a whole, no row of
   * it written; once a real directory is at the root's path (re-opened), the same batch succeeds.
   */
  @Test
  void aBatchRefusedForAReplacedRootWritesNoRowAndSucceedsOnceTheRootIsReopened() throws Exception {
    ManualLedger ledger = f.builder().objectSink(sink).buildManual();
    replaceRootWithSymlinkOutside();
    List<ClosedFile> batch = List.of(new ClosedFile(ItemId.original("b1", "720p", 1), Path.of("b1/720p/1.ts")),
        new ClosedFile(ItemId.original("b1", "720p", 2), Path.of("b1/720p/2.ts")));
    RootReplacedException refused = assertThrows(RootReplacedException.class, () -> ledger.registerAll(batch));
    assertEquals(Reason.ROOT_REPLACED, refused.reason(), refused.getMessage());
    for (ClosedFile file : batch) {
      assertTrue(ledger.find(file.id()).isEmpty(), "no row written: " + file.id());
    }

    Files.delete(f.root);
    Files.createDirectories(f.root); // a re-created root, re-opened
    batch.forEach(file -> f.record(file.file().toString(), "bytes of " + file.id()));
    ledger.registerAll(batch).forEach(registration -> assertFalse(registration.rejected()));
    LedgerFixture.settle(ledger);
    for (ClosedFile file : batch) {
      assertEquals(ItemState.CONFIRMED, ledger.find(file.id()).orElseThrow().state(), file.id().toString());
    }
  }

  /**
   * The root re-created at its path while the ledger runs (renamed away and a new directory made,
   * as after a remount): the ledger re-opens it, a file only in the new tree is uploaded, and a file
   * whose name is also in the old tree is uploaded with the new tree's bytes, never judged against
   * the old tree.
   */
  @Test
  void aRecreatedRootIsReopenedAndNewFilesUploadFromIt() throws Exception {
    List<String> reopenings = new java.util.concurrent.CopyOnWriteArrayList<>();
    ManualLedger ledger = f.builder().objectSink(sink).listener(new LedgerListener() {
      @Override
      public void onAllowedRootReopened(Path root, String change) {
        reopenings.add(change);
      }
    }).buildManual();
    ItemId before = ItemId.original("b1", "720p", 1);
    assertFalse(ledger.register(before, f.record("b1/720p/1.ts", "uploaded before")).rejected());
    LedgerFixture.settle(ledger);
    assertEquals(ItemState.CONFIRMED, ledger.find(before).orElseThrow().state());
    f.record("b1/720p/2.ts", "old tree");
    Files.move(f.root, temp.resolve("recordings-old"));
    Files.createDirectories(f.root);
    Map<ItemId, Path> files = new LinkedHashMap<>();
    files.put(ItemId.original("b1", "720p", 2), f.record("b1/720p/2.ts", "new tree"));
    files.put(ItemId.original("b1", "720p", 3), f.record("b1/720p/3.ts", "only in the new tree"));
    files.forEach((id, file) -> assertFalse(ledger.register(id, file).rejected(), id.toString()));
    LedgerFixture.settle(ledger);
    for (Map.Entry<ItemId, Path> entry : files.entrySet()) {
      LedgerItem row = ledger.find(entry.getKey()).orElseThrow();
      assertEquals(ItemState.CONFIRMED, row.state(), entry.getKey() + ": " + row.reason() + " " + row.lastError());
      assertArrayEquals(Files.readAllBytes(entry.getValue()), f.sink.bytes(entry.getKey().objectKey()).orElseThrow(),
          "the new tree's bytes");
    }
    assertEquals(1, reopenings.size(), "the root re-opened once, and reported: " + reopenings);
  }

  /**
   * A started ledger with one worker meets a queue of hostile rows mixed with good ones: every
   * row reaches its outcome (awaited through listener events), the good ones are confirmed, the
   * bad ones are never PUT, and the same worker then still uploads a new registration.
   */
  @Test
  void aWorkerKeepsGoingPastHostileItems() throws Exception {
    List<ItemId> good = new ArrayList<>();
    Map<ItemId, Reason> bad = new LinkedHashMap<>();
    for (int i = 0; i < 12; i++) {
      ItemId id = ItemId.original("b1", "720p", i);
      Path file = write(id.sequence() + ".ts");
      f.store.register(NewItem.pending(id, file.toRealPath().toString(), CONTENT.length(), f.clock.instant()));
      switch (i % 4) {
        case 0 -> good.add(id);
        case 1 -> {
          mkfifoOver(file); // would block the worker forever if it were opened
          bad.put(id, Reason.NOT_REGULAR_FILE);
        }
        case 2 -> {
          replaceWithSymlink(file, outside.resolve("secret.ts"));
          bad.put(id, Reason.OUTSIDE_ROOT);
        }
        default -> {
          truncate(file, 1);
          bad.put(id, Reason.FILE_SHRANK);
        }
      }
    }
    Outcomes outcomes = new Outcomes();
    try (Ledger ledger = f.builder().objectSink(sink).workers(1).sweepInterval(Duration.ofMillis(20))
        .listener(outcomes).build()) {
      CountDownLatch all = outcomes.expect(good.size() + bad.size());
      ledger.start();
      assertTrue(all.await(30, TimeUnit.SECONDS), "every row reached an outcome");

      for (ItemId id : good) {
        assertEquals(ItemState.CONFIRMED, ledger.find(id).orElseThrow().state(), id.toString());
      }
      bad.forEach((id, reason) -> {
        LedgerItem row = ledger.find(id).orElseThrow();
        assertEquals(ItemState.REJECTED, row.state(), id.toString());
        assertEquals(reason, row.reason(), id.toString());
        assertEquals(0, f.sink.attempts(id.objectKey()).size(), "never PUT: " + id);
      });

      ItemId after = ItemId.original("b1", "720p", 100);
      CountDownLatch confirmed = outcomes.expectConfirmed(after);
      ledger.register(after, write("100.ts"));
      assertTrue(confirmed.await(30, TimeUnit.SECONDS), "the worker survived and took new work");
      assertEquals(good.size() + 1, f.sink.putCount(), "only good files were PUT");
    }
  }

  // --- row builders ---------------------------------------------------------------------------

  private static Arguments row(String name, Arrange arrange, Expect expect) {
    return Arguments.of(name, arrange, null, null, expect);
  }

  private static Arguments tampered(String name, Arrange arrange, Tamper afterRegistration, Expect expect) {
    return Arguments.of(name, arrange, afterRegistration, null, expect);
  }

  private static Arguments duringPut(String name, Tamper duringPut, Expect expect) {
    return Arguments.of(name, (Arrange) HostileFilesTest::segment, null, duringPut, expect);
  }

  private static Arguments id(String name, Supplier<ItemId> hostile, String field) {
    return Arguments.of(name, hostile, field);
  }

  // --- file helpers ---------------------------------------------------------------------------

  private static Path segment(HostileFilesTest t) throws IOException {
    return t.write("b1/720p/7.ts");
  }

  private Path write(String name) throws IOException {
    Path file = f.root.resolve(name);
    Files.createDirectories(file.getParent());
    return Files.writeString(file, CONTENT, StandardCharsets.UTF_8);
  }

  /**
   * Renames the root away and puts a symlink to {@link #outside} at its path; outside holds a file
   * of the segment's size at the segment's place, so only the root check can tell.
   */
  private void replaceRootWithSymlinkOutside() throws IOException {
    Files.writeString(Files.createDirectories(outside.resolve("b1/720p")).resolve("7.ts"), CONTENT);
    Files.move(f.root, temp.resolve("recordings-moved"));
    Files.createSymbolicLink(f.root, outside);
  }

  private static Path mkfifo(Path path) throws IOException, InterruptedException {
    Process process = new ProcessBuilder("mkfifo", path.toString()).inheritIO().start();
    assertEquals(0, process.waitFor(), "mkfifo " + path);
    return path;
  }

  /** No code point in {@code text} that {@link Printable} would escape. */
  private static void assertPrintable(String text) {
    text.codePoints().forEach(cp -> assertTrue(Printable.isSafe(cp),
        () -> String.format("raw U+%04X in: %s", cp, Printable.escape(text))));
  }

  private static void mkfifoOver(Path file) throws IOException, InterruptedException {
    Files.delete(file);
    mkfifo(file);
  }

  private static Path socket(Path path) throws IOException {
    try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      server.bind(UnixDomainSocketAddress.of(path)); // the socket file stays after close
    }
    return path;
  }

  private static void replaceWithSymlink(Path file, Path target) throws IOException {
    Files.delete(file);
    Files.createSymbolicLink(file, target);
  }

  private static void truncate(Path file, long size) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.truncate(size);
    }
  }

  // --- sink and listener ----------------------------------------------------------------------

  /** Delegates to the recording fake; can change the file just before the fake reads it. */
  private final class TamperingSink implements ObjectSink {
    volatile ThrowingRunnable beforeRead;

    @Override
    public StoredObjectInfo put(String key, UploadContent content, boolean mayExist) {
      ThrowingRunnable action = beforeRead;
      if (action != null) {
        try {
          action.run();
        } catch (Exception e) {
          throw new IllegalStateException("tampering failed", e);
        }
      }
      return f.sink.put(key, content, mayExist);
    }

    @Override
    public Optional<StoredObjectInfo> head(String key) {
      return f.sink.head(key);
    }

    @Override
    public List<StoredObjectInfo> list(String prefix) {
      return f.sink.list(prefix);
    }

    @Override
    public boolean supportsUnfinishedUploads() {
      return f.sink.supportsUnfinishedUploads();
    }

    @Override
    public List<UnfinishedUpload> listUnfinishedUploads(String prefix) {
      return f.sink.listUnfinishedUploads(prefix);
    }

    @Override
    public boolean abortUnfinishedUpload(UnfinishedUpload upload) {
      return f.sink.abortUnfinishedUpload(upload);
    }
  }

  interface ThrowingRunnable {
    void run() throws Exception;
  }

  /** Counts outcomes (confirmed or failed) and signals latches; thread-safe. */
  private static final class Outcomes implements LedgerListener {
    private volatile CountDownLatch any = new CountDownLatch(0);
    private final Map<ItemId, CountDownLatch> confirmed = new ConcurrentHashMap<>();

    CountDownLatch expect(int outcomes) {
      any = new CountDownLatch(outcomes);
      return any;
    }

    CountDownLatch expectConfirmed(ItemId id) {
      return confirmed.computeIfAbsent(id, k -> new CountDownLatch(1));
    }

    @Override
    public void onConfirmed(LedgerItem item) {
      any.countDown();
      Optional.ofNullable(confirmed.get(item.id())).ifPresent(CountDownLatch::countDown);
    }

    @Override
    public void onFailed(LedgerItem item, Reason reason, String detail, boolean terminal) {
      any.countDown();
    }
  }
}
