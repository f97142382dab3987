package com.mace;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

/**
 * The Java API on the host JVM, over the small model of
 * test/c_api_model_gen.cc (input x [1,2,3,3]; y = relu(W x + b) per pixel,
 * float32; idx = argmax over the channels, int32): results against a
 * computation written here and against mace_run's output, every input and
 * output path, every error path, and several threads.
 *
 * System properties: mace.test.graph, mace.test.weights, mace.test.mace_run.
 */
public class MaceEngineTest {
  private static final long[] SHAPE = {1, 2, 3, 3};
  private static final int COUNT = 18;
  private static final float[][] W = {{1.0f, 2.0f}, {-1.0f, 0.5f}};
  private static final float[] B = {0.5f, -0.25f};

  private final String graph = System.getProperty("mace.test.graph");
  private final String weights = System.getProperty("mace.test.weights");
  private MaceEngine engine;
  private float[] x;

  @Before
  public void setUp() {
    x = randomInput(new Random(5));
    engine = MaceEngine.create(graph, weights,
        new MaceEngine.Config().setCpuThreads(1, MaceEngine.CpuAffinity.NONE));
  }

  @After
  public void tearDown() {
    engine.close();
  }

  private static float[] randomInput(Random random) {
    float[] values = new float[COUNT];
    for (int i = 0; i < COUNT; ++i) values[i] = (float) random.nextGaussian();
    return values;
  }

  /** y = relu(W x + b) per pixel, NCHW. */
  private static float[] expectedY(float[] in) {
    float[] y = new float[COUNT];
    for (int o = 0; o < 2; ++o) {
      for (int p = 0; p < 9; ++p) {
        float sum = B[o];
        for (int c = 0; c < 2; ++c) sum += W[o][c] * in[c * 9 + p];
        y[o * 9 + p] = Math.max(sum, 0.0f);
      }
    }
    return y;
  }

  /** The channel of the larger value per pixel (the first on ties). */
  private static int[] expectedIdx(float[] in) {
    int[] idx = new int[9];
    for (int p = 0; p < 9; ++p) idx[p] = in[9 + p] > in[p] ? 1 : 0;
    return idx;
  }

  private void assertOutputs(MaceEngine e, float[] in) {
    assertArrayEquals(expectedY(in), e.getOutputFloats("y"), 1e-6f);
    assertArrayEquals(expectedIdx(in), e.getOutputInts("idx"));
  }

  private static MaceException assertFails(MaceException.Status status, String fragment,
      Runnable call) {
    try {
      call.run();
    } catch (MaceException e) {
      assertEquals(e.getMessage(), status, e.getStatus());
      assertTrue("'" + e.getMessage() + "' lacks '" + fragment + "'",
          e.getMessage().contains(fragment));
      return e;
    }
    fail("no MaceException; expected " + status + " '" + fragment + "'");
    return null;
  }

  // ---- Results ----------------------------------------------------------

  @Test
  public void describesTheModel() {
    assertFalse(MaceEngine.version().isEmpty());
    assertEquals(Arrays.asList("x"), engine.getInputNames());
    assertEquals(Arrays.asList("y", "idx"), engine.getOutputNames());
    assertArrayEquals(SHAPE, engine.getInputShape("x"));
  }

  @Test
  public void runsFloatArrays() {
    engine.setInput("x", x, SHAPE);
    engine.run();
    assertOutputs(engine, x);
    assertEquals(MaceEngine.DataType.FLOAT32, engine.getOutputType("y"));
    assertEquals(MaceEngine.DataType.INT32, engine.getOutputType("idx"));
    assertArrayEquals(SHAPE, engine.getOutputShape("y"));
    assertArrayEquals(new long[] {1, 1, 3, 3}, engine.getOutputShape("idx"));
    // A run consumes its inputs: a second one without them is refused.
    assertFails(MaceException.Status.INVALID_ARGS,
        "input 'x' has not been set since the last run", () -> engine.run());
    engine.setInput("x", x, SHAPE);
    engine.run();
    assertOutputs(engine, x);
  }

  @Test
  public void runsMaps() {
    Map<String, float[]> inputs = new HashMap<>();
    inputs.put("x", x);
    engine.run(inputs);
    assertOutputs(engine, x);

    FloatBuffer in = FloatBuffer.wrap(x);
    FloatBuffer out = ByteBuffer.allocateDirect(4 * COUNT).order(ByteOrder.nativeOrder())
        .asFloatBuffer();
    engine.run(Collections.singletonMap("x", in), Collections.singletonMap("y", out));
    float[] y = new float[COUNT];
    out.get(y);
    assertArrayEquals(expectedY(x), y, 1e-6f);
  }

