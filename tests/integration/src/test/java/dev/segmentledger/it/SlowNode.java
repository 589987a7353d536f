package dev.segmentledger.it;

import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.SinkException;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.RepackageException;
import dev.segmentledger.core.spi.RepackagedFile;
import dev.segmentledger.core.spi.Repackager;
import dev.segmentledger.core.spi.UploadContent;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.testkit.DirectoryObjectSink;
import dev.segmentledger.testkit.FakeRepackager;
import dev.segmentledger.testkit.ForwardingObjectSink;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.jdbi.v3.core.Jdbi;

/**
 * A ledger instance in a JVM of its own whose work is slow but alive: its sink reads each PUT's
 * content 64 KiB at a time with a pause between reads (a slow uplink), and its repackager writes
 * each output a few bytes at a time with a pause between writes. Every PUT is logged
 * ({@link PutLog}). Prints {@code STARTED}, {@code PUT <key>} when a PUT begins, {@code CONFIRMED
 * <id>}, {@code CLAIM LOST <id>} and {@code FAILED <id> <reason>}.
 *
 * <p>Arguments: jdbcUrl user password allowedRoot bucket putLog nodeId leaseMillis readPauseMillis
 * repackageMillis (the database's three: {@link ChildDatabase}).
 */
public final class SlowNode {
  private SlowNode() {}

  public static void main(String[] args) throws Exception {
    JdbiStateStore store = JdbiStateStore.create(Jdbi.create(ChildDatabase.pool(args, 8)));
    long readPause = Long.parseLong(args[8]);
    ObjectSink sink = new SlowReads(new PutLog(new DirectoryObjectSink(Path.of(args[4])), Path.of(args[5])),
        readPause);
    Repackager repackager = new SlowOutput(new FakeRepackager(), Duration.ofMillis(Long.parseLong(args[9])));
    Path root = Path.of(args[3]);
    Ledger ledger = Ledger.builder()
        .stateStore(store)
        .objectSink(sink)
        .allowedRoot(root)
        .repackager(repackager, root.resolve("playback"))
        .publishPlaylists(false)
        .sweepInterval(Duration.ofMillis(50))
        .backoff(Wiring.SHORT_BACKOFF)
        .workers(2)
        .listener(new Printing())
        .nodeId(args[6])
        .leaseDuration(Duration.ofMillis(Long.parseLong(args[7])))
        .stallTimeout(Duration.ofMinutes(1))
        .build();
    ledger.start();
    System.out.println("STARTED " + args[6]);
    new CountDownLatch(1).await(); // runs until killed
  }

  private static final class Printing implements LedgerListener {
    @Override
    public void onConfirmed(LedgerItem item) {
      System.out.println("CONFIRMED " + item.id());
    }

    @Override
    public void onClaimLost(LedgerItem item) {
      System.out.println("CLAIM LOST " + item.id());
    }

    @Override
    public void onFailed(LedgerItem item, Reason reason, String detail, boolean terminal) {
      System.out.println("FAILED " + item.id() + " " + reason);
    }
  }

  /** Reads the content 64 KiB at a time, pausing between reads, before the PUT itself. */
  private static final class SlowReads extends ForwardingObjectSink {
    private final ObjectSink sink;
    private final long pauseMillis;

    SlowReads(ObjectSink sink, long pauseMillis) {
      this.sink = sink;
      this.pauseMillis = pauseMillis;
    }

    @Override
    protected ObjectSink delegate() {
      return sink;
    }

    @Override
    public StoredObjectInfo put(String key, UploadContent content, boolean mayExist) {
      System.out.println("PUT " + key);
      byte[] buffer = new byte[64 * 1024];
      try (InputStream in = content.openStream()) {
        while (in.read(buffer) > 0) {
          Thread.sleep(pauseMillis);
        }
      } catch (InterruptedException e) {
        throw SinkException.retryable("interrupted while sending " + key, e);
      } catch (IOException e) {
        throw SinkException.retryable("reading " + key + " failed: " + e, e);
      }
      return sink.put(key, content, mayExist);
    }
  }

  /** Produces what the delegate produces, writing it into its temporary file over {@code time}. */
  private static final class SlowOutput implements Repackager {
    private final Repackager delegate;
    private final Duration time;

    SlowOutput(Repackager delegate, Duration time) {
      this.delegate = delegate;
      this.time = time;
    }

    @Override
    public RepackagedFile init(Path original, Path target) throws RepackageException {
      return slowly(delegate.init(original, target));
    }

    @Override
    public RepackagedFile segment(Path original, long sequence, Path target) throws RepackageException {
      return slowly(delegate.segment(original, sequence, target));
    }

    private RepackagedFile slowly(RepackagedFile produced) throws RepackageException {
      Path target = produced.path();
      try {
        byte[] bytes = Files.readAllBytes(target);
        Files.delete(target);
        Path partial = Repackager.createTemporaryBeside(target);
        int steps = 20;
        try (OutputStream out = Files.newOutputStream(partial)) {
          for (int i = 0; i < steps; i++) {
            int from = bytes.length * i / steps;
            out.write(bytes, from, bytes.length * (i + 1) / steps - from);
            out.flush();
            Thread.sleep(time.toMillis() / steps);
          }
        }
        Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING);
        return produced;
      } catch (InterruptedException e) {
        throw new RepackageException("interrupted: cancelled", e);
      } catch (IOException e) {
        throw new RepackageException("cannot write " + target + ": " + e, e);
      }
    }
  }
}
