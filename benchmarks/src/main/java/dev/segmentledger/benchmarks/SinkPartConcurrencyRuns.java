package dev.segmentledger.benchmarks;

import dev.segmentledger.core.spi.UploadContent;
import dev.segmentledger.s3.S3ObjectSink;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * One single original (1 GiB by default) put through {@link S3ObjectSink} alone, no ledger and no
 * database, against S3Proxy in its own JVM ({@link S3ProxyProcess}, filesystem blob store), once
 * per part concurrency setting, in alternating order (1, 4, 8, then 8, 4, 1, ...), because this
 * machine's disk varies between runs; then the digest pass alone: a {@code mayExist} put of the
 * object already stored (the digests, one HEAD, one {@code ListMultipartUploads}), alternating 1 and
 * 4 lanes. The content is read through one {@code FileChannel}, as the ledger hands it over. Prints
 * each run and the rates; not part of the suite.
 *
 * <pre>{@code
 * java -cp <benchmarks class path> dev.segmentledger.benchmarks.SinkPartConcurrencyRuns \
 *     [--size-mib=1024] [--settings=1,4,8] [--rounds=2] [--dir=<work directory>]
 * }</pre>
 */
public final class SinkPartConcurrencyRuns {
  private SinkPartConcurrencyRuns() {}

  public static void main(String[] args) throws Exception {
    int sizeMib = 1024;
    List<Integer> settings = List.of(1, 4, 8);
    int rounds = 2;
    Path dir = null;
    for (String arg : args) {
      if (arg.startsWith("--size-mib=")) {
        sizeMib = Integer.parseInt(arg.substring(11));
      } else if (arg.startsWith("--settings=")) {
        settings = List.of(arg.substring(11).split(",")).stream().map(Integer::valueOf).toList();
      } else if (arg.startsWith("--rounds=")) {
        rounds = Integer.parseInt(arg.substring(9));
      } else if (arg.startsWith("--dir=")) {
        dir = Path.of(arg.substring(6));
      } else {
        throw new IllegalArgumentException("unknown argument: " + arg);
      }
    }
    Path work = dir == null ? Files.createTempDirectory("sink-part-concurrency") : Files.createDirectories(dir);
    Path file = MediaFiles.write(work.resolve("rec"), 1, sizeMib * 1024 * 1024).get(0);
    Path warmUpFile = MediaFiles.write(work.resolve("warm-up"), 1, 64 * 1024 * 1024).get(0);
    Path blobs = Files.createDirectories(work.resolve("blobs"));
    System.out.printf("[runs] %d MiB, settings %s, %d rounds, loadavg %s%n", sizeMib, settings, rounds, LoadAvg.now());
    try (S3ProxyProcess server = S3ProxyProcess.start(blobs, UploadMeasure.ACCESS_KEY, UploadMeasure.SECRET_KEY);
        S3Client s3 = UploadMeasure.client(server.endpoint())) {
      s3.createBucket(b -> b.bucket("single"));
      for (int setting : settings) { // untimed: the JIT compiles the request path of every lane count
        put(s3, setting, warmUpFile, "warm-up-" + setting, false);
      }
      Map<Integer, List<Double>> rates = new LinkedHashMap<>();
      settings.forEach(s -> rates.put(s, new ArrayList<>()));
      for (int round = 0; round < rounds; round++) {
        List<Integer> order = new ArrayList<>(settings);
        if (round % 2 == 1) {
          java.util.Collections.reverse(order);
        }
        for (int setting : order) {
          MediaFiles.settleDisk();
          String key = "run-" + round + "-" + setting;
          double seconds = put(s3, setting, file, key, false);
          double rate = sizeMib / seconds;
          rates.get(setting).add(rate);
          System.out.printf("[runs] round %d, partConcurrency %d: %.2f s, %.1f MiB/s (loadavg %s)%n", round + 1,
              setting, seconds, rate, LoadAvg.now());
          s3.deleteObject(b -> b.bucket("single").key(key));
        }
      }
      rates.forEach((setting, r) -> System.out.printf("[runs] partConcurrency %d: %s MiB/s, mean %.1f%n", setting,
          r.stream().map(x -> String.format("%.1f", x)).toList(), r.stream().mapToDouble(x -> x).average().orElse(0)));

      put(s3, 4, file, "stored", false);
      Map<Integer, List<Double>> digest = new LinkedHashMap<>();
      for (int round = 0; round < 2 * rounds; round++) {
        int lanes = round % 4 == 0 || round % 4 == 3 ? 1 : 4; // 1, 4, 4, 1, ...
        double seconds = put(s3, lanes, file, "stored", true);
        digest.computeIfAbsent(lanes, k -> new ArrayList<>()).add(seconds * 1000);
        System.out.printf("[runs] digest pass (identical mayExist put), %d lane(s): %.0f ms%n", lanes, seconds * 1000);
      }
      digest.forEach((lanes, ms) -> System.out.printf("[runs] digest pass, %d lane(s): %s ms%n", lanes,
          ms.stream().map(x -> String.format("%.0f", x)).toList()));
    }
    System.out.printf("[runs] loadavg at end %s; work directory %s (delete it)%n", LoadAvg.now(), work);
  }

  /** One put of {@code file} at {@code key} by a sink with that part concurrency; its seconds. */
  private static double put(S3Client s3, int partConcurrency, Path file, String key, boolean mayExist)
      throws IOException {
    S3ObjectSink sink = S3ObjectSink.builder().client(s3).bucket("single").partConcurrency(partConcurrency).build();
    try (ChannelContent content = new ChannelContent(file)) {
      long start = System.nanoTime();
      sink.put(key, content, mayExist);
      return (System.nanoTime() - start) / 1e9;
    }
  }

  /** The content as the ledger hands it over: one channel, every stream a positional reader. */
  private static final class ChannelContent implements UploadContent, AutoCloseable {
    private final FileChannel channel;
    private final long size;

    ChannelContent(Path file) throws IOException {
      channel = FileChannel.open(file, StandardOpenOption.READ);
      size = channel.size();
    }

    @Override
    public long size() {
      return size;
    }

    @Override
    public InputStream openStream() {
      return new InputStream() {
        private long position;

        @Override
        public int read() throws IOException {
          byte[] one = new byte[1];
          return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
          if (length == 0) {
            return 0;
          }
          if (position >= size) {
            return -1;
          }
          int n = channel.read(ByteBuffer.wrap(buffer, offset, (int) Math.min(length, size - position)), position);
          position += Math.max(n, 0);
          return n;
        }

        @Override
        public long skip(long n) {
          long skipped = Math.max(0, Math.min(n, size - position));
          position += skipped;
          return skipped;
        }
      };
    }

    @Override
    public void close() throws IOException {
      channel.close();
    }
  }
}
