package com.mace;

/**
 * A flag that stops the runs given it ({@link MaceEngine#run(long,
 * Cancellation)}) when any thread calls {@link #cancel()}; it stays set until
 * {@link #reset()}. Close it only after the runs using it have returned.
 */
public final class Cancellation implements AutoCloseable {
  private volatile long handle;

  public Cancellation() {
    handle = NativeMace.cancellationCreate();
  }

  public synchronized void cancel() {
    NativeMace.cancellationSet(live(), true);
  }

  public synchronized void reset() {
    NativeMace.cancellationSet(live(), false);
  }

  long live() {
    long current = handle;
    if (current == 0) {
      throw new MaceException(MaceException.Status.INVALID_ARGS, "the cancellation is closed");
    }
    return current;
  }

  @Override
  public synchronized void close() {
    if (handle != 0) {
      NativeMace.cancellationDestroy(handle);
      handle = 0;
    }
  }
}