  @Test
  public void readsEveryKindOfFloatBuffer() {
    List<FloatBuffer> inputs = new ArrayList<>();
    inputs.add(ByteBuffer.allocateDirect(4 * COUNT).order(ByteOrder.nativeOrder())
        .asFloatBuffer().put(x));
    inputs.add(ByteBuffer.allocateDirect(4 * COUNT).order(ByteOrder.BIG_ENDIAN)
        .asFloatBuffer().put(x));
    inputs.add(FloatBuffer.allocate(COUNT).put(x));
    inputs.add(FloatBuffer.wrap(x).asReadOnlyBuffer());
    // The floats from the position on, at an offset inside a larger array.
    float[] padded = new float[COUNT + 5];
    System.arraycopy(x, 0, padded, 3, COUNT);
    inputs.add(FloatBuffer.wrap(padded, 3, COUNT).slice());
    FloatBuffer positioned = ByteBuffer.allocateDirect(4 * (COUNT + 2))
        .order(ByteOrder.nativeOrder()).asFloatBuffer();
    positioned.put(new float[] {9, 9}).put(x);
    positioned.position(2);
    inputs.add(positioned);
    for (FloatBuffer input : inputs) {
      if (input.position() == COUNT) input.flip();
      int before = input.position();
      // Zeros first, so an input that was not taken would show.
      engine.setInput("x", new float[COUNT], SHAPE);
      engine.setInput("x", input, SHAPE);
      assertEquals(before, input.position());
      engine.run();
      assertOutputs(engine, x);
    }
  }

  @Test
  public void writesEveryKindOfFloatBuffer() {
    engine.setInput("x", x, SHAPE);
    engine.run();
    float[] want = expectedY(x);
    FloatBuffer[] outputs = {
        ByteBuffer.allocateDirect(4 * COUNT + 8).order(ByteOrder.nativeOrder()).asFloatBuffer(),
        ByteBuffer.allocateDirect(4 * COUNT + 8).order(ByteOrder.BIG_ENDIAN).asFloatBuffer(),
        FloatBuffer.allocate(COUNT + 2),
    };
    for (FloatBuffer out : outputs) {
      out.position(2);
      engine.readOutput("y", out);
      assertEquals(2, out.position());
      float[] got = new float[COUNT];
      out.get(got);
      assertArrayEquals(want, got, 1e-6f);
    }
  }

  @Test
  public void loadsFromByteBuffers() throws IOException {
    byte[] graphBytes = Files.readAllBytes(Paths.get(graph));
    byte[] weightBytes = Files.readAllBytes(Paths.get(weights));
    // Heap buffers, the model between position and limit.
    ByteBuffer heapGraph = ByteBuffer.allocate(graphBytes.length + 7);
    heapGraph.position(7);
    heapGraph.put(graphBytes).position(7);
    // Direct buffers.
    ByteBuffer directGraph = ByteBuffer.allocateDirect(graphBytes.length + 3);
    directGraph.position(3);
    directGraph.put(graphBytes).position(3);
    ByteBuffer directWeights = ByteBuffer.allocateDirect(weightBytes.length);
    directWeights.put(weightBytes).flip();
    MaceEngine.Config config = new MaceEngine.Config(MaceEngine.Device.CPU);
    try (MaceEngine heap = MaceEngine.create(heapGraph, ByteBuffer.wrap(weightBytes), config);
        MaceEngine direct = MaceEngine.create(directGraph, directWeights, config)) {
      for (MaceEngine e : new MaceEngine[] {heap, direct}) {
        e.setInput("x", x, SHAPE);
        e.run();
        assertOutputs(e, x);
      }
    }
    assertEquals(7, heapGraph.position());
  }

  @Test
  public void reportsMemory() {
    String json = engine.getMemoryReportJson();
    assertTrue(json, json.contains("\"arena_bytes\""));
    assertTrue(json, json.contains("CPU_BUFFER"));
    assertTrue(json, json.contains("\"state_bytes\": 0"));
    engine.resetState();  // a model without state tensors has nothing to reset
  }

  // ---- Against mace_run ---------------------------------------------------

