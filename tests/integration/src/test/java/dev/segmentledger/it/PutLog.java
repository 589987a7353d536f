package dev.segmentledger.it;

import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.UploadContent;
import dev.segmentledger.testkit.ForwardingObjectSink;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A sink wrapper that appends one line per PUT issued ({@code key}) to a log file of its process,
 * before calling the sink, so a PUT cut short by SIGKILL is still counted. Each line is a single
 * append to the file; lines written before a SIGKILL stay in the page cache and are read by the
 * parent. Merging the logs of every process counts PUTs per key across the cluster. Thread-safe.
 */
final class PutLog extends ForwardingObjectSink {
  private final ObjectSink sink;
  private final FileChannel log;

  PutLog(ObjectSink sink, Path logFile) {
    this.sink = sink;
    try {
      this.log = FileChannel.open(logFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  protected ObjectSink delegate() {
    return sink;
  }

  @Override
  public StoredObjectInfo put(String key, UploadContent content, boolean mayExist) {
    ByteBuffer line = ByteBuffer.wrap((key + "\n").getBytes(StandardCharsets.UTF_8));
    try {
      synchronized (log) {
        while (line.hasRemaining()) {
          log.write(line);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return sink.put(key, content, mayExist);
  }






  /** PUTs per key over every log file given. */
  static Map<String, Integer> merge(List<Path> logs) throws IOException {
    Map<String, Integer> puts = new HashMap<>();
    for (Path file : logs) {
      if (Files.exists(file)) {
        try (Stream<String> lines = Files.lines(file)) {
          lines.filter(line -> !line.isEmpty()).forEach(key -> puts.merge(key, 1, Integer::sum));
        }
      }
    }
    return puts;
  }
}
