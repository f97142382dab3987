package com.mace;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;

/**
 * One loaded MACE model, over the C API (mace_c.h) through libmace_jni.so.
 *
 * <pre>{@code
 * try (MaceEngine engine = MaceEngine.create("m.pb", "m.data",
 *     new MaceEngine.Config().setCpuThreads(4, MaceEngine.CpuAffinity.BIG_ONLY))) {
 *   engine.setInput("input", pixels, 1, 224, 224, 3);
 *   engine.run();
 *   float[] scores = engine.getOutputFloats("output");
 * }
 * }</pre>
 *
 * <p>Every failure throws {@link MaceException} with the engine's status and
 * message: a null argument, a string holding a NUL character, a buffer of the
 * wrong size, an unknown input or output name, a model that cannot be loaded,
 * a closed engine. A run consumes the inputs set before it, so each run needs
 * every input set again; a refused input or run drops the inputs set so far.
 * The methods are
 * synchronized, so an engine may be shared by several threads (they take
 * turns); engines of their own run in parallel. {@link #close} frees the
 * native engine; it must be called (try-with-resources does it).
 */
public final class MaceEngine implements AutoCloseable {
  /** Where the model runs (the values of MaceCDevice). */
  public enum Device {
    CPU(0),
    GPU(2),
    HEXAGON(3);

    final int code;

    Device(int code) {
      this.code = code;
    }
  }

  /** Which CPU cores the thread pool binds to. */
  public enum CpuAffinity {
    NONE,
    BIG_ONLY,
    LITTLE_ONLY
  }

  /** OpenCL performance and priority hints. */
  public enum GpuHint {
    DEFAULT,
    LOW,
    NORMAL,
    HIGH
  }

  /** The GPU runtime's storage: half-float images, or float images. */
  public enum GpuDataType {
    FP16_FP32,
    FP32_FP32
  }

  /** The element type of an output (the values of MaceCDataType, in order). */
  public enum DataType {
    FLOAT32,
    INT32,
    UINT8,
    INT64,
    BOOL
  }

  /**
   * How an engine is created; every setting is optional. Setters return the
   * config, so calls chain.
   */
  public static final class Config {
    private Device device = Device.CPU;
    private Integer threads;
    private CpuAffinity affinity = CpuAffinity.NONE;
    private GpuHint perfHint;
    private GpuHint priorityHint;
    private GpuDataType gpuDataType;
    private Boolean openclDeviceFallback;
    private String openclCacheFile;
    private String cpuKernelFamily;
    private boolean hexagonOptionsSet;
    private String hexagonEmulatorPath;
    private String hexagonImagePath;
    private long hexagonCallTimeoutMs;
    private MaceContext context;
    private int sequentialGroup = -1;

    public Config() {}

    public Config(Device device) {
      setDevice(device);
    }

    public Config setDevice(Device device) {
      this.device = notNull(device, "device");
      return this;
    }

    /** threads: -1 for the default; affinity: the cores to bind to. */
    public Config setCpuThreads(int threads, CpuAffinity affinity) {
      this.threads = threads;
      this.affinity = notNull(affinity, "affinity");
      return this;
    }

    public Config setGpuHints(GpuHint perf, GpuHint priority) {
      this.perfHint = notNull(perf, "perf hint");
      this.priorityHint = notNull(priority, "priority hint");
      return this;
    }

    public Config setGpuDataType(GpuDataType type) {
      this.gpuDataType = notNull(type, "GPU data type");
      return this;
    }

    /** Lets a GPU engine use an OpenCL device that is not a GPU. */
    public Config setOpenclDeviceFallback(boolean allow) {
      this.openclDeviceFallback = allow;
      return this;
    }

    /** The compiled-program cache of the GPU runtime (null for none). */
    public Config setOpenclCacheFile(String path) {
      this.openclCacheFile = path == null ? null : text(path, "OpenCL cache file");
      return this;
    }

    /** "auto", "ref", "neon", "avx2" or "avx512". */
    public Config setCpuKernelFamily(String family) {
      this.cpuKernelFamily = text(family, "kernel family");
      return this;
    }

    /**
     * The emulated Hexagon DSP of a {@link Device#HEXAGON} engine: the
     * qemu-hexagon binary, the DSP image (dsp_runtime.elf) and the deadline
     * of each call to the DSP in milliseconds. A null or empty path, or a
     * timeout of 0, takes the default (MACE_QEMU_HEXAGON or qemu-hexagon on
     * PATH, MACE_DSP_RUNTIME, MACE_DSP_TIMEOUT_MS or 30,000 ms). Checked
     * when the engine is created: a timeout below 0 or above a day is
     * INVALID_ARGS, an emulator or image that does not exist UNSUPPORTED
     * naming the path, and a DSP that does not answer in time RUNTIME_ERROR.
     */
    public Config setHexagonOptions(String emulatorPath, String imagePath, long callTimeoutMs) {
      this.hexagonEmulatorPath = emulatorPath == null ? null : text(emulatorPath,
          "Hexagon emulator path");
      this.hexagonImagePath = imagePath == null ? null : text(imagePath, "DSP image path");
      this.hexagonOptionsSet = true;
      this.hexagonCallTimeoutMs = callTimeoutMs;
      return this;
    }

