package dev.segmentledger.testkit;

import dev.segmentledger.core.StoreException;
import dev.segmentledger.core.StoreException.Outcome;
import dev.segmentledger.core.spi.StateStore;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link StateStore} that forwards every call to another store and fails a fraction of them at
 * random, with both outcomes a real store reports when its database blips or fails over:
 *
 * <ul>
 *   <li>{@link Outcome#NOT_WRITTEN}: thrown <em>before</em> the call is forwarded, so nothing of
 *       it happened (a connection refused, an error answer before the commit);
 *   <li>{@link Outcome#UNKNOWN}: thrown <em>after</em> the call was forwarded and returned, so
 *       everything of it happened and the caller does not know (the reply to a commit was lost).
 * </ul>
 *
 * Half the faults are of each kind. Every call that reaches the database can fail: registrations,
 * reads, claims, renewals, confirms, failures, releases. {@link StateStore#playlists()} (a view,
 * not a call) and {@link Object} methods are forwarded unharmed. Counts what it injected.
 * Thread-safe if the store it wraps is.
 */
public final class FaultyStateStore implements InvocationHandler {
  private final StateStore store;
  private volatile double failureRate;
  private final AtomicLong calls = new AtomicLong();
  private final AtomicLong notWritten = new AtomicLong();
  private final AtomicLong unknown = new AtomicLong();

  private FaultyStateStore(StateStore store, double failureRate) {
    this.store = Objects.requireNonNull(store, "store");
    failureRate(failureRate);
  }

  /** Wraps {@code store}, failing each call with probability {@code failureRate}. */
  public static FaultyStateStore wrap(StateStore store, double failureRate) {
    return new FaultyStateStore(store, failureRate);
  }

  /** The store to hand to the ledger: every call goes through this wrapper. */
  public StateStore store() {
    return (StateStore) Proxy.newProxyInstance(StateStore.class.getClassLoader(), new Class<?>[] {StateStore.class},
        this);
  }

  /** From now on fails each call with probability {@code failureRate} (0 stops the faults). */
  public FaultyStateStore failureRate(double failureRate) {
    if (!(failureRate >= 0 && failureRate <= 1)) {
      throw new IllegalArgumentException("failureRate must be in [0, 1], got " + failureRate);
    }
    this.failureRate = failureRate;
    return this;
  }

  /** Calls that reached the wrapper (faulted or not). */
  public long calls() {
    return calls.get();
  }

  /** Calls failed with {@link Outcome#NOT_WRITTEN} before they were forwarded. */
  public long notWritten() {
    return notWritten.get();
  }

  /** Calls failed with {@link Outcome#UNKNOWN} after they were forwarded and had done their work. */
  public long unknown() {
    return unknown.get();
  }

  @Override
  public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
    if (method.getDeclaringClass() == Object.class || method.getName().equals("playlists")) {
      return forward(method, args);
    }
    calls.incrementAndGet();
    ThreadLocalRandom random = ThreadLocalRandom.current();
    boolean fails = random.nextDouble() < failureRate;
    if (fails && random.nextBoolean()) {
      notWritten.incrementAndGet();
      throw new StoreException("injected fault before " + method.getName() + " (nothing written)", null,
          Outcome.NOT_WRITTEN);
    }
    Object result = forward(method, args);
    if (fails) {
      unknown.incrementAndGet();
      throw new StoreException("injected fault after " + method.getName() + " committed (reply lost, outcome unknown)",
          null, Outcome.UNKNOWN);
    }
    return result;
  }

  private Object forward(Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(store, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  @Override
  public String toString() {
    return "FaultyStateStore[" + failureRate + " of calls to " + store + "]";
  }
}