  @Test
  public void matchesMaceRun() throws Exception {
    Path dir = Files.createTempDirectory("mace_run");
    Npy.write(dir.resolve("in_x.npy"), x, SHAPE);
    Process process = new ProcessBuilder(System.getProperty("mace.test.mace_run"),
        "--model_file=" + graph, "--model_data_file=" + weights,
        "--input_file=" + dir.resolve("in"), "--output_file=" + dir.resolve("out"),
        "--omp_num_threads=1")
        .redirectErrorStream(true).start();
    String log = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(log, 0, process.waitFor());

    engine.setInput("x", x, SHAPE);
    engine.run();
    Npy y = Npy.read(dir.resolve("out_y.npy"));
    assertEquals("<f4", y.descr);
    assertArrayEquals(engine.getOutputShape("y"), y.shape);
    assertArrayEquals(engine.getOutputFloats("y"), y.floats(), 0.0f);
    Npy idx = Npy.read(dir.resolve("out_idx.npy"));
    assertEquals("<i4", idx.descr);
    assertArrayEquals(engine.getOutputShape("idx"), idx.shape);
    assertArrayEquals(engine.getOutputInts("idx"), idx.ints());
  }

  // ---- Errors -------------------------------------------------------------

  @Test
  public void closedEngineThrows() {
    engine.close();
    assertTrue(engine.isClosed());
    engine.close();  // twice is fine
    MaceException.Status bad = MaceException.Status.INVALID_ARGS;
    assertFails(bad, "closed", () -> engine.setInput("x", x, SHAPE));
    assertFails(bad, "closed", () -> engine.setInput("x", FloatBuffer.wrap(x), SHAPE));
    assertFails(bad, "closed", () -> engine.run());
    assertFails(bad, "closed", () -> engine.run(Collections.singletonMap("x", x)));
    assertFails(bad, "closed", () -> engine.getInputShape("x"));
    assertFails(bad, "closed", () -> engine.getOutputFloats("y"));
    assertFails(bad, "closed", () -> engine.getOutputInts("idx"));
    assertFails(bad, "closed", () -> engine.getOutputShape("y"));
    assertFails(bad, "closed", () -> engine.getOutputType("y"));
    assertFails(bad, "closed", () -> engine.readOutput("y", FloatBuffer.allocate(COUNT)));
    assertFails(bad, "closed", () -> engine.getMemoryReportJson());
    assertFails(bad, "closed", () -> engine.resetState());
  }

  @Test
  public void nullHandlesAtTheNativeLayerThrow() {
    MaceException.Status bad = MaceException.Status.INVALID_ARGS;
    assertFails(bad, "null engine", () -> NativeMace.run(0));
    assertFails(bad, "null engine", () -> NativeMace.inputNames(0));
    assertFails(bad, "null engine", () -> NativeMace.outputFloats(0, "y"));
    assertFails(bad, "null engine", () -> NativeMace.setInputArray(0, "x", SHAPE, x, 0, COUNT));
    assertFails(bad, "null engine", () -> NativeMace.memoryReportJson(0));
    assertFails(bad, "null engine", () -> NativeMace.resetState(0));
    assertFails(bad, "null config", () -> NativeMace.configSetCpuThreads(0, 1, 0));
    assertFails(bad, "null config", () -> NativeMace.engineCreateFromFiles(graph, weights, 0));
    NativeMace.engineDestroy(0);  // like free(NULL)
    NativeMace.configDestroy(0);
  }

  @Test
  public void nullArgumentsThrow() {
    MaceException.Status bad = MaceException.Status.INVALID_ARGS;
    MaceEngine.Config config = new MaceEngine.Config();
    assertFails(bad, "graph path is null", () -> MaceEngine.create(null, weights, config));
    assertFails(bad, "weights path is null", () -> MaceEngine.create(graph, null, config));
    assertFails(bad, "config is null", () -> MaceEngine.create(graph, weights, null));
    assertFails(bad, "graph buffer is null",
        () -> MaceEngine.create(null, ByteBuffer.allocate(1), config));
    assertFails(bad, "device is null", () -> config.setDevice(null));
    assertFails(bad, "input name is null", () -> engine.setInput(null, x, SHAPE));
    assertFails(bad, "input data is null", () -> engine.setInput("x", (float[]) null, SHAPE));
    assertFails(bad, "input data is null", () -> engine.setInput("x", (FloatBuffer) null, SHAPE));
    assertFails(bad, "shape is null", () -> engine.setInput("x", x, (long[]) null));
    assertFails(bad, "output name is null", () -> engine.getOutputFloats(null));
    assertFails(bad, "inputs is null", () -> engine.run(null));
  }

