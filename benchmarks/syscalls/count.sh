#!/usr/bin/env bash
# Counts the system calls of the upload's open of one registered file (PathGuard.open with the
# registered size and identity, then the close of the opened file), as benchmarks/results/
# syscalls-openat2.md reports them. Runs core's SyscallProbe under strace -f and prints, for each
# of 5 opens after a warm-up, the system calls the opening thread made between the probe's markers.
#
#   benchmarks/syscalls/count.sh JAVA_HOME [walk]
#
# Needs strace, and core's classes and test classes built with that JDK (on a JDK 22 or later the
# test classes hold the openat2 implementation):
#   JAVA_HOME=... ./mvnw -B -q -pl core -am test -Dtest=PathGuardTest -Dsurefire.failIfNoSpecifiedTests=false
# "walk" keeps the Java 17 open on a JDK 22 or later.
set -euo pipefail
cd "$(dirname "$0")/../.."
java_home="$1"
mode="${2:-}"
slf4j="$(find "${HOME}/.m2/repository/org/slf4j/slf4j-api" -name 'slf4j-api-2.*.jar' | sort -V | tail -1)"
trace="$(mktemp)"
trap 'rm -f "$trace"' EXIT
native=""
"$java_home/bin/java" -version 2>&1 | grep -q '"17' || native="--enable-native-access=ALL-UNNAMED"
strace -f -qq -o "$trace" "$java_home/bin/java" $native \
  -cp core/target/test-classes:core/target/classes:"$slf4j" dev.segmentledger.core.internal.SyscallProbe $mode \
  2>/dev/null
"$java_home/bin/java" -version 2>&1 | head -1
echo "kernel $(uname -r)"
for i in 0 1 2 3 4; do
  # the thread that made the begin marker, and its calls up to its end marker (a call strace
  # shows in two lines, unfinished and resumed, counted once)
  tid="$(grep -m1 "segment-ledger-probe-begin-$i\"" "$trace" | awk '{print $1}')"
  calls="$(awk -v tid="$tid" -v b="segment-ledger-probe-begin-$i\"" -v e="segment-ledger-probe-end-$i\"" '
    $1 == tid && index($0, b) { on = 1; next }
    $1 == tid && index($0, e) { exit }
    on && $1 == tid && !index($0, "resumed>") { sub(/^[0-9]+ +/, ""); sub(/\(.*/, ""); print }' "$trace")"
  echo "item $i: $(printf '%s\n' "$calls" | grep -c .) calls: $(printf '%s\n' "$calls" | tr '\n' ' ')"
done
