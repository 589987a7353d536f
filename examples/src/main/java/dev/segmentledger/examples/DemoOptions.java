package dev.segmentledger.examples;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The demo's settings: {@code --name=value} arguments, else environment variables, else embedded
 * defaults (embedded PostgreSQL 16, an in-process S3 server storing under the data folder).
 *
 * @param dataDir where recordings, the embedded bucket and the playlist go
 * @param jdbcUrl a real PostgreSQL ({@code --jdbc-url} / {@code SEGMENT_LEDGER_JDBC_URL}); null: embedded
 * @param jdbcUser its user ({@code --jdbc-user} / {@code SEGMENT_LEDGER_JDBC_USER})
 * @param jdbcPassword its password ({@code --jdbc-password} / {@code SEGMENT_LEDGER_JDBC_PASSWORD})
 * @param s3Endpoint a real S3 endpoint ({@code --s3-endpoint} / {@code SEGMENT_LEDGER_S3_ENDPOINT});
 *     null: in-process S3Proxy. Credentials then come from the AWS SDK's default chain.
 * @param bucket the bucket ({@code --bucket} / {@code SEGMENT_LEDGER_S3_BUCKET}), default {@code recordings}
 * @param region the region ({@code --region} / {@code AWS_REGION}), default {@code us-east-1}
 * @param serve {@code --serve=true}: keep the embedded servers up after the run, so that the printed
 *     playlist URL can be opened in a player, until the demo is stopped
 */
record DemoOptions(Path dataDir, String jdbcUrl, String jdbcUser, String jdbcPassword, URI s3Endpoint, String bucket,
    String region, boolean serve) {

  static DemoOptions parse(List<String> args, Map<String, String> env) {
    Map<String, String> given = Args.parse(args.toArray(String[]::new));
    String endpoint = pick(given, "s3-endpoint", env, "SEGMENT_LEDGER_S3_ENDPOINT", null);
    return new DemoOptions(
        Path.of(pick(given, "data-dir", env, "SEGMENT_LEDGER_DEMO_DIR", "demo-data")).toAbsolutePath(),
        pick(given, "jdbc-url", env, "SEGMENT_LEDGER_JDBC_URL", null),
        pick(given, "jdbc-user", env, "SEGMENT_LEDGER_JDBC_USER", ""),
        pick(given, "jdbc-password", env, "SEGMENT_LEDGER_JDBC_PASSWORD", ""),
        endpoint == null ? null : URI.create(endpoint),
        pick(given, "bucket", env, "SEGMENT_LEDGER_S3_BUCKET", "recordings"),
        pick(given, "region", env, "AWS_REGION", "us-east-1"),
        Boolean.parseBoolean(pick(given, "serve", env, "SEGMENT_LEDGER_DEMO_SERVE", "false")));
  }

  private static String pick(Map<String, String> given, String arg, Map<String, String> env, String var,
      String fallback) {
    String value = given.getOrDefault(arg, env.get(var));
    return value == null || value.isBlank() ? fallback : value;
  }
}