  @Test
  public void wrongSizesThrow() {
    MaceException.Status bad = MaceException.Status.INVALID_ARGS;
    assertFails(bad, "72", () -> engine.setInput("x", new float[COUNT - 1], SHAPE));
    assertFails(bad, "72", () -> engine.setInput("x", new float[COUNT + 1], SHAPE));
    assertFails(bad, "72", () -> engine.setInput("x", ByteBuffer.allocateDirect(4 * 5)
        .order(ByteOrder.nativeOrder()).asFloatBuffer(), SHAPE));
    // The right count in the wrong shape.
    engine.setInput("x", x, SHAPE);
    MaceException wrongShape = null;
    try {
      engine.setInput("x", x, 1, 2, 9, 1);
      engine.run();
    } catch (MaceException e) {
      wrongShape = e;
    }
    assertNotNull("a [1,2,9,1] input was accepted", wrongShape);
    assertTrue(wrongShape.getMessage(), wrongShape.getMessage().contains("shape"));
    // An output buffer too small for the output.
    engine.setInput("x", x, SHAPE);
    engine.run();
    assertFails(bad, "room for 17", () -> engine.readOutput("y", FloatBuffer.allocate(17)));
    assertFails(bad, "room for 17", () -> engine.readOutput("y", ByteBuffer.allocateDirect(68)
        .order(ByteOrder.nativeOrder()).asFloatBuffer()));
    assertFails(bad, "read-only",
        () -> engine.readOutput("y", FloatBuffer.allocate(COUNT).asReadOnlyBuffer()));
  }

  @Test
  public void wrongNamesAndTypesThrow() {
    MaceException.Status bad = MaceException.Status.INVALID_ARGS;
    assertFails(bad, "nope", () -> engine.setInput("nope", x, SHAPE));
    assertFails(bad, "nope", () -> engine.getInputShape("nope"));
    assertFails(bad, "nope", () -> engine.run(Collections.singletonMap("nope", x)));
    engine.setInput("x", x, SHAPE);
    engine.run();
    assertFails(bad, "nope", () -> engine.getOutputFloats("nope"));
    assertFails(bad, "nope", () -> engine.getOutputShape("nope"));
    assertFails(bad, "int32, not float32", () -> engine.getOutputFloats("idx"));
    assertFails(bad, "float32, not int32", () -> engine.getOutputInts("y"));
    assertFails(bad, "int32, not float32",
        () -> engine.readOutput("idx", FloatBuffer.allocate(COUNT)));
  }

  @Test
  public void runAndOutputsBeforeInputsThrow() {
    MaceException e = assertFails(MaceException.Status.INVALID_ARGS, "x", () -> engine.run());
    assertTrue(e.getMessage(), e.getMessage().contains("has not been set"));
    assertFails(MaceException.Status.INVALID_ARGS, "y", () -> engine.getOutputFloats("y"));
  }

  @Test
  public void badConfigThrows() {
    assertFails(MaceException.Status.INVALID_ARGS, "bogus", () -> MaceEngine.create(graph,
        weights, new MaceEngine.Config().setCpuKernelFamily("bogus")));
    assertFails(MaceException.Status.INVALID_ARGS, "num_threads 257", () -> MaceEngine.create(
        graph, weights, new MaceEngine.Config().setCpuThreads(257, MaceEngine.CpuAffinity.NONE)));
    assertFails(MaceException.Status.INVALID_ARGS, "num_threads -2147483648",
        () -> MaceEngine.create(graph, weights, new MaceEngine.Config().setCpuThreads(
            Integer.MIN_VALUE, MaceEngine.CpuAffinity.NONE)));
  }

  /** The C API reads a string up to its first NUL: one inside is refused, not cut off. */
  @Test
  public void nulCharactersThrow() {
    MaceException.Status bad = MaceException.Status.INVALID_ARGS;
    MaceEngine.Config config = new MaceEngine.Config();
    assertFails(bad, "graph path holds a NUL",
        () -> MaceEngine.create(graph + "\0.bak", weights, config));
    assertFails(bad, "weights path holds a NUL",
        () -> MaceEngine.create(graph, weights + "\0.bak", config));
    assertFails(bad, "kernel family holds a NUL", () -> config.setCpuKernelFamily("auto\0x"));
    assertFails(bad, "cache file holds a NUL", () -> config.setOpenclCacheFile("/tmp/c\0x"));
    assertFails(bad, "emulator path holds a NUL",
        () -> config.setHexagonOptions("/bin/true\0x", null, 0));
    assertFails(bad, "image path holds a NUL", () -> config.setHexagonOptions(null, "i\0", 0));
    assertFails(bad, "input name holds a NUL", () -> engine.setInput("x\0y", x, SHAPE));
    assertFails(bad, "input name holds a NUL", () -> engine.getInputShape("x\0"));
    assertFails(bad, "input name holds a NUL",
        () -> engine.run(Collections.singletonMap("x\0", x)));
    engine.setInput("x", x, SHAPE);
    engine.run();
    assertFails(bad, "output name holds a NUL", () -> engine.getOutputFloats("y\0"));
  }