    /**
     * The shared context whose CPU thread pool the engine uses (null: a pool
     * of its own); the engine keeps it alive (docs/how-to/pipelines.md).
     */
    public Config setContext(MaceContext context) {
      this.context = context;
      return this;
    }

    /**
     * The engine's sequential group in its context: engines of one group
     * (&gt;= 0) never run at the same time and share one arena region; -1
     * (the default) a region of its own.
     */
    public Config setSequentialGroup(int group) {
      this.sequentialGroup = group;
      return this;
    }

    /** A native config with these settings; the caller destroys it. */
    long toNative() {
      long handle = NativeMace.configCreate(device.code);
      try {
        if (threads != null) {
          NativeMace.configSetCpuThreads(handle, threads, affinity.ordinal());
        }
        if (perfHint != null) {
          NativeMace.configSetGpuHints(handle, perfHint.ordinal(), priorityHint.ordinal());
        }
        if (gpuDataType != null) {
          NativeMace.configSetGpuDataType(handle, gpuDataType.ordinal());
        }
        if (openclDeviceFallback != null) {
          NativeMace.configSetOpenclDeviceFallback(handle, openclDeviceFallback);
        }
        if (openclCacheFile != null) {
          NativeMace.configSetOpenclCacheFile(handle, openclCacheFile);
        }
        if (cpuKernelFamily != null) {
          NativeMace.configSetCpuKernelFamily(handle, cpuKernelFamily);
        }
        if (context != null) {
          NativeMace.configSetContext(handle, context.live());
          NativeMace.configSetSequentialGroup(handle, sequentialGroup);
        }
        if (hexagonOptionsSet) {
          NativeMace.configSetHexagonOptions(handle, hexagonEmulatorPath, hexagonImagePath,
              hexagonCallTimeoutMs);
        }
        return handle;
      } catch (RuntimeException | Error e) {
        NativeMace.configDestroy(handle);
        throw e;
      }
    }
  }

  private long handle;
  private final List<String> inputNames;
  private final List<String> outputNames;

  private MaceEngine(long handle) {
    this.handle = handle;
    try {
      inputNames = Collections.unmodifiableList(Arrays.asList(NativeMace.inputNames(handle)));
      outputNames = Collections.unmodifiableList(Arrays.asList(NativeMace.outputNames(handle)));
    } catch (RuntimeException | Error e) {
      NativeMace.engineDestroy(handle);
      throw e;
    }
  }

  /** The engine's version, e.g. "0.1.0". */
  public static String version() {
    return NativeMace.version();
  }

  /** Loads a model from its graph (.pb) and weights (.data) files. */
  public static MaceEngine create(String graphPath, String weightsPath, Config config) {
    text(graphPath, "graph path");
    text(weightsPath, "weights path");
    long nativeConfig = notNull(config, "config").toNative();
    try {
      return new MaceEngine(NativeMace.engineCreateFromFiles(graphPath, weightsPath,
          nativeConfig));
    } finally {
      NativeMace.configDestroy(nativeConfig);
    }
  }

  /**
   * Loads a model from memory (e.g. an app's assets): the bytes between each
   * buffer's position and limit. The buffers are copied and may be reused.
   */
  public static MaceEngine create(ByteBuffer graph, ByteBuffer weights, Config config) {
    notNull(graph, "graph buffer");
    notNull(weights, "weights buffer");
    long nativeConfig = notNull(config, "config").toNative();
    try {
      long engine;
      if (graph.isDirect() && weights.isDirect()) {
        engine = NativeMace.engineCreateFromDirect(graph, graph.position(), graph.remaining(),
            weights, weights.position(), weights.remaining(), nativeConfig);
      } else {
        engine = NativeMace.engineCreateFromArrays(bytes(graph), bytes(weights), nativeConfig);
      }
      return new MaceEngine(engine);
    } finally {
      NativeMace.configDestroy(nativeConfig);
    }
  }

  /** The model's inputs, in its order. */
  public List<String> getInputNames() {
    return inputNames;
  }

  /** The model's outputs, in its order. */
  public List<String> getOutputNames() {
    return outputNames;
  }

  /** The shape the model declares for an input. */
  public synchronized long[] getInputShape(String name) {
    return NativeMace.inputShape(live(), text(name, "input name"));
  }

