package dev.segmentledger.ffmpeg;

import dev.segmentledger.core.spi.RepackageException;

/**
 * Parses a program's standard output line by line while the program runs, so that an output of
 * any length is read whole without being kept. {@link ProcessRunner} asks for the {@link #result}
 * only once the output was read to its end: a parser never sees a cut output. One instance per
 * run; its methods are called from one thread at a time.
 *
 * @param <T> what the output says
 */
interface OutputParser<T> {

  /** Takes the next line, without its line break. A failure here fails the run. */
  void line(String line) throws RepackageException;

  /** What the whole output says. */
  T result() throws RepackageException;

  /**
   * Keeps the output as text, up to {@code limitChars}; a longer output fails the run instead of
   * being cut (a partial output is never parsed).
   */
  static OutputParser<String> text(int limitChars) {
    return new OutputParser<>() {
      private final StringBuilder text = new StringBuilder();
      private long length;

      @Override
      public void line(String line) {
        length += line.length() + 1L;
        if (length <= limitChars) {
          text.append(line).append('\n');
        }
      }

      @Override
      public String result() throws RepackageException {
        if (length > limitChars) {
          throw new RepackageException("the output (" + length + " characters) is longer than the "
              + limitChars + " kept; it would be cut, and a cut output is never parsed");
        }
        return text.toString();
      }
    };
  }
}
