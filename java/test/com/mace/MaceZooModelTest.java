package com.mace;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * A converted model zoo network (one input, one float32 output) through the
 * Java API, against mace_run's output for the same input: one engine, an
 * engine per thread, and one engine shared by several threads. Every result
 * must equal mace_run's bit for bit: the same library code runs the same
 * kernels on one CPU thread.
 *
 * System properties: mace.test.graph, mace.test.weights, mace.test.mace_run.
 */
public class MaceZooModelTest {
  private static final int THREADS = 3;
  private static final String GRAPH = System.getProperty("mace.test.graph");
  private static final String WEIGHTS = System.getProperty("mace.test.weights");

  private static String inputName;
  private static String outputName;
  private static long[] inputShape;
  private static float[] input;
  private static Npy expected;

  private static MaceEngine.Config config() {
    return new MaceEngine.Config().setCpuThreads(1, MaceEngine.CpuAffinity.NONE);
  }

  /** A seeded input in [-1, 1), and mace_run's output for it. */
  @BeforeClass
  public static void runMaceRun() throws Exception {
    try (MaceEngine engine = MaceEngine.create(GRAPH, WEIGHTS, config())) {
      assertEquals(1, engine.getInputNames().size());
      assertEquals(1, engine.getOutputNames().size());
      inputName = engine.getInputNames().get(0);
      outputName = engine.getOutputNames().get(0);
      inputShape = engine.getInputShape(inputName);
    }
    long count = 1;
    for (long dim : inputShape) count *= dim;
    Random random = new Random(17);
    input = new float[(int) count];
    for (int i = 0; i < input.length; ++i) input[i] = random.nextFloat() * 2 - 1;

    Path dir = Files.createTempDirectory("mace_zoo");
    Npy.write(dir.resolve("in_" + inputName + ".npy"), input, inputShape);
    Process process = new ProcessBuilder(System.getProperty("mace.test.mace_run"),
        "--model_file=" + GRAPH, "--model_data_file=" + WEIGHTS,
        "--input_file=" + dir.resolve("in"), "--output_file=" + dir.resolve("out"),
        "--omp_num_threads=1", "--cpu_affinity_policy=0")
        .redirectErrorStream(true).start();
    String log = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(log, 0, process.waitFor());
    expected = Npy.read(dir.resolve("out_" + outputName + ".npy"));
    assertEquals("<f4", expected.descr);
  }

  private static int argmax(float[] values) {
    int best = 0;
    for (int i = 1; i < values.length; ++i) {
      if (values[i] > values[best]) best = i;
    }
    return best;
  }

  private static void assertMatchesMaceRun(MaceEngine engine) {
    assertArrayEquals(expected.shape, engine.getOutputShape(outputName));
    float[] output = engine.getOutputFloats(outputName);
    float[] reference = expected.floats();
    assertArrayEquals(reference, output, 0.0f);
    assertEquals(argmax(reference), argmax(output));
  }

  @Test
  public void matchesMaceRun() {
    try (MaceEngine engine = MaceEngine.create(GRAPH, WEIGHTS, config())) {
      engine.setInput(inputName, input, inputShape);
      engine.run();
      assertMatchesMaceRun(engine);
      // The output is not a constant: another input gives another output.
      float[] other = input.clone();
      for (int i = 0; i < other.length; ++i) other[i] = -other[i];
      engine.setInput(inputName, other, inputShape);
      engine.run();
      float[] changed = engine.getOutputFloats(outputName);
      float[] reference = expected.floats();
      boolean differs = false;
      for (int i = 0; i < changed.length; ++i) differs |= changed[i] != reference[i];
      assertTrue("the output does not depend on the input", differs);
    }
  }

  @Test
  public void matchesMaceRunFromBuffers() throws Exception {
    byte[] graph = Files.readAllBytes(Paths.get(GRAPH));
    byte[] weights = Files.readAllBytes(Paths.get(WEIGHTS));
    ByteBuffer graphBuffer = ByteBuffer.allocateDirect(graph.length).put(graph);
    ByteBuffer weightsBuffer = ByteBuffer.allocateDirect(weights.length).put(weights);
    graphBuffer.flip();
    weightsBuffer.flip();
    try (MaceEngine engine = MaceEngine.create(graphBuffer, weightsBuffer, config())) {
      FloatBuffer in = ByteBuffer.allocateDirect(input.length * 4)
          .order(ByteOrder.nativeOrder()).asFloatBuffer();
      in.put(input).flip();
      engine.setInput(inputName, in, inputShape);
      engine.run();
      assertMatchesMaceRun(engine);
    }
  }

  @Test
  public void engineOfEachThread() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    List<Future<Integer>> results = new ArrayList<>();
    for (int t = 0; t < THREADS; ++t) {
      final int id = t;
      results.add(pool.submit(() -> {
        try (MaceEngine own = MaceEngine.create(GRAPH, WEIGHTS, config())) {
          own.setInput(inputName, input, inputShape);
          own.run();
          assertMatchesMaceRun(own);
        }
        return id;
      }));
    }
    pool.shutdown();
    for (Future<Integer> result : results) result.get();
  }

  @Test
  public void engineSharedByThreads() throws Exception {
    try (MaceEngine shared = MaceEngine.create(GRAPH, WEIGHTS, config())) {
      ExecutorService pool = Executors.newFixedThreadPool(THREADS);
      List<Future<Integer>> results = new ArrayList<>();
      for (int t = 0; t < THREADS; ++t) {
        final int id = t;
        results.add(pool.submit(() -> {
          synchronized (shared) {
            shared.run(Collections.singletonMap(inputName, input));
            assertMatchesMaceRun(shared);
          }
          return id;
        }));
      }
      pool.shutdown();
      for (Future<Integer> result : results) result.get();
    }
  }
}
