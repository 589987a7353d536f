package dev.segmentledger.testkit.contract;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.ConditionalPut;
import dev.segmentledger.core.SinkException;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.UnfinishedUpload;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.UploadContent;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link ObjectSink} must show. Extend it in a test of your sink and implement
 * {@link #newSink()}; each test gets a fresh, empty sink.
 *
 * <p>Checked: put/head/list agree on keys and sizes; overwrite; empty and 1-byte-over-a-MiB
 * objects; listing in key order with strict prefix isolation ({@code b1/} never lists
 * {@code b10/}); {@code mayExist} never skips content that differs with the same size; content
 * streams are all closed and a short stream is refused as retryable without storing; concurrent
 * puts to distinct keys. Sinks that report checksums must report the same one for the same bytes
 * and a different one for different bytes, and must find an identical object with {@link
 * ObjectSink#findIdentical}; every sink must never call an object identical when it is missing or
 * has another size or other bytes of the same size, must store nothing when asked, and must close
 * the streams it opens.
 *
 * <p>Unfinished uploads: a sink that does not {@linkplain ObjectSink#supportsUnfinishedUploads()
 * support} them must refuse listing and aborting with {@link UnsupportedOperationException}. One that
 * does must override {@link #leaveUnfinishedUpload} (the tests fail, never skip, otherwise) and is
 * checked for: listing by plain prefix in key order with no object behind an unfinished upload, no
 * unfinished upload left by a successful put, abort removing exactly the upload named, a second
 * abort answering {@code false}, and a stored object at the key untouched by an abort.
 */
public abstract class ObjectSinkContract {
  /** The sink under test, fresh for each test. */
  protected ObjectSink sink;

  /** A new, empty sink. Called before each test. */
  protected abstract ObjectSink newSink() throws Exception;

  /**
   * Starts an upload at {@code key} in {@link #sink} and leaves it unfinished, as a process killed in
   * the middle of a multipart upload does. Override it when the sink {@linkplain
   * ObjectSink#supportsUnfinishedUploads() supports} unfinished uploads; the default fails the test.
   *
   * @return the upload as {@link ObjectSink#listUnfinishedUploads} will report it (its {@code
   *     initiated} may be {@code null}: only key and upload id are compared)
   */
  protected UnfinishedUpload leaveUnfinishedUpload(String key) throws Exception {
    throw new AssertionError(getClass().getSimpleName() + ": the sink supports unfinished uploads;"
        + " override leaveUnfinishedUpload to start one");
  }

  @BeforeEach
  final void createSink() throws Exception {
    sink = newSink();
  }

  @Test
  void putThenHeadReportsKeySizeAndChecksum() {
    StoredObjectInfo stored = sink.put("b1/720p/original/0000000001.ts", bytes("segment one"), false);

    assertEquals(new StoredObjectInfo("b1/720p/original/0000000001.ts", 11, stored.checksum()), stored);
    assertEquals(Optional.of(stored), sink.head("b1/720p/original/0000000001.ts"));
  }

  @Test
  void headOfMissingKeyIsEmpty() {
    assertEquals(Optional.empty(), sink.head("b1/720p/init.mp4"));
  }

  @Test
  void putOverwritesWhateverIsThere() {
    StoredObjectInfo first = sink.put("b1/720p/init.mp4", bytes("first version"), false);
    StoredObjectInfo second = sink.put("b1/720p/init.mp4", bytes("second, longer version"), false);

    assertEquals(22, second.sizeBytes());
    assertEquals(Optional.of(second), sink.head("b1/720p/init.mp4"));
    assertChecksumsDiffer(first, second);
  }

  /**
   * {@link ObjectSink#putIfMatch}: a sink that writes conditionally stores only over the expected
   * version (none: no object), refuses anything else with the ETag found and leaves it untouched, and
   * reports an identical object as stored; a sink that does not stores unconditionally, as {@code put}.
   */
  @Test
  void aConditionalPutStoresOnlyOverTheExpectedVersion() {
    String key = "b1/720p/media.m3u8";
    ConditionalPut first = sink.putIfMatch(key, bytes("#EXTM3U\n1"), null);
    if (!sink.supportsConditionalPuts()) {
      assertEquals(ConditionalPut.Outcome.UNCONDITIONAL, first.outcome());
      ConditionalPut second = sink.putIfMatch(key, bytes("#EXTM3U\n22"), "\"any\"");
      assertEquals(ConditionalPut.Outcome.UNCONDITIONAL, second.outcome());
      assertEquals(Optional.of(second.stored()), sink.head(key), "stored whatever was there");
      return;
    }
    assertEquals(ConditionalPut.Outcome.STORED, first.outcome());
    assertNotNull(first.etag());
    ConditionalPut unexpected = sink.putIfMatch(key, bytes("#EXTM3U\n22"), null);
    assertEquals(ConditionalPut.Outcome.REFUSED, unexpected.outcome(), "an object is there; none was expected");
    assertEquals(first.etag(), unexpected.etag());
    assertEquals(Optional.of(first.stored()), sink.head(key));
    ConditionalPut second = sink.putIfMatch(key, bytes("#EXTM3U\n22"), first.etag());
    assertEquals(ConditionalPut.Outcome.STORED, second.outcome());
    assertNotEquals(first.etag(), second.etag());
    ConditionalPut stale = sink.putIfMatch(key, bytes("#EXTM3U\n333"), first.etag());
    assertEquals(ConditionalPut.Outcome.REFUSED, stale.outcome(), "a stale version is refused");
    assertEquals(second.etag(), stale.etag());
    assertNull(stale.stored());
    assertEquals(Optional.of(second.stored()), sink.head(key), "the newer object stays");
    ConditionalPut identical = sink.putIfMatch(key, bytes("#EXTM3U\n22"), first.etag());
    assertEquals(ConditionalPut.Outcome.STORED, identical.outcome(), "identical content counts as written");
    assertEquals(second.etag(), identical.etag());
    ConditionalPut absent = sink.putIfMatch("b2/720p/media.m3u8", bytes("#EXTM3U\n1"), first.etag());
    assertEquals(ConditionalPut.Outcome.REFUSED, absent.outcome(), "a version was expected; no object is there");
    assertNull(absent.etag());
    assertEquals(Optional.empty(), sink.head("b2/720p/media.m3u8"));
  }

  @Test
  void storesEmptyObject() {
    StoredObjectInfo stored = sink.put("b1/720p/playback/0000000000.m4s", new TrackedContent(new byte[0]), false);

    assertEquals(0, stored.sizeBytes());
    assertEquals(0, sink.head("b1/720p/playback/0000000000.m4s").orElseThrow().sizeBytes());
  }

  @Test
  void storesObjectLargerThanAMebibyte() {
    byte[] data = randomBytes(1024 * 1024 + 1, 7);
    StoredObjectInfo stored = sink.put("b1/1080p/original/0000000002.ts", new TrackedContent(data), false);

    assertEquals(data.length, stored.sizeBytes());
    assertEquals(data.length, sink.head("b1/1080p/original/0000000002.ts").orElseThrow().sizeBytes());
  }

  @Test
  void sameBytesGiveSameChecksumAtDifferentKeys() {
    StoredObjectInfo a = sink.put("b1/720p/original/0000000001.ts", bytes("identical"), false);
    StoredObjectInfo b = sink.put("b2/720p/original/0000000001.ts", bytes("identical"), false);

    assertEquals(a.checksum(), b.checksum());
  }

  @Test
  void listsInKeyOrderWithinPrefixOnly() {
    sink.put("b1/720p/original/0000000003.ts", bytes("c"), false);
    sink.put("b1/720p/original/0000000001.ts", bytes("a"), false);
    sink.put("b1/720p/init.mp4", bytes("init"), false);
    sink.put("b10/720p/original/0000000001.ts", bytes("other broadcast"), false);
    sink.put("b2/720p/original/0000000001.ts", bytes("other"), false);

    assertEquals(List.of("b1/720p/init.mp4", "b1/720p/original/0000000001.ts", "b1/720p/original/0000000003.ts"),
        keys(sink.list("b1/")));
    assertEquals(List.of("b1/720p/original/0000000001.ts", "b1/720p/original/0000000003.ts"),
        keys(sink.list("b1/720p/original/")));
    assertEquals(List.of("b10/720p/original/0000000001.ts"), keys(sink.list("b10/")));
    assertEquals(5, sink.list("").size());
    assertEquals(List.of(), sink.list("b3/"));
  }

  @Test
  void aBoundedListingStartsAfterAKeyAndStopsAtTheLimit() {
    for (int i = 5; i >= 1; i--) {
      sink.put("b1/720p/original/000000000" + i + ".ts", bytes("segment " + i), false);
    }
    sink.put("b10/720p/original/0000000001.ts", bytes("other broadcast"), false);

    assertEquals(List.of("b1/720p/original/0000000001.ts", "b1/720p/original/0000000002.ts"),
        keys(sink.list("b1/", null, 2)));
    assertEquals(List.of("b1/720p/original/0000000003.ts", "b1/720p/original/0000000004.ts"),
        keys(sink.list("b1/", "b1/720p/original/0000000002.ts", 2)));
    assertEquals(List.of("b1/720p/original/0000000005.ts"), keys(sink.list("b1/", "b1/720p/original/0000000004.ts", 2)));
    assertEquals(List.of(), sink.list("b1/", "b1/720p/original/0000000005.ts", 2));
    assertEquals(5, sink.list("b1/", "", 1000).size());
  }

  @Test
  void listReportsSizesAndConsistentChecksums() {
    StoredObjectInfo stored = sink.put("b1/720p/original/0000000001.ts", bytes("twelve bytes"), false);

    StoredObjectInfo listed = sink.list("b1/").get(0);
    assertEquals(stored.key(), listed.key());
    assertEquals(12, listed.sizeBytes());
    if (listed.checksum() != null) {
      assertEquals(stored.checksum(), listed.checksum());
    }
  }

  @Test
  void mayExistWithIdenticalObjectLeavesItInPlace() {
    StoredObjectInfo first = sink.put("b1/720p/init.mp4", bytes("init bytes"), false);
    StoredObjectInfo again = sink.put("b1/720p/init.mp4", bytes("init bytes"), true);

    assertEquals(first, again);
    assertEquals(Optional.of(first), sink.head("b1/720p/init.mp4"));
  }

  @Test
  void mayExistWithDifferentContentOfSameSizeStoresIt() {
    StoredObjectInfo first = sink.put("b1/720p/init.mp4", bytes("aaaaaaaa"), false);
    StoredObjectInfo second = sink.put("b1/720p/init.mp4", bytes("bbbbbbbb"), true);

    assertEquals(8, second.sizeBytes());
    assertChecksumsDiffer(first, second);
    assertEquals(Optional.of(second), sink.head("b1/720p/init.mp4"));
  }

  @Test
  void mayExistWithNothingThereStoresIt() {
    StoredObjectInfo stored = sink.put("b1/720p/init.mp4", bytes("init"), true);

    assertEquals(Optional.of(stored), sink.head("b1/720p/init.mp4"));
  }

  @Test
  void closesEveryStreamItOpens() {
    TrackedContent content = new TrackedContent(randomBytes(4096, 3));
    sink.put("b1/720p/original/0000000001.ts", content, false);
    TrackedContent retry = new TrackedContent(randomBytes(4096, 3));
    sink.put("b1/720p/original/0000000001.ts", retry, true);

    assertTrue(content.opened.get() >= 1, "the content was never opened");
    assertEquals(content.opened.get(), content.closed.get(), "streams opened vs closed");
    assertEquals(retry.opened.get(), retry.closed.get(), "streams opened vs closed on retry");
  }

  @Test
  void refusesContentShorterThanItsSizeAsRetryableWithoutStoring() {
    UploadContent lying = new UploadContent() {
      @Override
      public long size() {
        return 100;
      }

      @Override
      public InputStream openStream() {
        return new ByteArrayInputStream(new byte[40]);
      }
    };

    SinkException e = assertThrows(SinkException.class, () -> sink.put("b1/720p/init.mp4", lying, false));
    assertTrue(e.isRetryable(), "a short read is an unknown outcome, retryable: " + e);
    assertEquals(Optional.empty(), sink.head("b1/720p/init.mp4"));
  }

  @Test
  void concurrentPutsToDistinctKeysAllLand() throws Exception {
    int threads = 4;
    int perThread = 10;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        String rendition = "r" + t;
        futures.add(pool.submit(() -> {
          for (int i = 0; i < perThread; i++) {
            sink.put(String.format("b1/%s/original/%010d.ts", rendition, i), bytes(String.format("%s-%04d", rendition, i)), false);
          }
        }));
      }
      for (Future<?> f : futures) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    List<StoredObjectInfo> listed = sink.list("b1/");
    assertEquals(threads * perThread, listed.size());
    for (StoredObjectInfo info : listed) {
      assertEquals(7, info.sizeBytes(), info.key());
    }
  }

  @Test
  void findIdenticalFindsTheObjectWithTheSameBytesAndNoOther() {
    StoredObjectInfo stored = sink.put("b1/720p/original/0000000001.ts", bytes("segment one"), false);

    Optional<StoredObjectInfo> same = sink.findIdentical("b1/720p/original/0000000001.ts", bytes("segment one"));
    if (stored.checksum() != null) {
      assertEquals(Optional.of(stored), same, "a sink that reports checksums can tell");
    } else {
      assertEquals(Optional.empty(), same, "a sink without checksums cannot tell: empty");
    }
    assertEquals(Optional.empty(), sink.findIdentical("b1/720p/original/0000000001.ts", bytes("segment two")),
        "same size, other bytes");
    assertEquals(Optional.empty(), sink.findIdentical("b1/720p/original/0000000001.ts", bytes("segment one!")),
        "other size");
    assertEquals(Optional.empty(), sink.findIdentical("b1/720p/original/0000000002.ts", bytes("segment one")),
        "nothing stored there");
  }

  @Test
  void findIdenticalStoresNothingAndClosesWhatItOpens() {
    StoredObjectInfo stored = sink.put("b1/720p/init.mp4", new TrackedContent(randomBytes(4096, 11)), false);
    TrackedContent same = new TrackedContent(randomBytes(4096, 11));
    TrackedContent other = new TrackedContent(randomBytes(4096, 12));

    sink.findIdentical("b1/720p/init.mp4", same);
    sink.findIdentical("b1/720p/init.mp4", other);
    sink.findIdentical("b1/720p/original/0000000001.ts", other);

    assertEquals(Optional.of(stored), sink.head("b1/720p/init.mp4"));
    assertEquals(List.of("b1/720p/init.mp4"), keys(sink.list("b1/")), "nothing stored by asking");
    assertEquals(same.opened.get(), same.closed.get(), "streams opened vs closed");
    assertEquals(other.opened.get(), other.closed.get(), "streams opened vs closed");
  }

  @Test
  void unfinishedUploadsAreListedOrRefusedAsUnsupported() {
    if (!sink.supportsUnfinishedUploads()) {
      assertThrows(UnsupportedOperationException.class, () -> sink.listUnfinishedUploads(""));
      assertThrows(UnsupportedOperationException.class,
          () -> sink.abortUnfinishedUpload(new UnfinishedUpload("b1/720p/init.mp4", "upload-1", null)));
      return;
    }
    assertEquals(List.of(), sink.listUnfinishedUploads(""), "a fresh sink");
    sink.put("b1/720p/original/0000000001.ts", new TrackedContent(randomBytes(1024 * 1024 + 1, 5)), false);
    sink.put("b1/720p/original/0000000001.ts", new TrackedContent(randomBytes(1024 * 1024 + 1, 6)), true);
    assertEquals(List.of(), sink.listUnfinishedUploads(""), "successful puts leave no unfinished upload");
  }

  @Test
  void listsUnfinishedUploadsByPrefixInKeyOrderWithoutAnObject() throws Exception {
    if (!sink.supportsUnfinishedUploads()) {
      assertThrows(UnsupportedOperationException.class, () -> sink.listUnfinishedUploads("b1/"));
      return;
    }
    UnfinishedUpload b10 = leaveUnfinishedUpload("b10/720p/original/0000000001.ts");
    UnfinishedUpload original = leaveUnfinishedUpload("b1/720p/original/0000000001.ts");
    UnfinishedUpload init = leaveUnfinishedUpload("b1/720p/init.mp4");
    UnfinishedUpload other = leaveUnfinishedUpload("b2/720p/original/0000000001.ts");

    assertEquals(List.of(ids(init), ids(original)), ids(sink.listUnfinishedUploads("b1/")));
    assertEquals(List.of(ids(b10)), ids(sink.listUnfinishedUploads("b10/")));
    assertEquals(List.of(ids(original)), ids(sink.listUnfinishedUploads("b1/720p/original/0000000001.ts")));
    assertEquals(List.of(ids(init), ids(original), ids(b10), ids(other)), ids(sink.listUnfinishedUploads("")));
    assertEquals(List.of(), sink.listUnfinishedUploads("b3/"));
    assertEquals(Optional.empty(), sink.head("b1/720p/init.mp4"), "an unfinished upload is no object");
    assertEquals(List.of(), sink.list("b1/"), "an unfinished upload is no object");
  }

  @Test
  void abortRemovesExactlyTheUploadNamedAndNeverAnObject() throws Exception {
    if (!sink.supportsUnfinishedUploads()) {
      assertThrows(UnsupportedOperationException.class,
          () -> sink.abortUnfinishedUpload(new UnfinishedUpload("b1/720p/init.mp4", "upload-1", null)));
      return;
    }
    StoredObjectInfo stored = sink.put("b1/720p/init.mp4", bytes("init bytes"), false);
    UnfinishedUpload first = leaveUnfinishedUpload("b1/720p/init.mp4");
    UnfinishedUpload second = leaveUnfinishedUpload("b1/720p/init.mp4");
    UnfinishedUpload elsewhere = leaveUnfinishedUpload("b1/720p/original/0000000001.ts");
    UnfinishedUpload listed = sink.listUnfinishedUploads("b1/720p/init.mp4").stream()
        .filter(u -> u.uploadId().equals(first.uploadId())).findFirst().orElseThrow();

    assertTrue(sink.abortUnfinishedUpload(listed));

    assertEquals(List.of(ids(second), ids(elsewhere)), ids(sink.listUnfinishedUploads("b1/")));
    assertEquals(Optional.of(stored), sink.head("b1/720p/init.mp4"), "the object at the key is untouched");
    assertFalse(sink.abortUnfinishedUpload(listed), "already gone: false, not a failure");
    assertEquals(List.of(ids(second), ids(elsewhere)), ids(sink.listUnfinishedUploads("b1/")));
  }

  private static List<String> ids(List<UnfinishedUpload> uploads) {
    return uploads.stream().map(ObjectSinkContract::ids).toList();
  }

  private static String ids(UnfinishedUpload upload) {
    return upload.key() + " " + upload.uploadId();
  }

  /** Content over {@code data} that counts the streams it hands out and the ones closed. */
  protected static final class TrackedContent implements UploadContent {
    private final byte[] data;
    final AtomicInteger opened = new AtomicInteger();
    final AtomicInteger closed = new AtomicInteger();

    /** Content with exactly these bytes. */
    public TrackedContent(byte[] data) {
      this.data = data.clone();
    }

    @Override
    public long size() {
      return data.length;
    }

    @Override
    public InputStream openStream() {
      opened.incrementAndGet();
      return new ByteArrayInputStream(data) {
        @Override
        public void close() {
          closed.incrementAndGet();
        }
      };
    }
  }

  /** UTF-8 content of {@code text}. */
  public static UploadContent bytes(String text) {
    return new TrackedContent(text.getBytes(UTF_8));
  }

  /** {@code size} reproducible pseudo-random bytes. */
  protected static byte[] randomBytes(int size, long seed) {
    byte[] data = new byte[size];
    new Random(seed).nextBytes(data);
    return data;
  }

  private static List<String> keys(List<StoredObjectInfo> infos) {
    return infos.stream().map(StoredObjectInfo::key).toList();
  }

  private static void assertChecksumsDiffer(StoredObjectInfo first, StoredObjectInfo second) {
    if (first.checksum() != null || second.checksum() != null) {
      assertNotNull(second.checksum(), "checksum of the newer object");
      assertNotEquals(first.checksum(), second.checksum(), "different bytes, same checksum");
    }
  }
}