  /**
   * The largest shape an input takes: a dimension larger here than in
   * {@link #getInputShape} is dynamic (any size from 1 to this one on the
   * CPU). Equal to the declared shape for a fixed input.
   */
  public synchronized long[] getInputMaxShape(String name) {
    return NativeMace.inputMaxShape(live(), text(name, "input name"));
  }

  /**
   * Sets an input the model declares int64 (e.g. token ids): {@code data}
   * holds exactly the elements of {@code shape}. A model computing in
   * float32 refuses, at {@link #run}, a value beyond +-2^24 (16777216)
   * rather than round it.
   */
  public synchronized void setInput(String name, long[] data, long... shape) {
    setting(engine -> NativeMace.setInputLongs(engine, text(name, "input name"),
        notNull(shape, "shape"), notNull(data, "input data")));
  }

  /** Sets an input the model declares int32; as the int64 variant. */
  public synchronized void setInput(String name, int[] data, long... shape) {
    setting(engine -> NativeMace.setInputInts(engine, text(name, "input name"),
        notNull(shape, "shape"), notNull(data, "input data")));
  }

  /** Sets an input the model declares bool. */
  public synchronized void setInput(String name, boolean[] data, long... shape) {
    setting(engine -> NativeMace.setInputBooleans(engine, text(name, "input name"),
        notNull(shape, "shape"), notNull(data, "input data")));
  }

  /**
   * Sets an input: {@code data} holds exactly the elements of {@code shape},
   * which must be the model's. The values are copied.
   */
  public synchronized void setInput(String name, float[] data, long... shape) {
    setting(engine -> NativeMace.setInputArray(engine, text(name, "input name"),
        notNull(shape, "shape"), notNull(data, "input data"), 0, data.length));
  }

  /**
   * Sets an input from the floats between the buffer's position and limit
   * (direct buffers in native order are read in place, others copied). The
   * buffer's position is not changed.
   */
  public synchronized void setInput(String name, FloatBuffer data, long... shape) {
    setting(engine -> {
      text(name, "input name");
      notNull(data, "input data");
      notNull(shape, "shape");
      if (data.isDirect() && data.order() == ByteOrder.nativeOrder()) {
        NativeMace.setInputDirect(engine, name, shape, data, 4L * data.position(),
            4L * data.remaining());
      } else if (data.hasArray()) {
        NativeMace.setInputArray(engine, name, shape, data.array(),
            data.arrayOffset() + data.position(), data.remaining());
      } else {
        float[] copy = new float[data.remaining()];
        data.duplicate().get(copy);
        NativeMace.setInputArray(engine, name, shape, copy, 0, copy.length);
      }
    });
  }

  /**
   * Runs one setInput on the live engine; a refused input drops every input
   * set since the last run, here as in the C API, so no call after an error
   * computes with part of an earlier call's inputs.
   */
  private void setting(LongConsumer body) {
    long engine = live();
    try {
      body.accept(engine);
    } catch (RuntimeException | Error e) {
      NativeMace.clearInputs(engine);
      throw e;
    }
  }

  /**
   * Runs the model on the inputs set since the last run, and consumes them:
   * an input not set again since the last run is INVALID_ARGS naming it.
   */
  public synchronized void run() {
    NativeMace.run(live());
  }

  /**
   * {@link #run()} bounded by {@code timeoutMicros} (0: no limit) and by
   * {@code cancellation} (may be null), which another thread may cancel: a
   * stopped run throws MaceException with status DEADLINE_EXCEEDED or
   * CANCELLED, and the engine is ready for the next run.
   */
  public synchronized void run(long timeoutMicros, Cancellation cancellation) {
    NativeMace.runWithOptions(live(), timeoutMicros,
        cancellation == null ? 0 : cancellation.live());
  }

  /**
   * Sets each input, with the shape the model declares for it, and runs.
   * {@code inputs} holds exactly the model's inputs; a missing, unknown or
   * null one is refused before any is set.
   */
  public synchronized void run(Map<String, float[]> inputs) {
    checkInputs(inputs);
    for (Map.Entry<String, float[]> input : inputs.entrySet()) {
      setInput(input.getKey(), input.getValue(), getInputShape(input.getKey()));
    }
    run();
  }

  /**
   * Sets each input from a buffer, with the model's shape, runs, and writes
   * each requested float32 output into its buffer (from its position, which
   * is not changed).
   */
  public synchronized void run(Map<String, ? extends FloatBuffer> inputs,
      Map<String, ? extends FloatBuffer> outputs) {
    checkInputs(inputs);
    for (Map.Entry<String, ? extends FloatBuffer> output : notNull(outputs, "outputs")
        .entrySet()) {
      text(output.getKey(), "output name");
      notNull(output.getValue(), "output buffer");
    }
    for (Map.Entry<String, ? extends FloatBuffer> input : inputs.entrySet()) {
      setInput(input.getKey(), input.getValue(), getInputShape(input.getKey()));
    }
    run();
    for (Map.Entry<String, ? extends FloatBuffer> output : outputs.entrySet()) {
      readOutput(output.getKey(), output.getValue());
    }
  }

