package dev.segmentledger.core;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.SecureRandom;
import java.util.HexFormat;

/** Default ledger instance names: {@code <hostname>-<pid>-<8 hex digits>}. Thread-safe. */
final class NodeIds {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final int MAX_HOST = 120;

  private NodeIds() {}

  /** A new name, unique with overwhelming probability even for instances of one process. */
  static String generate() {
    byte[] random = new byte[4];
    RANDOM.nextBytes(random);
    return host() + "-" + ProcessHandle.current().pid() + "-" + HexFormat.of().formatHex(random);
  }

  private static String host() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException | SecurityException e) {
      host = "unknown-host";
    }
    return host.length() > MAX_HOST ? host.substring(0, MAX_HOST) : host;
  }
}
