package dev.segmentledger.testkit.crash;

/** How a process dies at a {@link CrashPoint}. */
public enum CrashMode {
  /** {@code Runtime.halt}: no shutdown hooks, no finally blocks, exactly at the point. */
  HALT,
  /**
   * Prints the {@linkplain CrashHooks#MARKER marker} and parks the thread at the point, so that
   * the parent kills the process from outside with SIGKILL (see {@link ChildJvm#killHard()}).
   */
  SIGKILL_FROM_PARENT
}
