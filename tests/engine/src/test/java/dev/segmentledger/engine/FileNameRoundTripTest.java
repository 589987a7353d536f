package dev.segmentledger.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ClosedFile;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.Registration;
import dev.segmentledger.core.UnsupportedFileNameException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file name must round-trip exactly through the row, which stores it as text. A name holding
 * bytes that are not valid UTF-8 (here 0xFF) decodes to U+FFFD and would read back as another name:
 * before the fix it was registered PENDING, then judged MISSING_FILE, or, if a file of the same
 * size existed under the U+FFFD name, that file was PUT and confirmed. Such a name is now refused
 * at registration with {@link UnsupportedFileNameException}, and nothing is written.
 */
class FileNameRoundTripTest {
  @TempDir Path temp;
  private LedgerFixture f;
  private Path invalid;

  @BeforeEach
  void setUp() throws Exception {
    f = new LedgerFixture(temp);
    Path dir = Files.createDirectories(f.root.resolve("b1"));
    invalid = createWithRawName(dir, "seg-\\377.ts", "recorded bytes");
  }

  @Test
  void aNameThatIsNotValidUtf8IsRefusedAndNothingIsWritten() {
    assertFalse(invalid.equals(invalid.getFileSystem().getPath(invalid.toString())),
        "the file system hands out a name that does not round-trip");
    ManualLedger ledger = f.manual();

    UnsupportedFileNameException refused = assertThrows(UnsupportedFileNameException.class,
        () -> ledger.register(ItemId.original("b1", "720p", 0), invalid));

    assertTrue(refused.getMessage().contains("not valid UTF-8"), refused.getMessage());
    assertTrue(f.store.findByBroadcast("b1").isEmpty(), "no row written");
    LedgerFixture.settle(ledger);
    assertEquals(0, f.sink.putCount());
  }

  @Test
  void aBatchWithOneSuchNameIsRefusedWhole() {
    Path fine = f.record("b1/seg-1.ts", "other bytes");
    ManualLedger ledger = f.manual();

    assertThrows(UnsupportedFileNameException.class, () -> ledger.registerAll(List.of(
        ClosedFile.of(ItemId.original("b1", "720p", 1), fine), ClosedFile.of(ItemId.original("b1", "720p", 0), invalid))));

    assertTrue(f.store.findByBroadcast("b1").isEmpty(), "all or nothing: no row written");
  }

  @Test
  void theFileNamedWithTheReplacementCharacterIsNeverUploadedInItsPlace() throws Exception {
    // Same size as the refused file, named as its decoded name reads: the file the old code PUT.
    Path lookalike = f.root.resolve("b1").resolve("seg-\uFFFD.ts");
    Files.writeString(lookalike, "IMPOSTOR BYTES", StandardCharsets.UTF_8);
    assertEquals(Files.size(invalid), Files.size(lookalike));
    ManualLedger ledger = f.manual();

    assertThrows(UnsupportedFileNameException.class, () -> ledger.register(ItemId.original("b1", "720p", 0), invalid));
    LedgerFixture.settle(ledger);

    assertEquals(0, f.sink.putCount(), "nothing uploaded for the refused name");
    assertTrue(f.store.find(ItemId.original("b1", "720p", 0)).isEmpty());
  }

  @Test
  void aValidUtf8NameWithTheReplacementCharacterRoundTripsAndUploads() throws Exception {
    Path named = f.record("b1/seg-\uFFFD-\u00e9.ts", "real bytes");
    ManualLedger ledger = f.manual();

    Registration registration = ledger.register(ItemId.original("b1", "720p", 2), named);
    LedgerFixture.settle(ledger);

    assertEquals(named.toRealPath().toString(), registration.item().sourcePath());
    assertEquals(ItemState.CONFIRMED, f.store.find(ItemId.original("b1", "720p", 2)).orElseThrow().state());
    assertEquals(1, f.sink.putCount());
  }

  /**
   * Creates a file whose name has raw bytes ({@code printf} escapes such as {@code \377}) with a
   * shell, since Java cannot name such a file, and returns the path the directory listing gives.
   */
  static Path createWithRawName(Path dir, String printfName, String content) throws IOException, InterruptedException {
    Process shell = new ProcessBuilder("sh", "-c", "printf '%s' \"$2\" > \"$1/$(printf '" + printfName + "')\"",
        "sh", dir.toString(), content).inheritIO().start();
    assertEquals(0, shell.waitFor(), "sh created the file");
    try (Stream<Path> listing = Files.list(dir)) {
      return listing.filter(p -> p.toString().contains("\uFFFD")).findFirst().orElseThrow();
    }
  }
}
