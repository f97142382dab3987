package com.mace;

/**
 * One CPU thread pool for every engine whose {@link MaceEngine.Config} is
 * given this context (docs/how-to/pipelines.md). Engines keep the native context
 * alive, so it may be closed once they are created.
 */
public final class MaceContext implements AutoCloseable {
  private long handle;

  /** threads: -1 for one per core the affinity policy allows. */
  public MaceContext(int threads, MaceEngine.CpuAffinity affinity) {
    if (affinity == null) {
      throw new MaceException(MaceException.Status.INVALID_ARGS, "affinity is null");
    }
    handle = NativeMace.contextCreate(threads, affinity.ordinal());
  }

  /** The threads of the pool, the calling thread included. */
  public synchronized int getThreads() {
    return NativeMace.contextNumThreads(live());
  }

  /** Bytes of the CPU arena the context's engines share, as now laid out. */
  public synchronized long getArenaBytes() {
    return NativeMace.contextArenaBytes(live());
  }

  synchronized long live() {
    if (handle == 0) {
      throw new MaceException(MaceException.Status.INVALID_ARGS, "the context is closed");
    }
    return handle;
  }

  @Override
  public synchronized void close() {
    if (handle != 0) {
      NativeMace.contextDestroy(handle);
      handle = 0;
    }
  }
}
