package dev.segmentledger.spring;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code segment-ledger.console.*}: the operations console the starter serves when enabled, to
 * authenticated users with a role, with Spring Security. Mutable for binding; read once at start-up.
 */
@ConfigurationProperties(prefix = SegmentLedgerConsoleProperties.PREFIX)
public class SegmentLedgerConsoleProperties {
  /** The prefix of these properties. */
  public static final String PREFIX = "segment-ledger.console";

  /** Serve the console (needs Spring Security and a servlet web application). */
  private boolean enabled = false;
  /** Where the console is mounted, below the servlet context path. */
  private String path = "/segment-ledger";
  /** The role a user needs (without the ROLE_ prefix). */
  private String role = "SEGMENT_LEDGER_OPERATOR";
  /** Let operators re-open terminal rows (after a confirmation page) and repair in reconcile steps. */
  private boolean reopenEnabled = false;
  /** Where the player reads playlists and segments, through this application: the bucket's HTTP address. */
  private String mediaBaseUrl;
  /** hls.min.js (npm package hls.js), served by the console itself. */
  private String hlsJs;
  /** Where browsers load hls.js from instead of hls-js (an https URL). */
  private String hlsJsUrl;

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public String getPath() {
    return path;
  }

  public void setPath(String path) {
    this.path = path;
  }

  public String getRole() {
    return role;
  }

  public void setRole(String role) {
    this.role = role;
  }

  public boolean isReopenEnabled() {
    return reopenEnabled;
  }

  public void setReopenEnabled(boolean reopenEnabled) {
    this.reopenEnabled = reopenEnabled;
  }

  public String getMediaBaseUrl() {
    return mediaBaseUrl;
  }

  public void setMediaBaseUrl(String mediaBaseUrl) {
    this.mediaBaseUrl = mediaBaseUrl;
  }

  public String getHlsJs() {
    return hlsJs;
  }

  public void setHlsJs(String hlsJs) {
    this.hlsJs = hlsJs;
  }

  public String getHlsJsUrl() {
    return hlsJsUrl;
  }

  public void setHlsJsUrl(String hlsJsUrl) {
    this.hlsJsUrl = hlsJsUrl;
  }
}
