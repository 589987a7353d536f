package dev.segmentledger.s3;

import java.util.concurrent.CompletableFuture;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.scheme.AwsV4AuthScheme;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.scheme.AuthScheme;
import software.amazon.awssdk.http.auth.spi.signer.AsyncSignRequest;
import software.amazon.awssdk.http.auth.spi.signer.AsyncSignedRequest;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignRequest;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.identity.spi.IdentityProvider;
import software.amazon.awssdk.identity.spi.IdentityProviders;

/**
 * An optional SigV4 auth scheme for S3 endpoints on plain {@code http://}: request bodies that
 * carry {@code Content-MD5} are sent with {@code x-amz-content-sha256: UNSIGNED-PAYLOAD}, as the SDK
 * already does over HTTPS, instead of the SDK's plain-HTTP default of signing every 128 KiB chunk
 * ({@code aws-chunked}, {@code STREAMING-AWS4-HMAC-SHA256-PAYLOAD}). Install it on your client:
 *
 * <pre>{@code
 * S3Client.builder().endpointOverride(URI.create("http://minio.internal:9000"))
 *     .putAuthScheme(ContentMd5Signing.authScheme())
 *     ...
 * }</pre>
 *
 * <p><b>Why the body stays protected.</b> Every body {@link S3ObjectSink} sends carries the MD5 of
 * exactly the bytes its checksum was taken from, as {@code Content-MD5}; S3 refuses a body with
 * another MD5 ({@code BadDigest}). {@code Content-MD5} is a signed header, so nobody on the path can
 * change it without invalidating the signature, and changing the body without changing its MD5
 * needs an MD5 second preimage. rclone uploads the same way on plain HTTP ({@code UNSIGNED-PAYLOAD}
 * with {@code Content-MD5}). What it saves on plain HTTP: a SHA-256 and an HMAC per chunk on the
 * client, the chunk framing on the wire, and the server's chunk decoding (S3Proxy 2.9 decodes
 * {@code aws-chunked} one byte at a time; in the upload benchmark that was most of the CPU).
 *
 * <p>Requests without {@code Content-MD5} or without a body, and every request over HTTPS, are
 * signed by the SDK's own {@link AwsV4HttpSigner} unchanged. The scheme replaces the client's
 * {@code aws.auth#sigv4} scheme; do not install it if you need the SDK's signed payloads on plain
 * HTTP for requests of your own that carry {@code Content-MD5}.
 *
 * <p><b>Why this class still exists.</b> It works around one SDK behaviour: the SDK's SigV4 signer
 * ({@code DefaultAwsV4HttpSigner}) signs the payload of every request whose URI scheme is
 * {@code http}, whatever {@link AwsV4HttpSigner#PAYLOAD_SIGNING_ENABLED} says (S3 sets it to
 * {@code false}, which the synchronous signer honours only over HTTPS). The SDK has no switch for
 * it: aws/aws-sdk-java-v2 issue #5103 ("unsigned-payload not supported for http requests": over
 * {@code http} a request with a body is always payload-signed) is still open.
 * {@code PlainHttpSettingsTest.bodyWithoutContentMd5IsStillSignedBySdk} shows
 * the behaviour on the SDK version this module is built with; delete this class once the SDK sends
 * {@code UNSIGNED-PAYLOAD} over plain HTTP on request. ({@code Expect: 100-continue}, the other
 * plain-HTTP cost, needs no helper: use the SDK's
 * {@code S3Configuration.builder().expectContinueEnabled(false)}.)
 */
public final class ContentMd5Signing {
  private static final String CONTENT_MD5 = "Content-MD5";
  private static final String HOST = "Host";

  private ContentMd5Signing() {}

  /** The scheme, for {@code S3Client.builder().putAuthScheme(...)}. */
  public static AuthScheme<AwsCredentialsIdentity> authScheme() {
    return new Scheme(new Signer(AwsV4HttpSigner.create()));
  }

  private record Scheme(HttpSigner<AwsCredentialsIdentity> signer) implements AuthScheme<AwsCredentialsIdentity> {
    @Override
    public String schemeId() {
      return AwsV4AuthScheme.SCHEME_ID;
    }

    @Override
    public IdentityProvider<AwsCredentialsIdentity> identityProvider(IdentityProviders providers) {
      return providers.identityProvider(AwsCredentialsIdentity.class);
    }
  }

  /**
   * Delegates to the SDK's signer. For a plain-HTTP request with a body and {@code Content-MD5}, it
   * hands the signer the request as if it were HTTPS with payload signing off (the scheme is not part
   * of a SigV4 signature; the Host header is fixed first so that the port is the HTTP one), then puts
   * the scheme back.
   */
  static final class Signer implements HttpSigner<AwsCredentialsIdentity> {
    private final AwsV4HttpSigner delegate;

    Signer(AwsV4HttpSigner delegate) {
      this.delegate = delegate;
    }

    @Override
    public SignedRequest sign(SignRequest<? extends AwsCredentialsIdentity> request) {
      SdkHttpRequest http = request.request();
      if (!coveredByContentMd5(http, request.payload().isPresent())) {
        return delegate.sign(request);
      }
      SdkHttpRequest.Builder asHttps = http.toBuilder().protocol("https");
      if (http.firstMatchingHeader(HOST).isEmpty()) {
        asHttps.putHeader(HOST, hostHeader(http));
      }
      @SuppressWarnings("unchecked")
      SignRequest<AwsCredentialsIdentity> same = (SignRequest<AwsCredentialsIdentity>) request;
      SignedRequest signed = delegate.sign(same.toBuilder()
          .request(asHttps.build())
          .putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, false)
          .build());
      return signed.toBuilder().request(signed.request().toBuilder().protocol(http.protocol()).build()).build();
    }

    /** Asynchronous clients are signed by the SDK unchanged (they already skip payload signing here). */
    @Override
    public CompletableFuture<AsyncSignedRequest> signAsync(AsyncSignRequest<? extends AwsCredentialsIdentity> request) {
      return delegate.signAsync(request);
    }

    static boolean coveredByContentMd5(SdkHttpRequest http, boolean hasPayload) {
      return "http".equalsIgnoreCase(http.protocol()) && hasPayload
          && http.firstMatchingHeader(CONTENT_MD5).filter(v -> !v.isBlank()).isPresent();
    }

    /** The Host header the HTTP client sends for this request: the port only when it is not 80. */
    static String hostHeader(SdkHttpRequest http) {
      return http.port() == 80 || http.port() < 0 ? http.host() : http.host() + ":" + http.port();
    }
  }
}
