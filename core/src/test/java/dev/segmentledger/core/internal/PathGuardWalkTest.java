package dev.segmentledger.core.internal;

/**
 * Every {@link PathGuardTest} with the open of Java 17 (the walk from the held root), which is also
 * what a JDK 22 or later uses where native access is not enabled or the kernel refuses
 * {@code openat2}: on such a JDK both opens are tested, on Java 17 this one twice.
 */
class PathGuardWalkTest extends PathGuardTest {
  @Override
  boolean openBeneath() {
    return false;
  }
}
