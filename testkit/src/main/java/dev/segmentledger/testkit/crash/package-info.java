/**
 * Crash testing: {@link dev.segmentledger.testkit.crash.CrashHooks} makes the process die at a
 * named {@link dev.segmentledger.testkit.crash.CrashPoint}, by {@code Runtime.halt} or by SIGKILL
 * from the parent ({@link dev.segmentledger.testkit.crash.CrashMode}), and
 * {@link dev.segmentledger.testkit.crash.ChildJvm} runs the code under test in a child JVM that the
 * test kills and starts again.
 */
package dev.segmentledger.testkit.crash;
