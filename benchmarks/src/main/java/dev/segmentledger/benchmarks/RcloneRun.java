package dev.segmentledger.benchmarks;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code rclone copy} of a directory to an S3 endpoint, the raw tool the upload measures compare
 * the ledger with: timed, with its own CPU (user + system, from this JVM's reaped children). Only
 * the flags configure it ({@code --config /dev/null}; {@code AWS_*} and {@code RCLONE_*} variables of
 * the caller's environment removed).
 *
 * @param seconds the run's wall time, or -1 if it failed
 * @param cpuNanos rclone's CPU time, or -1 if unknown
 * @param failure rclone's output if it failed, else empty
 */
record RcloneRun(double seconds, long cpuNanos, String failure) {
  /** The first line of {@code rclone version}, or why it could not run. */
  static String version() {
    try {
      Process p = new ProcessBuilder("rclone", "version").redirectErrorStream(true).start();
      String version = new String(p.getInputStream().readAllBytes()).lines().findFirst().orElse("rclone");
      p.waitFor();
      return version;
    } catch (IOException e) {
      return "rclone not installed (apt-get install -y rclone): " + e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  /**
   * Copies {@code dir} to {@code bucketPath} ({@code bucket/prefix}) of {@code endpoint}.
   *
   * @param flags the transfer flags, e.g. {@code --transfers 4 --s3-upload-cutoff 16M}
   */
  static RcloneRun copy(Path dir, URI endpoint, String bucketPath, String accessKey, String secretKey,
      List<String> flags) throws InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("rclone", "copy", dir.toString(), ":s3:" + bucketPath,
        "--s3-provider", "Other", "--s3-endpoint", endpoint.toString(), "--s3-access-key-id", accessKey,
        "--s3-secret-access-key", secretKey, "--s3-region", "us-east-1", "--s3-force-path-style=true",
        "--no-check-dest", "--config", "/dev/null"));
    cmd.addAll(flags);
    ProcessBuilder builder = new ProcessBuilder(cmd).redirectErrorStream(true);
    builder.environment().keySet().removeIf(k -> k.startsWith("AWS_") || k.startsWith("RCLONE_"));
    long cpu = CpuUse.reapedChildrenNanos();
    long start = System.nanoTime();
    try {
      Process p = builder.start();
      String out = new String(p.getInputStream().readAllBytes());
      boolean exited = p.waitFor(30, TimeUnit.MINUTES);
      double seconds = (System.nanoTime() - start) / 1e9;
      if (!exited || p.exitValue() != 0) {
        p.destroyForcibly();
        return new RcloneRun(-1, -1, "rclone failed: " + out.strip());
      }
      long after = CpuUse.reapedChildrenNanos();
      return new RcloneRun(seconds, cpu < 0 || after < 0 ? -1 : after - cpu, "");
    } catch (IOException e) {
      return new RcloneRun(-1, -1, "rclone did not run: " + e.getMessage());
    }
  }

  boolean failed() {
    return seconds < 0;
  }
}