  /** Each run takes only the inputs set for it, and a refusal leaves none behind. */
  @Test
  public void runsTakeOnlyTheirOwnInputs() {
    MaceException.Status bad = MaceException.Status.INVALID_ARGS;
    try (MaceEngine typed = MaceEngine.create(sibling("c_api_typed_model.pb"),
        sibling("c_api_typed_model.data"), new MaceEngine.Config())) {
      long[] ids = {1, 2, 3, 4};
      boolean[] mask = {true, false, true, false};
      typed.setInput("ids", ids, 4);
      typed.setInput("mask", mask, 4);
      typed.run();
      typed.setInput("ids", ids, 4);
      assertFails(bad, "input 'mask' has not been set since the last run", typed::run);
      // Refused by the engine (size) and by the binding (null): both drop ids.
      typed.setInput("ids", ids, 4);
      assertFails(bad, "needs 4 bytes, got 3", () -> typed.setInput("mask", new boolean[3], 4));
      typed.setInput("mask", mask, 4);
      assertFails(bad, "input 'ids' has not been set since the last run", typed::run);
      typed.setInput("ids", ids, 4);
      assertFails(bad, "input data is null", () -> typed.setInput("mask", (boolean[]) null, 4));
      typed.setInput("mask", mask, 4);
      assertFails(bad, "input 'ids' has not been set since the last run", typed::run);
    }
    Map<String, float[]> extra = new HashMap<>();
    extra.put("x", x);
    extra.put("nope", x);
    assertFails(bad, "'nope' is not an input", () -> engine.run(extra));
    assertFails(bad, "input 'x' has not been set", () -> engine.run());
    assertFails(bad, "input 'x' is missing",
        () -> engine.run(Collections.<String, float[]>emptyMap()));
    assertFails(bad, "value of input 'x' is null",
        () -> engine.run(Collections.<String, float[]>singletonMap("x", null)));
    assertFails(bad, "outputs is null",
        () -> engine.run(Collections.singletonMap("x", FloatBuffer.wrap(x)), null));
    assertFails(bad, "input 'x' has not been set", () -> engine.run());
  }

  /**
   * The Hexagon options reach the engine: on the uint8 model beside the
   * test model, a bad image path is named, and a stand-in emulator that
   * never answers is late by exactly the timeout given. No DSP is needed.
   */
  @Test
  public void hexagonOptions() throws IOException {
    String dspGraph = Paths.get(graph).resolveSibling("c_api_dsp_model.pb").toString();
    String dspWeights = Paths.get(graph).resolveSibling("c_api_dsp_model.data").toString();
    assertTrue(dspGraph + " is missing", Files.exists(Paths.get(dspGraph)));
    Path emulator = Files.createTempFile("silent_emulator", ".sh");
    Files.write(emulator, "#!/bin/sh\nexec sleep 20\n".getBytes(StandardCharsets.UTF_8));
    assertTrue(emulator.toFile().setExecutable(true));
    String silent = emulator.toString();
    try {
      assertFails(MaceException.Status.UNSUPPORTED, "/nonexistent/dsp_runtime.elf",
          () -> MaceEngine.create(dspGraph, dspWeights, new MaceEngine.Config(
              MaceEngine.Device.HEXAGON).setHexagonOptions(silent,
                  "/nonexistent/dsp_runtime.elf", 0)));
      assertFails(MaceException.Status.UNSUPPORTED, "/nonexistent/qemu-hexagon",
          () -> MaceEngine.create(dspGraph, dspWeights, new MaceEngine.Config(
              MaceEngine.Device.HEXAGON).setHexagonOptions("/nonexistent/qemu-hexagon",
                  dspGraph, 0)));
      // Any existing file serves as the image: this emulator does not read it.
      assertFails(MaceException.Status.RUNTIME_ERROR,
          "no reply before the deadline (250 ms a call)",
          () -> MaceEngine.create(dspGraph, dspWeights, new MaceEngine.Config(
              MaceEngine.Device.HEXAGON).setHexagonOptions(silent, dspGraph, 250)));
      assertFails(MaceException.Status.INVALID_ARGS, "timeout -1 ms",
          () -> MaceEngine.create(dspGraph, dspWeights, new MaceEngine.Config(
              MaceEngine.Device.HEXAGON).setHexagonOptions(null, null, -1)));
    } finally {
      Files.delete(emulator);
    }
  }

