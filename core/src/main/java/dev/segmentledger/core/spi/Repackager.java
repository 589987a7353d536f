package dev.segmentledger.core.spi;

import java.nio.file.Path;

/**
 * Turns a recorded original into playback media: the init segment of its rendition and the
 * playback segment of its sequence. The ledger calls it on a worker thread before uploading a
 * {@code PLAYBACK} or {@code INIT} item whose local file is missing, including during recovery.
 *
 * <p>Implementations must write only to the given target path and to temporary siblings in its
 * directory (the ledger chooses it inside the allowed root), must never leave a partial target,
 * should produce the same bytes when run again on the same original (a re-produced file must
 * match what may already be stored), and must be thread-safe. Timing may come from the media
 * itself rather than from {@code sequence}. A failure is reported as a {@link RepackageException}; it is recorded on the
 * PLAYBACK or INIT row and never touches the ORIGINAL row.
 */
public interface Repackager {

  /**
   * Writes the init segment (for example fMP4 {@code ftyp+moov}) derived from {@code original}
   * to {@code target}, replacing it if present.
   */
  RepackagedFile init(Path original, Path target) throws RepackageException;

  /**
   * Writes the playback segment (for example an fMP4 {@code .m4s} media segment) of
   * {@code original}, segment number {@code sequence}, to {@code target}, replacing it if present.
   */
  RepackagedFile segment(Path original, long sequence, Path target) throws RepackageException;
}
