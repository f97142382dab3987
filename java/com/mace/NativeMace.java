package com.mace;

import java.nio.Buffer;

/**
 * The JNI entry points of libmace_jni.so, one per C API call (mace_c.h). Every
 * method throws MaceException on failure. Only MaceEngine calls them.
 */
final class NativeMace {
  /** Names a libmace_jni.so to load by absolute path instead of loadLibrary. */
  static final String LIBRARY_PROPERTY = "mace.jni.library";

  static {
    String path = System.getProperty(LIBRARY_PROPERTY);
    if (path != null && !path.isEmpty()) {
      System.load(path);
    } else {
      System.loadLibrary("mace_jni");
    }
  }

  private NativeMace() {}

  static void load() {}

  static native String version();

  static native long configCreate(int device);

  static native void configDestroy(long config);

  static native void configSetCpuThreads(long config, int threads, int affinity);

  static native void configSetGpuHints(long config, int perf, int priority);

  static native void configSetGpuDataType(long config, int dataType);

  static native void configSetOpenclDeviceFallback(long config, boolean allow);

  static native void configSetOpenclCacheFile(long config, String path);

  static native void configSetCpuKernelFamily(long config, String family);

  static native void configSetHexagonOptions(long config, String emulatorPath, String imagePath,
      long callTimeoutMs);

  static native long engineCreateFromFiles(String graph, String weights, long config);

  static native long engineCreateFromDirect(Buffer graph, long graphOffset, long graphSize,
      Buffer weights, long weightsOffset, long weightsSize, long config);

  static native long engineCreateFromArrays(byte[] graph, byte[] weights, long config);

  static native void engineDestroy(long engine);

  static native String[] inputNames(long engine);

  static native String[] outputNames(long engine);

  static native long[] inputShape(long engine, String name);

  static native long[] inputMaxShape(long engine, String name);

  static native void setInputLongs(long engine, String name, long[] shape, long[] data);

  static native void setInputInts(long engine, String name, long[] shape, int[] data);

  static native void setInputBooleans(long engine, String name, long[] shape, boolean[] data);

  static native void setInputArray(long engine, String name, long[] shape, float[] data,
      int offset, int length);

  static native void setInputDirect(long engine, String name, long[] shape, Buffer data,
      long byteOffset, long byteLength);

  static native void clearInputs(long engine);

  static native void run(long engine);

  static native void runWithOptions(long engine, long timeoutMicros, long cancellation);

  static native long contextCreate(int threads, int affinity);

  static native void contextDestroy(long context);

  static native int contextNumThreads(long context);

  static native void configSetContext(long config, long context);

  static native void configSetSequentialGroup(long config, int group);

  static native long contextArenaBytes(long context);

  static native long cancellationCreate();

  static native void cancellationDestroy(long cancellation);

  static native void cancellationSet(long cancellation, boolean cancelled);

  static native int outputType(long engine, String name);

  static native long[] outputShape(long engine, String name);

  static native float[] outputFloats(long engine, String name);

  static native int[] outputInts(long engine, String name);

  static native long[] outputLongs(long engine, String name);

  static native boolean[] outputBooleans(long engine, String name);

  static native void outputToDirect(long engine, String name, Buffer dst, long byteOffset,
      long byteCapacity);

  static native String memoryReportJson(long engine);

  static native void resetState(long engine);
}