  @Test
  public void missingAndCorruptModelsThrow() throws IOException {
    MaceEngine.Config config = new MaceEngine.Config();
    assertFails(MaceException.Status.INVALID_ARGS, "/no/such/model.pb",
        () -> MaceEngine.create("/no/such/model.pb", weights, config));
    assertFails(MaceException.Status.INVALID_ARGS, "/no/such/model.data",
        () -> MaceEngine.create(graph, "/no/such/model.data", config));
    byte[] garbage = new byte[256];
    new Random(7).nextBytes(garbage);
    MaceException e = null;
    try {
      MaceEngine.create(ByteBuffer.wrap(garbage), ByteBuffer.allocate(0), config).close();
    } catch (MaceException caught) {
      e = caught;
    }
    assertNotNull("a random graph was accepted", e);
    assertFalse(e.getMessage().isEmpty());
  }

  @Test
  public void modelFilesThatDisappear() throws IOException {
    Path dir = Files.createTempDirectory("model");
    Path pb = dir.resolve("m.pb");
    Path data = dir.resolve("m.data");
    Files.copy(Paths.get(graph), pb, StandardCopyOption.REPLACE_EXISTING);
    Files.copy(Paths.get(weights), data, StandardCopyOption.REPLACE_EXISTING);
    try (MaceEngine loaded = MaceEngine.create(pb.toString(), data.toString(),
        new MaceEngine.Config())) {
      Files.delete(data);
      Files.delete(pb);
      // A loaded engine keeps its model; a new one cannot load it.
      loaded.setInput("x", x, SHAPE);
      loaded.run();
      assertOutputs(loaded, x);
      assertFails(MaceException.Status.INVALID_ARGS, "m.pb",
          () -> MaceEngine.create(pb.toString(), data.toString(), new MaceEngine.Config()));
    }
  }

  // ---- Threads ------------------------------------------------------------

