package dev.segmentledger.examples.spring;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.Registration;
import dev.segmentledger.core.RootReplacedException;
import dev.segmentledger.core.StoreException;
import dev.segmentledger.spring.SegmentLedgerProperties;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Stands in for the recorder: {@code POST /segments/{broadcast}/{rendition}/{sequence}} with the
 * segment's bytes (read from the request's stream as they came, whatever the content type: {@code
 * curl --data-binary} labels them a form, which a {@code @RequestBody} would rebuild from decoded
 * form parameters and refuse) writes the file below the allowed root (complete before it is visible) and
 * registers it. The ledger uploads it in the background, and again after a crash. A registration
 * the ledger could not take now (the store unavailable, the allowed root replaced) answers 503 with
 * {@code Retry-After}: the file is on disk, and the recorder sends it again.
 */
@RestController
class SegmentController {
  private final Ledger ledger;
  private final Path root;

  SegmentController(Ledger ledger, SegmentLedgerProperties properties) {
    this.ledger = ledger;
    this.root = Path.of(properties.getAllowedRoot());
  }

  @PostMapping("/segments/{broadcast}/{rendition}/{sequence}")
  ResponseEntity<Map<String, Object>> record(@PathVariable String broadcast, @PathVariable String rendition,
      @PathVariable long sequence, InputStream body) throws IOException {
    ItemId id = ItemId.original(broadcast, rendition, sequence);
    Path file = root.resolve(broadcast).resolve(rendition).resolve(sequence + ".ts");
    Files.createDirectories(file.getParent());
    Path partial = Files.createTempFile(file.getParent(), sequence + "-", ".partial");
    Files.copy(body, partial, StandardCopyOption.REPLACE_EXISTING); // the raw bytes, whatever the content type
    Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    Registration registration = ledger.register(id, file);
    return ResponseEntity.accepted().body(Map.of("key", id.objectKey(), "created", registration.created(),
        "state", registration.item().state().name().toLowerCase(java.util.Locale.ROOT)));
  }

  /** The store or the allowed root is not usable now: nothing was registered; the caller retries. */
  @ExceptionHandler({StoreException.class, RootReplacedException.class})
  ResponseEntity<Map<String, Object>> notNow(RuntimeException e) {
    return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).header("Retry-After", "1")
        .body(Map.of("error", e.getClass().getSimpleName(), "retry", true));
  }
}
