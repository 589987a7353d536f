package dev.segmentledger.core.internal;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Not a test: the program benchmarks/syscalls/count.sh runs under {@code strace} to count the
 * system calls of the upload's open of one registered file ({@link PathGuard#open} with the
 * registered size and identity, and the close of the opened file). It warms the open up, then
 * opens the file {@code items} times, each between two marker calls ({@code stat} of a path that
 * does not exist and names the item) that the script finds in the trace. Argument: {@code walk} to
 * keep the Java 17 open on a JDK 22 or later.
 */
public final class SyscallProbe {
  private static final int WARM_UP = 20_000;
  private static final int ITEMS = 5;

  private SyscallProbe() {}

  public static void main(String[] args) throws Exception {
    boolean walk = args.length > 0 && args[0].equals("walk");
    Path root = Files.createTempDirectory("segment-ledger-probe").toRealPath();
    Path file = Files.writeString(Files.createDirectories(root.resolve("cam-1/2026-12-04")).resolve("seg-000001.ts"),
        "x".repeat(1000));
    try (PathGuard guard = new PathGuard(root, () -> { }, (r, c) -> { },
        walk ? (r, k) -> null : BeneathOpener::forRoot)) {
      String identity = guard.check(file).identity();
      for (int i = 0; i < WARM_UP; i++) {
        guard.open(file, 1000, identity).close();
      }
      System.out.println("open: " + (guard.opensBeneath() ? "openat2" : "walk from the held root"));
      for (int i = 0; i < ITEMS; i++) {
        Files.exists(Path.of("/segment-ledger-probe-begin-" + i));
        guard.open(file, 1000, identity).close();
        Files.exists(Path.of("/segment-ledger-probe-end-" + i));
      }
    } finally {
      Files.delete(file);
      Files.delete(file.getParent());
      Files.delete(file.getParent().getParent());
      Files.delete(root);
    }
  }
}