  /** The element type of an output of the last run. */
  public synchronized DataType getOutputType(String name) {
    return DataType.values()[NativeMace.outputType(live(), text(name, "output name"))];
  }

  /** The shape of an output of the last run. */
  public synchronized long[] getOutputShape(String name) {
    return NativeMace.outputShape(live(), text(name, "output name"));
  }

  /** A float32 output of the last run. */
  public synchronized float[] getOutputFloats(String name) {
    return NativeMace.outputFloats(live(), text(name, "output name"));
  }

  /** An int32 output of the last run (e.g. ArgMax indices). */
  public synchronized int[] getOutputInts(String name) {
    return NativeMace.outputInts(live(), text(name, "output name"));
  }

  /** An int64 output of the last run. */
  public synchronized long[] getOutputLongs(String name) {
    return NativeMace.outputLongs(live(), text(name, "output name"));
  }

  /** A bool output of the last run. */
  public synchronized boolean[] getOutputBooleans(String name) {
    return NativeMace.outputBooleans(live(), text(name, "output name"));
  }

  /**
   * Writes a float32 output of the last run into {@code dst}, from its
   * position, which is not changed; it must have room for every element.
   */
  public synchronized void readOutput(String name, FloatBuffer dst) {
    long engine = live();
    text(name, "output name");
    notNull(dst, "output buffer");
    if (dst.isReadOnly()) {
      throw new MaceException(MaceException.Status.INVALID_ARGS, "the output buffer is read-only");
    }
    if (dst.isDirect() && dst.order() == ByteOrder.nativeOrder()) {
      NativeMace.outputToDirect(engine, name, dst, 4L * dst.position(), 4L * dst.remaining());
      return;
    }
    float[] values = NativeMace.outputFloats(engine, name);
    if (values.length > dst.remaining()) {
      throw new MaceException(MaceException.Status.INVALID_ARGS, "the output buffer has room for "
          + dst.remaining() + " floats, output '" + name + "' has " + values.length);
    }
    dst.duplicate().put(values);
  }

  /** The memory plan (arena, weights, naive and lower-bound bytes) as JSON. */
  public synchronized String getMemoryReportJson() {
    return NativeMace.memoryReportJson(live());
  }

  /**
   * Gives every state tensor of a streaming model its initial value again
   * (docs/how-to/streaming_state.md); a model without state has nothing to
   * reset.
   */
  public synchronized void resetState() {
    NativeMace.resetState(live());
  }

  /** Frees the native engine. Calling it again does nothing. */
  @Override
  public synchronized void close() {
    if (handle != 0) {
      NativeMace.engineDestroy(handle);
      handle = 0;
    }
  }

  public synchronized boolean isClosed() {
    return handle == 0;
  }

  private long live() {
    if (handle == 0) {
      throw new MaceException(MaceException.Status.INVALID_ARGS, "the engine is closed");
    }
    return handle;
  }

  /** Exactly the model's inputs, each with a value, or a MaceException. */
  private void checkInputs(Map<String, ?> inputs) {
    for (Map.Entry<String, ?> input : notNull(inputs, "inputs").entrySet()) {
      String name = text(input.getKey(), "input name");
      if (!inputNames.contains(name)) {
        throw new MaceException(MaceException.Status.INVALID_ARGS,
            "'" + name + "' is not an input of the model; it takes " + inputNames);
      }
      notNull(input.getValue(), "value of input '" + name + "'");
    }
    for (String name : inputNames) {
      if (!inputs.containsKey(name)) {
        throw new MaceException(MaceException.Status.INVALID_ARGS,
            "input '" + name + "' is missing; every run takes all of " + inputNames);
      }
    }
  }

  /**
   * A string for the C API, which reads up to the first NUL: one inside the
   * string is refused rather than cut off there.
   */
  private static String text(String value, String what) {
    if (notNull(value, what).indexOf('\0') >= 0) {
      throw new MaceException(MaceException.Status.INVALID_ARGS,
          "the " + what + " holds a NUL character");
    }
    return value;
  }

  private static byte[] bytes(ByteBuffer buffer) {
    byte[] copy = new byte[buffer.remaining()];
    buffer.duplicate().get(copy);
    return copy;
  }

  private static <T> T notNull(T value, String what) {
    if (value == null) {
      throw new MaceException(MaceException.Status.INVALID_ARGS, "the " + what + " is null");
    }
    return value;
  }
}
