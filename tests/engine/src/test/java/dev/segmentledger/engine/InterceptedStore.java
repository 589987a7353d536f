package dev.segmentledger.engine;

import dev.segmentledger.core.StoreException;
import dev.segmentledger.core.StoreException.Outcome;
import dev.segmentledger.core.spi.PlaylistStore;
import dev.segmentledger.core.spi.StateStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link StateStore} that hands every call to an {@link Around}, which may carry it out on the
 * wrapped store, answer it otherwise, or throw: the engine tests' way to stage a fault of the store
 * at one call.
 */
final class InterceptedStore {
  /** What happens to one call; {@code proceed} carries it out on the wrapped store. */
  interface Around {
    Object call(String method, Object[] args, Callable<Object> proceed) throws Exception;
  }

  private InterceptedStore() {}

  static StateStore of(StateStore inner, Around around) {
    return (StateStore) Proxy.newProxyInstance(StateStore.class.getClassLoader(), new Class<?>[] {StateStore.class},
        (proxy, method, args) -> around.call(method.getName(), args, () -> {
          try {
            return method.invoke(inner, args);
          } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            throw cause instanceof Exception ? (Exception) cause : new RuntimeException(cause);
          }
        }));
  }

  /**
   * A {@link StateStore} whose {@link StateStore#playlists()} hands every call of the playlist store
   * to {@code around} (the other calls go to {@code inner} unchanged).
   */
  static StateStore playlists(StateStore inner, Around around) {
    PlaylistStore playlists = (PlaylistStore) Proxy.newProxyInstance(PlaylistStore.class.getClassLoader(),
        new Class<?>[] {PlaylistStore.class}, (proxy, method, args) -> around.call(method.getName(), args, () -> {
          try {
            return method.invoke(inner.playlists(), args);
          } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            throw cause instanceof Exception ? (Exception) cause : new RuntimeException(cause);
          }
        }));
    return of(inner, (method, args, proceed) -> method.equals("playlists") ? playlists : proceed.call());
  }

  /**
   * The first lease renewal ({@code renewAll} or {@code renewAllFor}) is carried out and then answered
   * with a {@link StoreException} of {@link Outcome#UNKNOWN}: written, its answer lost. Every renewal
   * is counted in {@code renewals}.
   */
  static StateStore firstRenewalAnswerLost(StateStore inner, AtomicInteger renewals) {
    return of(inner, (method, args, proceed) -> {
      Object result = proceed.call();
      if (method.startsWith("renewAll") && renewals.getAndIncrement() == 0) {
        throw new StoreException("injected: the renewal committed, its answer was lost", null, Outcome.UNKNOWN);
      }
      return result;
    });
  }
}
