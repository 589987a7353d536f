package dev.segmentledger.core.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The exceptions a user catches live in the API; the SPI's former names still link and still work:
 * what an adapter built against them throws is caught under the API's name, with the same outcome
 * or kind under both names.
 */
@SuppressWarnings("deprecation")
class DeprecatedExceptionNamesTest {
  @Test
  void aStoreFailureThrownUnderTheFormerNameIsTheApisWithTheSameOutcome() {
    RuntimeException thrown = new StoreException("down", null, StoreException.Outcome.NOT_WRITTEN);
    dev.segmentledger.core.StoreException caught = assertInstanceOf(dev.segmentledger.core.StoreException.class, thrown);
    assertEquals(dev.segmentledger.core.StoreException.Outcome.NOT_WRITTEN, caught.writeOutcome());
    assertFalse(caught.mayHaveWritten());
    assertEquals(StoreException.Outcome.NOT_WRITTEN, ((StoreException) thrown).outcome());
    assertEquals(dev.segmentledger.core.StoreException.Outcome.UNKNOWN,
        new StoreException("lost", null).writeOutcome());
  }

  @Test
  void aSinkFailureThrownUnderTheFormerNameIsTheApisWithTheSameKind() {
    SinkException thrown = SinkException.configuration("AccessDenied", null);
    dev.segmentledger.core.SinkException caught = thrown;
    assertEquals(dev.segmentledger.core.SinkException.Kind.CONFIGURATION, caught.failureKind());
    assertEquals(SinkException.Kind.CONFIGURATION, thrown.kind());
    assertTrue(caught.isRetryable());
    assertFalse(SinkException.permanent("refused", null).isRetryable());
    assertEquals(SinkException.Kind.TRANSIENT, SinkException.retryable("503", null).kind());
  }

  @Test
  void aQueryTimeoutWroteNothing() {
    dev.segmentledger.core.QueryTimeoutException api =
        new dev.segmentledger.core.QueryTimeoutException("slow", null, Duration.ofSeconds(1));
    assertFalse(api.mayHaveWritten());
    assertEquals(Duration.ofSeconds(1), api.bound());
  }
}
