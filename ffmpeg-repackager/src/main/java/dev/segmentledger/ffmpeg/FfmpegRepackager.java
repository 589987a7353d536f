package dev.segmentledger.ffmpeg;

import dev.segmentledger.core.Printable;
import dev.segmentledger.core.spi.RepackageException;
import dev.segmentledger.core.spi.RepackagedFile;
import dev.segmentledger.core.spi.Repackager;
import dev.segmentledger.ffmpeg.MediaProbe.MediaStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Repackager} that remuxes recordings (MPEG-TS, MP4 or fragmented MP4 with H.264/HEVC
 * video and AAC audio) into HLS fragmented MP4 by running ffmpeg, without re-encoding ({@code -c
 * copy}).
 *
 * <p>Guarantees:
 *
 * <ul>
 *   <li><b>One stream from separate runs.</b> Each segment keeps the recording's original
 *       timestamps (its {@code tfdt} is the first packet's TS timestamp), so segments of
 *       consecutive chunks, each repackaged on its own, in any process, play as one continuous
 *       stream behind a single init segment.
 *   <li><b>Interchangeable, repeatable output.</b> The init segment depends only on the codec
 *       configuration, so the init of any chunk of a rendition has the same bytes; and the same
 *       original always yields the same bytes with the same ffmpeg build, so a re-run after a
 *       crash overwrites an uploaded object with identical content.
 *   <li><b>The segment's true duration.</b> A segment's {@link RepackagedFile#duration()} is
 *       measured on the media written, over all its packets (however many), from ffprobe's whole
 *       output: an output that was cut fails the call instead of yielding a partial answer.
 *   <li><b>No partial targets, no piles of temporaries.</b> Output is written to a temporary file
 *       beside the target ({@link Repackager}: hidden, named after the target,
 *       ending {@code .segment-ledger-partial}) and atomically renamed onto it; on any failure the
 *       target is left as it was and the temporaries are deleted. What a killed run left behind
 *       is removed by the next run beside it: the target's own at once (the re-run after the
 *       kill), other targets' once older than twice the timeout.
 *   <li><b>Progress on disk.</b> Everything a call writes goes into such temporaries of its
 *       target, written progressively: first ffmpeg's remuxed file (fragment by fragment), then the
 *       copy that becomes the target. Their growth is the call's progress; a call also has two
 *       phases that write nothing: ffprobe reading the original's headers before the first
 *       temporary exists, and ffprobe listing the remuxed file's packets (it reads the file once).
 *   <li><b>Bounded, cancellable external processes.</b> ffprobe and ffmpeg run from argument lists
 *       (no shell), each under the {@linkplain Builder#timeout(Duration) timeout}. A failure, a
 *       non-zero exit or a timeout becomes a {@link RepackageException} that carries the last 8
 *       KiB of the program's stderr. An interrupt of the calling thread cancels the call: the
 *       running program and the processes it started are killed, the temporaries deleted, the
 *       interrupt flag restored, and the {@link RepackageException} says it was cancelled.
 * </ul>
 *
 * <p>Immutable and thread-safe: concurrent calls share nothing but the configuration.
 */
public final class FfmpegRepackager implements Repackager {
  /** The default {@link Builder#timeout(Duration)} of one ffprobe or ffmpeg run: 2 minutes. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(2);

  private static final Logger log = LoggerFactory.getLogger(FfmpegRepackager.class);
  private static final String MEDIA_FRAGMENT = "moof";

  private final String ffmpeg;
  private final MediaProbe probe;
  private final ProcessRunner runner;
  private final Duration timeout;
  private final Duration leftoverAge;

  private FfmpegRepackager(Builder builder) {
    this.timeout = builder.timeout;
    this.leftoverAge = builder.timeout.multipliedBy(2);
    this.ffmpeg = builder.ffmpeg.toString();
    this.runner = new ProcessRunner(builder.timeout);
    this.probe = new MediaProbe(builder.ffprobe().toString(), runner);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Writes the init segment ({@code ftyp+moov}); its duration is {@link Duration#ZERO}. */
  @Override
  public RepackagedFile init(Path original, Path target) throws RepackageException {
    cleanLeftovers(target);
    Path muxed = remux(original, target);
    try {
      long size = AtomicFiles.write(target, out -> out.write(ByteBuffer.wrap(initOf(muxed))));
      log.debug("init of {} written to {} ({} bytes)", Printable.escape(original), Printable.escape(target), size);
      return new RepackagedFile(target, size, Duration.ZERO);
    } catch (IOException | Mp4FormatException e) {
      throw failure("cannot write init segment " + Printable.escape(target) + " from " + Printable.escape(original), e);
    } finally {
      deleteQuietly(muxed);
    }
  }

  /**
   * Writes the media segment of the whole {@code original} ({@code moof+mdat} fragments, one per
   * GOP); its duration is the media duration of what was written, measured by ffprobe over the
   * remuxed file's packets (from the earliest start to the latest end), whatever the original's
   * container.
   */
  @Override
  public RepackagedFile segment(Path original, long sequence, Path target) throws RepackageException {
    cleanLeftovers(target);
    Path muxed = remux(original, target);
    try {
      Duration duration = probe.duration(muxed);
      long size;
      try (FileChannel in = FileChannel.open(muxed)) {
        long start = mediaStart(in);
        size = AtomicFiles.write(target, out -> transfer(in, start, out));
      }
      log.debug("segment {} of {} written to {} ({} bytes, {})", sequence, Printable.escape(original),
          Printable.escape(target), size, duration);
      return new RepackagedFile(target, size, duration);
    } catch (IOException | Mp4FormatException e) {
      throw failure("cannot write segment " + Printable.escape(target) + " from " + Printable.escape(original), e);
    } finally {
      deleteQuietly(muxed);
    }
  }

  /**
   * The longest one ffprobe or ffmpeg run may take before it is killed ({@link
   * Builder#timeout(Duration)}). A call of {@link #init} makes two runs, a call of {@link #segment}
   * three, so a call takes at most two or three times this, plus the copy of the segment. Always
   * present for this repackager.
   */
  @Override
  public Optional<Duration> timeout() {
    return Optional.of(timeout);
  }

  /**
   * Remuxes {@code original} into a fragmented MP4 in a temporary file beside {@code target},
   * which ffmpeg writes progressively, fragment by fragment.
   */
  private Path remux(Path original, Path target) throws RepackageException {
    if (!Files.exists(original)) {
      throw new RepackageException("original not found: " + Printable.escape(original));
    }
    List<MediaStream> streams = probe.streams(original);
    List<MediaStream> kept = RemuxCommand.keptStreams(streams);
    if (kept.isEmpty()) {
      throw new RepackageException("no audio or video stream in " + Printable.escape(original) + ": " + streams);
    }
    Path muxed;
    try {
      muxed = Repackager.createTemporaryBeside(target);
    } catch (IOException e) {
      throw new RepackageException("cannot create a temporary file beside " + Printable.escape(target) + ": " + Printable.escape(e), e);
    }
    try {
      runner.run(RemuxCommand.of(ffmpeg, original, kept, muxed));
      return muxed;
    } catch (RepackageException | RuntimeException e) {
      deleteQuietly(muxed);
      throw e;
    }
  }

  /**
   * A failure to write the output. An interrupt during file I/O closes the channel ({@link
   * ClosedByInterruptException}, the flag stays set): that is a cancellation, and says so.
   */
  private static RepackageException failure(String what, Exception e) {
    if (e instanceof ClosedByInterruptException) {
      return new RepackageException(what + ": cancelled: the thread was interrupted", e);
    }
    return new RepackageException(what + ": " + Printable.escape(e), e);
  }

  private static byte[] initOf(Path muxed) throws IOException, Mp4FormatException {
    try (FileChannel in = FileChannel.open(muxed)) {
      long end = mediaStart(in);
      ByteBuffer init = ByteBuffer.allocate(Math.toIntExact(end));
      while (init.hasRemaining() && in.read(init, init.position()) > 0) {
        // positional reads may return fewer bytes than asked
      }
      return InitSegment.normalize(init.array());
    }
  }

  /** The offset of the first {@code moof}: everything before it is the init segment. */
  private static long mediaStart(FileChannel muxed) throws IOException, Mp4FormatException {
    for (long offset = 0; offset < muxed.size(); ) {
      Box box = Box.at(muxed, offset);
      if (box.type().equals(MEDIA_FRAGMENT)) {
        return offset;
      }
      offset = box.end();
    }
    throw new Mp4FormatException("ffmpeg wrote no media fragment (moof); is the original empty?");
  }

  private static void transfer(FileChannel in, long from, FileChannel out) throws IOException {
    for (long position = from; position < in.size(); ) {
      position += in.transferTo(position, in.size() - position, out);
    }
  }

  /**
   * Removes what a killed run left beside {@code target}: its own temporaries, and other targets'
   * older than twice the timeout (no live run of a repackager with this timeout is that old).
   */
  private void cleanLeftovers(Path target) {
    int removed = Repackager.cleanTemporariesBeside(target, leftoverAge);
    if (removed > 0) {
      log.info("removed {} temporary files a killed run left beside {}", removed, Printable.escape(target));
    }
  }

  private static void deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      log.warn("cannot delete temporary file {}", Printable.escape(file), e);
    }
  }

  /** Configures a {@link FfmpegRepackager}; the built repackager keeps a copy of the settings. */
  public static final class Builder {
    private Path ffmpeg = Path.of("ffmpeg");
    private Path ffprobe;
    private Duration timeout = DEFAULT_TIMEOUT;

    private Builder() {}

    /**
     * The ffmpeg executable: a path, or a bare name looked up on {@code PATH}. Default {@code
     * ffmpeg}.
     */
    public Builder ffmpeg(Path ffmpeg) {
      this.ffmpeg = Objects.requireNonNull(ffmpeg, "ffmpeg");
      return this;
    }

    /**
     * The ffprobe executable. Default: {@code ffprobe} in the directory of {@link #ffmpeg(Path)}
     * if that is a path, else {@code ffprobe} on {@code PATH}.
     */
    public Builder ffprobe(Path ffprobe) {
      this.ffprobe = Objects.requireNonNull(ffprobe, "ffprobe");
      return this;
    }

    /**
     * The longest each ffprobe or ffmpeg run may take before it is killed, whether or not it makes
     * progress. Default 2 minutes. A call runs two ({@code init}) or three ({@code segment})
     * programs one after the other, each with this timeout.
     *
     * <p>With a ledger that cancels an attempt whose repackager output has not grown for its
     * stall timeout, this timeout is the backstop for a run that keeps going but never ends (and
     * the only bound when nobody watches): set it above the longest run a healthy node needs for
     * the largest original (the remux, or ffprobe reading the remuxed file once), and no longer
     * than the ledger's stall timeout (its builder warns otherwise): a run may write nothing for as
     * long as it runs (ffprobe listing the packets of the largest remuxed file), and one silent for
     * longer than the stall timeout would be cancelled as stalled. Temporaries of other targets
     * are removed once older than twice this timeout.
     */
    public Builder timeout(Duration timeout) {
      Objects.requireNonNull(timeout, "timeout");
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("timeout must be positive, got " + timeout);
      }
      this.timeout = timeout;
      return this;
    }

    public FfmpegRepackager build() {
      return new FfmpegRepackager(this);
    }

    private Path ffprobe() {
      if (ffprobe != null) {
        return ffprobe;
      }
      Path dir = ffmpeg.getParent();
      return dir == null ? Path.of("ffprobe") : dir.resolve("ffprobe");
    }
  }
}