  @Test
  public void engineOfEachThread() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    List<Future<Integer>> results = new ArrayList<>();
    for (int t = 0; t < 4; ++t) {
      final int seed = 100 + t;
      results.add(pool.submit(() -> {
        Random random = new Random(seed);
        try (MaceEngine own = MaceEngine.create(graph, weights, new MaceEngine.Config())) {
          for (int i = 0; i < 25; ++i) {
            float[] in = randomInput(random);
            own.setInput("x", in, SHAPE);
            own.run();
            assertOutputs(own, in);
          }
        }
        return seed;
      }));
    }
    pool.shutdown();
    for (Future<Integer> result : results) result.get();
  }

  @Test
  public void engineSharedByThreads() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    List<Future<Integer>> results = new ArrayList<>();
    for (int t = 0; t < 4; ++t) {
      final int seed = 200 + t;
      results.add(pool.submit(() -> {
        Random random = new Random(seed);
        for (int i = 0; i < 25; ++i) {
          float[] in = randomInput(random);
          // Each method is atomic; a set-run-read sequence takes the lock.
          synchronized (engine) {
            engine.run(Collections.singletonMap("x", in));
            assertOutputs(engine, in);
          }
        }
        return seed;
      }));
    }
    pool.shutdown();
    for (Future<Integer> result : results) result.get();
  }

  @Test
  public void closeWhileOtherThreadsRun() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(3);
    List<Callable<Integer>> runners = new ArrayList<>();
    for (int t = 0; t < 3; ++t) {
      runners.add(() -> {
        int runs = 0;
        while (true) {
          try {
            engine.run(Collections.singletonMap("x", x));
            ++runs;
          } catch (MaceException e) {
            assertTrue(e.getMessage(), e.getMessage().contains("closed"));
            return runs;
          }
        }
      });
    }
    List<Future<Integer>> results = new ArrayList<>();
    for (Callable<Integer> runner : runners) results.add(pool.submit(runner));
    engine.run(Collections.singletonMap("x", x));
    engine.close();
    pool.shutdown();
    for (Future<Integer> result : results) assertTrue(result.get() >= 0);
  }

  /** The model beside the test model written by test/c_api_model_gen.cc. */
  private String sibling(String file) {
    return Paths.get(graph).resolveSibling(file).toString();
  }

  @Test
  public void inputMaxShapes() {
    assertArrayEquals(SHAPE, engine.getInputMaxShape("x"));
    try (MaceEngine dynamic = MaceEngine.create(sibling("c_api_dynamic_model.pb"),
        sibling("c_api_dynamic_model.data"), new MaceEngine.Config())) {
      assertArrayEquals(SHAPE, dynamic.getInputShape("x"));
      assertArrayEquals(new long[] {1, 2, 8, 8}, dynamic.getInputMaxShape("x"));
    }
    try {
      engine.getInputMaxShape("nope");
      fail("an unknown input was accepted");
    } catch (MaceException e) {
      assertEquals(MaceException.Status.INVALID_ARGS, e.getStatus());
      assertTrue(e.getMessage(), e.getMessage().contains("'nope' is not an input"));
    }
  }

  /** ids (int64) -> twice = ids + ids (int64); mask (bool) -> mask_out (bool). */
  @Test
  public void int64AndBoolInputsAndOutputs() {
    try (MaceEngine typed = MaceEngine.create(sibling("c_api_typed_model.pb"),
        sibling("c_api_typed_model.data"), new MaceEngine.Config())) {
      long[] ids = {7, -16777216, 16777216, 0};
      boolean[] mask = {true, false, false, true};
      typed.setInput("ids", ids, 4);
      typed.setInput("mask", mask, 4);
      typed.run();
      assertEquals(MaceEngine.DataType.INT64, typed.getOutputType("twice"));
      assertArrayEquals(new long[] {14, -33554432, 33554432, 0}, typed.getOutputLongs("twice"));
      assertEquals(MaceEngine.DataType.BOOL, typed.getOutputType("mask_out"));
      assertTrue(Arrays.equals(mask, typed.getOutputBooleans("mask_out")));
      expectStatus(MaceException.Status.INVALID_ARGS, "is int64, not bool",
          () -> typed.getOutputBooleans("twice"));
      // 2^24 + 1 is not a float32: refused, not rounded.
      typed.setInput("ids", new long[] {0, 0, 0, 16777217}, 4);
      typed.setInput("mask", mask, 4);
      expectStatus(MaceException.Status.INVALID_ARGS, "input 'ids' holds 16777217",
          typed::run);
      typed.setInput("ids", new int[] {1, 2, 3, 4}, 4);
      typed.setInput("mask", mask, 4);
      expectStatus(MaceException.Status.INVALID_ARGS,
          "input 'ids' is int32 but the model expects int64", typed::run);
    }
  }

  // ---- Shared context, cancellation and timeouts --------------------------

  /** The "arena_bytes" field of an engine's memory report. */
  private static long arenaBytes(MaceEngine e) {
    String json = e.getMemoryReportJson();
    String key = "\"arena_bytes\": ";
    int at = json.indexOf(key);
    assertTrue(json, at >= 0);
    int end = at + key.length();
    while (end < json.length() && Character.isDigit(json.charAt(end))) ++end;
    return Long.parseLong(json.substring(at + key.length(), end));
  }

  private MaceEngine.Config inContext(MaceContext context, int group) {
    return new MaceEngine.Config().setContext(context).setSequentialGroup(group);
  }

  @Test
  public void contextSharesThreadsAndArena() {
    long alone = arenaBytes(engine);
    assertTrue(alone > 0);
    try (MaceContext context = new MaceContext(2, MaceEngine.CpuAffinity.NONE)) {
      assertEquals(2, context.getThreads());
      try (MaceEngine a = MaceEngine.create(graph, weights, inContext(context, 0));
           MaceEngine b = MaceEngine.create(graph, weights, inContext(context, 0))) {
        // One sequential group: one region, as large as the larger plan.
        long shared = context.getArenaBytes();
        assertTrue(shared + " < " + alone, shared >= alone);
        assertTrue(shared + " > 1.05 x " + alone, shared <= alone + alone / 20);
        float[] other = randomInput(new Random(6));
        a.run(Collections.singletonMap("x", x));
        b.run(Collections.singletonMap("x", other));
        assertOutputs(a, x);
        assertOutputs(b, other);
        // Bit for bit what an engine with a pool of its own computes.
        engine.run(Collections.singletonMap("x", x));
        assertTrue(Arrays.equals(engine.getOutputFloats("y"), a.getOutputFloats("y")));
        try (MaceEngine c = MaceEngine.create(graph, weights, inContext(context, -1))) {
          // An engine outside the group gets a region of its own.
          assertTrue(context.getArenaBytes() >= shared + alone);
          c.run(Collections.singletonMap("x", x));
          assertOutputs(c, x);
        }
        // The plan shrinks again when that engine leaves.
        assertEquals(shared, context.getArenaBytes());
      }
    }
  }

  @Test
  public void enginesOutliveTheirContextObject() {
    MaceContext context = new MaceContext(1, MaceEngine.CpuAffinity.NONE);
    MaceEngine.Config config = inContext(context, 0);
    try (MaceEngine shared = MaceEngine.create(graph, weights, config)) {
      context.close();
      shared.run(Collections.singletonMap("x", x));
      assertOutputs(shared, x);
      assertFails(MaceException.Status.INVALID_ARGS, "the context is closed",
          () -> MaceEngine.create(graph, weights, config));
      assertFails(MaceException.Status.INVALID_ARGS, "the context is closed",
          context::getThreads);
    }
  }

  /**
   * Two app threads drive two engines of one sequential group: each run
   * either gives the right outputs or is refused because the other engine
   * is running, never a wrong result.
   */
  @Test
  public void sequentialGroupRunsOneEngineAtATime() throws Exception {
    try (MaceContext context = new MaceContext(1, MaceEngine.CpuAffinity.NONE);
         MaceEngine a = MaceEngine.create(graph, weights, inContext(context, 0));
         MaceEngine b = MaceEngine.create(graph, weights, inContext(context, 0))) {
      ExecutorService pool = Executors.newFixedThreadPool(2);
      List<Future<int[]>> results = new ArrayList<>();
      MaceEngine[] engines = {a, b};
      for (int t = 0; t < 2; ++t) {
        final MaceEngine mine = engines[t];
        final int seed = 300 + t;
        results.add(pool.submit(() -> {
          Random random = new Random(seed);
          int[] counts = new int[2];  // runs, refusals
          for (int i = 0; i < 200; ++i) {
            float[] in = randomInput(random);
            try {
              mine.run(Collections.singletonMap("x", in));
              assertOutputs(mine, in);
              ++counts[0];
            } catch (MaceException e) {
              assertEquals(e.getMessage(), MaceException.Status.RUNTIME_ERROR, e.getStatus());
              assertTrue(e.getMessage(), e.getMessage().contains("sequential group 0"));
              ++counts[1];
            }
          }
          return counts;
        }));
      }
      pool.shutdown();
      int runs = 0;
      for (Future<int[]> result : results) runs += result.get()[0];
      assertTrue("no run succeeded", runs > 0);
      // Neither engine is left marked as running.
      a.run(Collections.singletonMap("x", x));
      assertOutputs(a, x);
      b.run(Collections.singletonMap("x", x));
      assertOutputs(b, x);
    }
  }

  @Test
  public void cancelledAndLateRunsThenRightAgain() {
    try (Cancellation flag = new Cancellation()) {
      flag.cancel();
      engine.setInput("x", x, SHAPE);
      assertFails(MaceException.Status.CANCELLED, "cancelled", () -> engine.run(0, flag));
      // A stopped run has no outputs to read.
      expectStatus(MaceException.Status.INVALID_ARGS, "has no value",
          () -> engine.getOutputFloats("y"));
      engine.setInput("x", x, SHAPE);
      assertFails(MaceException.Status.INVALID_ARGS, "", () -> engine.run(-5, null));
      // One microsecond passes before the first op.
      engine.setInput("x", x, SHAPE);
      assertFails(MaceException.Status.DEADLINE_EXCEEDED, "", () -> engine.run(1, null));
      flag.reset();
      engine.setInput("x", x, SHAPE);
      engine.run(60_000_000L, flag);
      assertOutputs(engine, x);
    }
    Cancellation closed = new Cancellation();
    closed.close();
    closed.close();
    engine.setInput("x", x, SHAPE);
    assertFails(MaceException.Status.INVALID_ARGS, "the cancellation is closed",
        () -> engine.run(0, closed));
  }

  /**
   * A flag set from another thread while runs go on stops the run under
   * way or the next one; the runs before it are right.
   */
  @Test
  public void cancelFromAnotherThread() throws Exception {
    try (Cancellation flag = new Cancellation()) {
      ExecutorService pool = Executors.newSingleThreadExecutor();
      Future<Integer> runner = pool.submit(() -> {
        int stopped = 0;
        long end = System.nanoTime() + 60_000_000_000L;
        while (stopped == 0 && System.nanoTime() < end) {
          engine.setInput("x", x, SHAPE);
          try {
            engine.run(0, flag);
            assertOutputs(engine, x);
          } catch (MaceException e) {
            assertEquals(e.getMessage(), MaceException.Status.CANCELLED, e.getStatus());
            ++stopped;
          }
        }
        return stopped;
      });
      Thread.sleep(5);
      flag.cancel();
      pool.shutdown();
      assertEquals(Integer.valueOf(1), runner.get());
      flag.reset();
      engine.setInput("x", x, SHAPE);
      engine.run(0, flag);
      assertOutputs(engine, x);
    }
  }

  private static void expectStatus(MaceException.Status status, String words, Runnable call) {
    try {
      call.run();
      fail("expected " + status + " with '" + words + "'");
    } catch (MaceException e) {
      assertEquals(e.getMessage(), status, e.getStatus());
      assertTrue(e.getMessage(), e.getMessage().contains(words));
    }
  }
}
