/* The C API, compiled as C: a small model (test/c_api_model_gen.cc) loaded
 * from files and from memory, its outputs checked against a computation
 * written here, every error path, and engines run from several threads.
 *
 * The Hexagon options are checked on a uint8 model (the second pair of
 * files) with a stand-in emulator that never answers, so no DSP is needed.
 * The third pair is the first model with a dynamic input (height and width
 * up to 8): its range, runs at several sizes and the re-plans they cause.
 *
 *   c_api_test MODEL.pb MODEL.data DSP_MODEL.pb DSP_MODEL.data DYN.pb DYN.data
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mace/public/mace_c.h"

static int failures = 0;
static int checks = 0;

#define CHECK(condition)                                                  \
  do {                                                                    \
    ++checks;                                                             \
    if (!(condition)) {                                                   \
      ++failures;                                                         \
      fprintf(stderr, "%s:%d: CHECK failed: %s (last error: %s)\n",       \
              __FILE__, __LINE__, #condition, mace_c_last_error());       \
    }                                                                     \
  } while (0)

/* The call fails with `code` and a message containing `fragment`. */
#define CHECK_ERROR(call, code, fragment)                                           \
  do {                                                                              \
    MaceCStatus status_ = (call);                                                   \
    ++checks;                                                                       \
    if (status_ != (code) || strstr(mace_c_last_error(), (fragment)) == NULL) {     \
      ++failures;                                                                   \
      fprintf(stderr, "%s:%d: %s gave %d '%s', expected %d with '%s'\n", __FILE__, \
              __LINE__, #call, (int)status_, mace_c_last_error(), (int)(code),      \
              (fragment));                                                          \
    }                                                                               \
  } while (0)

static const char* graph_path;
static const char* weights_path;
static const char* dsp_graph_path;
static const char* dsp_weights_path;
static const char* dynamic_graph_path;
static const char* dynamic_weights_path;
static const char* typed_graph_path;
static const char* typed_weights_path;
static const int64_t kShape[4] = {1, 2, 3, 3};

/* 18 inputs with ties avoided, from a fixed seed. */
static void MakeInput(unsigned seed, float* x) {
  for (int i = 0; i < 18; ++i) {
    seed = seed * 1103515245u + 12345u;
    x[i] = (float)((seed >> 8) % 2001) / 1000.0f - 1.0f + 0.0001f * (float)i;
  }
}

/* y = relu(W x + b) per pixel, idx = argmax over the two channels. */
static void Expected(const float* x, float* y, int32_t* idx) {
  for (int p = 0; p < 9; ++p) {
    const float a = x[p], b = x[9 + p];
    const float y0 = 1.0f * a + 2.0f * b + 0.5f;
    const float y1 = -1.0f * a + 0.5f * b - 0.25f;
    y[p] = y0 > 0 ? y0 : 0;
    y[9 + p] = y1 > 0 ? y1 : 0;
    idx[p] = b > a ? 1 : 0;
  }
}

static MaceCEngine* CreateFromFiles(void) {
  MaceCConfig* config = NULL;
  MaceCEngine* engine = NULL;
  CHECK(mace_c_config_create(MACE_C_CPU, &config) == MACE_C_OK);
  CHECK(mace_c_config_set_cpu_threads(config, 1, 0) == MACE_C_OK);
  CHECK(mace_c_engine_create_from_files(graph_path, weights_path, config, &engine) == MACE_C_OK);
  mace_c_config_destroy(config);
  return engine;
}

/* Runs `engine` on the input of `seed` and checks both outputs. */
static int RunAndCheck(MaceCEngine* engine, unsigned seed) {
  float x[18], want_y[18];
  int32_t want_idx[9];
  MakeInput(seed, x);
  Expected(x, want_y, want_idx);
  int bad = 0;
  if (mace_c_engine_set_input(engine, "x", MACE_C_FLOAT32, kShape, 4, x, sizeof(x)) != MACE_C_OK)
    return 1;
  if (mace_c_engine_run(engine) != MACE_C_OK) return 1;
  MaceCDataType type;
  const int64_t* dims;
  size_t rank, size;
  const void* data;
  if (mace_c_engine_get_output(engine, "y", &type, &dims, &rank, &data, &size) != MACE_C_OK)
    return 1;
  bad |= type != MACE_C_FLOAT32 || rank != 4 || size != sizeof(want_y);
  for (int i = 0; i < 18 && !bad; ++i) bad |= fabsf(((const float*)data)[i] - want_y[i]) > 1e-6f;
  if (mace_c_engine_get_output(engine, "idx", &type, &dims, &rank, &data, &size) != MACE_C_OK)
    return 1;
  bad |= type != MACE_C_INT32 || rank != 4 || dims[1] != 1 || size != sizeof(want_idx);
  for (int i = 0; i < 9 && !bad; ++i) bad |= ((const int32_t*)data)[i] != want_idx[i];
  return bad;
}

static void TestModelInfoAndRun(void) {
  MaceCEngine* engine = CreateFromFiles();
  CHECK(engine != NULL);
  if (engine == NULL) return;
  size_t count = 0;
  const char* name = NULL;
  CHECK(mace_c_engine_input_count(engine, &count) == MACE_C_OK && count == 1);
  CHECK(mace_c_engine_input_name(engine, 0, &name) == MACE_C_OK && strcmp(name, "x") == 0);
  const int64_t* dims = NULL;
  size_t rank = 0;
  CHECK(mace_c_engine_input_shape(engine, "x", &dims, &rank) == MACE_C_OK && rank == 4 &&
        dims[0] == 1 && dims[1] == 2 && dims[2] == 3 && dims[3] == 3);
  CHECK(mace_c_engine_output_count(engine, &count) == MACE_C_OK && count == 2);
  CHECK(mace_c_engine_output_name(engine, 0, &name) == MACE_C_OK && strcmp(name, "y") == 0);
  CHECK(mace_c_engine_output_name(engine, 1, &name) == MACE_C_OK && strcmp(name, "idx") == 0);
  CHECK_ERROR(mace_c_engine_output_name(engine, 2, &name), MACE_C_INVALID_ARGS,
              "index 2 is out of range; the model has 2 outputs");
  CHECK_ERROR(mace_c_engine_get_output(engine, "y", NULL, NULL, NULL, NULL, NULL),
              MACE_C_INVALID_ARGS, "has not run successfully yet");
  CHECK_ERROR(mace_c_engine_run(engine), MACE_C_INVALID_ARGS, "input 'x' has not been set");
  for (unsigned seed = 1; seed <= 3; ++seed) CHECK(RunAndCheck(engine, seed) == 0);
  CHECK(strcmp(mace_c_last_error(), "") == 0);
  const char* json = NULL;
  CHECK(mace_c_engine_memory_report_json(engine, &json) == MACE_C_OK);
  CHECK(json != NULL && strstr(json, "\"arena_bytes\": ") != NULL &&
        strstr(json, "\"memory_type\": \"CPU_BUFFER\"") != NULL);
  mace_c_engine_destroy(engine);
}

/* Runs the dynamic model on x [1, 2, h, w] (seeded) and checks y and idx
 * against the per-pixel reference; nonzero on a mismatch. */
static int RunDynamicAndCheck(MaceCEngine* engine, int64_t h, int64_t w, unsigned seed) {
  enum { kMaxPixels = 64 };
  const int64_t shape[4] = {1, 2, h, w};
  const int pixels = (int)(h * w);
  float x[2 * kMaxPixels], want_y[2 * kMaxPixels];
  int32_t want_idx[kMaxPixels];
  for (int i = 0; i < 2 * pixels; ++i) {
    seed = seed * 1103515245u + 12345u;
    x[i] = (float)((seed >> 8) % 2001) / 1000.0f - 1.0f + 0.0001f * (float)i;
  }
  for (int p = 0; p < pixels; ++p) {
    const float a = x[p], b = x[pixels + p];
    const float y0 = 1.0f * a + 2.0f * b + 0.5f, y1 = -1.0f * a + 0.5f * b - 0.25f;
    want_y[p] = y0 > 0 ? y0 : 0;
    want_y[pixels + p] = y1 > 0 ? y1 : 0;
    want_idx[p] = b > a ? 1 : 0;
  }
  if (mace_c_engine_set_input(engine, "x", MACE_C_FLOAT32, shape, 4, x,
                              sizeof(float) * 2 * (size_t)pixels) != MACE_C_OK ||
      mace_c_engine_run(engine) != MACE_C_OK) {
    return 1;
  }
  MaceCDataType type;
  const int64_t* dims;
  size_t rank, size;
  const void* data;
  int bad = mace_c_engine_get_output(engine, "y", &type, &dims, &rank, &data, &size) != MACE_C_OK;
  bad = bad || rank != 4 || dims[1] != 2 || dims[2] != h || dims[3] != w ||
        size != sizeof(float) * 2 * (size_t)pixels;
  for (int i = 0; i < 2 * pixels && !bad; ++i) {
    bad |= fabsf(((const float*)data)[i] - want_y[i]) > 1e-6f;
  }
  bad = bad || mace_c_engine_get_output(engine, "idx", &type, &dims, &rank, &data, &size) !=
                   MACE_C_OK;
  bad = bad || type != MACE_C_INT32 || dims[2] != h || dims[3] != w;
  for (int i = 0; i < pixels && !bad; ++i) bad |= ((const int32_t*)data)[i] != want_idx[i];
  return bad;
}

static void TestDynamicInput(void) {
  MaceCConfig* config = NULL;
  MaceCEngine* engine = NULL;
  CHECK(mace_c_config_create(MACE_C_CPU, &config) == MACE_C_OK);
  CHECK(mace_c_engine_create_from_files(dynamic_graph_path, dynamic_weights_path, config,
                                        &engine) == MACE_C_OK);
  mace_c_config_destroy(config);
  if (engine == NULL) return;
  const int64_t* dims = NULL;
  size_t rank = 0;
  CHECK(mace_c_engine_input_shape(engine, "x", &dims, &rank) == MACE_C_OK && rank == 4 &&
        dims[2] == 3 && dims[3] == 3);
  CHECK(mace_c_engine_input_max_shape(engine, "x", &dims, &rank) == MACE_C_OK && rank == 4 &&
        dims[0] == 1 && dims[1] == 2 && dims[2] == 8 && dims[3] == 8);
  CHECK_ERROR(mace_c_engine_input_max_shape(engine, "z", &dims, &rank), MACE_C_INVALID_ARGS,
              "mace_c_engine_input_max_shape: 'z' is not an input of the model");
  CHECK_ERROR(mace_c_engine_input_max_shape(engine, "x", NULL, &rank), MACE_C_INVALID_ARGS,
              "a pointer argument is null");
  int64_t replans = -1;
  CHECK(mace_c_engine_replans(engine, &replans) == MACE_C_OK && replans == 0);
  CHECK_ERROR(mace_c_engine_replans(engine, NULL), MACE_C_INVALID_ARGS, "is null");
  CHECK_ERROR(mace_c_engine_replans(NULL, &replans), MACE_C_INVALID_ARGS, "is null");
  /* A model without state tensors has nothing to reset. */
  CHECK(mace_c_engine_reset_state(engine) == MACE_C_OK);
  CHECK_ERROR(mace_c_engine_reset_state(NULL), MACE_C_INVALID_ARGS, "is null");
  /* The declared size plans nothing new; each new size plans once more; a
   * size seen before but not the last one plans again too. */
  CHECK(RunDynamicAndCheck(engine, 3, 3, 1) == 0);
  CHECK(mace_c_engine_replans(engine, &replans) == MACE_C_OK && replans == 0);
  CHECK(RunDynamicAndCheck(engine, 5, 2, 2) == 0);
  CHECK(RunDynamicAndCheck(engine, 5, 2, 3) == 0);
  CHECK(mace_c_engine_replans(engine, &replans) == MACE_C_OK && replans == 1);
  CHECK(RunDynamicAndCheck(engine, 8, 8, 4) == 0);
  CHECK(RunDynamicAndCheck(engine, 1, 7, 5) == 0);
  CHECK(mace_c_engine_replans(engine, &replans) == MACE_C_OK && replans == 3);
  const char* json = NULL;
  CHECK(mace_c_engine_memory_report_json(engine, &json) == MACE_C_OK && json != NULL &&
        strstr(json, "\"replans\": 3,") != NULL);
  /* Outside the range: refused, and the engine runs on. */
  float x[2 * 9 * 3] = {0};
  const int64_t tall[4] = {1, 2, 9, 3};
  CHECK(mace_c_engine_set_input(engine, "x", MACE_C_FLOAT32, tall, 4, x, sizeof(x)) ==
        MACE_C_OK);
  CHECK_ERROR(mace_c_engine_run(engine), MACE_C_INVALID_ARGS,
              "dynamic dimension 2 takes 1 to 8");
  CHECK(RunDynamicAndCheck(engine, 2, 6, 6) == 0);
  mace_c_engine_destroy(engine);
}

/* int64 and bool inputs and outputs of a model whose ops compute in float32:
 * ids -> twice = ids + ids, mask -> mask_out. */
static void TestTypedModel(void) {
  CHECK(strcmp(mace_c_data_type_name(MACE_C_INT64), "int64") == 0 &&
        mace_c_data_type_size(MACE_C_INT64) == 8);
  CHECK(strcmp(mace_c_data_type_name(MACE_C_BOOL), "bool") == 0 &&
        mace_c_data_type_size(MACE_C_BOOL) == 1);
  MaceCConfig* config = NULL;
  MaceCEngine* engine = NULL;
  CHECK(mace_c_config_create(MACE_C_CPU, &config) == MACE_C_OK);
  CHECK(mace_c_engine_create_from_files(typed_graph_path, typed_weights_path, config, &engine) ==
        MACE_C_OK);
  mace_c_config_destroy(config);
  if (engine == NULL) return;
  const int64_t shape[1] = {4};
  const int64_t ids[4] = {3, -16777216, 16777216, 0};
  const uint8_t mask[4] = {1, 0, 0, 1};
  CHECK(mace_c_engine_set_input(engine, "ids", MACE_C_INT64, shape, 1, ids, sizeof(ids)) ==
        MACE_C_OK);
  CHECK(mace_c_engine_set_input(engine, "mask", MACE_C_BOOL, shape, 1, mask, sizeof(mask)) ==
        MACE_C_OK);
  CHECK(mace_c_engine_run(engine) == MACE_C_OK);
  MaceCDataType type = MACE_C_FLOAT32;
  const void* data = NULL;
  size_t size = 0;
  CHECK(mace_c_engine_get_output(engine, "twice", &type, NULL, NULL, &data, &size) ==
        MACE_C_OK);
  CHECK(type == MACE_C_INT64 && size == 32);
  if (type == MACE_C_INT64 && size == 32) {
    const int64_t* twice = (const int64_t*)data;
    CHECK(twice[0] == 6 && twice[1] == -33554432 && twice[2] == 33554432 && twice[3] == 0);
  }
  CHECK(mace_c_engine_get_output(engine, "mask_out", &type, NULL, NULL, &data, &size) ==
        MACE_C_OK);
  CHECK(type == MACE_C_BOOL && size == 4 && memcmp(data, mask, 4) == 0);
  /* 2^24 + 1 would be rounded by float32: the run fails naming it. */
  const int64_t big[4] = {0, 0, 16777217, 0};
  CHECK(mace_c_engine_set_input(engine, "ids", MACE_C_INT64, shape, 1, big, sizeof(big)) ==
        MACE_C_OK);
  CHECK(mace_c_engine_set_input(engine, "mask", MACE_C_BOOL, shape, 1, mask, sizeof(mask)) ==
        MACE_C_OK);
  CHECK_ERROR(mace_c_engine_run(engine), MACE_C_INVALID_ARGS, "input 'ids' holds 16777217");
  /* A run consumes its inputs: the next one needs every input again, and a
   * refused input drops those set with it. */
  CHECK(mace_c_engine_set_input(engine, "ids", MACE_C_INT64, shape, 1, ids, sizeof(ids)) ==
        MACE_C_OK);
  CHECK_ERROR(mace_c_engine_run(engine), MACE_C_INVALID_ARGS,
              "input 'mask' has not been set since the last run");
  CHECK(mace_c_engine_set_input(engine, "ids", MACE_C_INT64, shape, 1, ids, sizeof(ids)) ==
        MACE_C_OK);
  CHECK_ERROR(mace_c_engine_set_input(engine, "mask", MACE_C_BOOL, shape, 1, mask, 3),
              MACE_C_INVALID_ARGS, "needs 4 bytes, got 3");
  CHECK(mace_c_engine_set_input(engine, "mask", MACE_C_BOOL, shape, 1, mask, sizeof(mask)) ==
        MACE_C_OK);
  CHECK_ERROR(mace_c_engine_run(engine), MACE_C_INVALID_ARGS,
              "input 'ids' has not been set since the last run");
  CHECK(mace_c_engine_set_input(engine, "ids", MACE_C_INT64, shape, 1, ids, sizeof(ids)) ==
        MACE_C_OK);
  const uint8_t two[4] = {0, 2, 0, 0};
  CHECK(mace_c_engine_set_input(engine, "mask", MACE_C_BOOL, shape, 1, two, sizeof(two)) ==
        MACE_C_OK);
  CHECK_ERROR(mace_c_engine_run(engine), MACE_C_INVALID_ARGS, "bool elements are 0 or 1");
  const int32_t narrow[4] = {1, 2, 3, 4};
  CHECK(mace_c_engine_set_input(engine, "ids", MACE_C_INT32, shape, 1, narrow, sizeof(narrow)) ==
        MACE_C_OK);
  CHECK(mace_c_engine_set_input(engine, "mask", MACE_C_BOOL, shape, 1, mask, sizeof(mask)) ==
        MACE_C_OK);
  CHECK_ERROR(mace_c_engine_run(engine), MACE_C_INVALID_ARGS,
              "input 'ids' is int32 but the model expects int64");
  mace_c_engine_destroy(engine);
}

static void TestInputErrors(void) {
  MaceCEngine* engine = CreateFromFiles();
  if (engine == NULL) return;
  float x[18] = {0};
  int32_t ints[18] = {0};
  CHECK_ERROR(mace_c_engine_set_input(engine, "x", MACE_C_FLOAT32, kShape, 4, x, 70),
              MACE_C_INVALID_ARGS, "needs 72 bytes, got 70");
  CHECK_ERROR(mace_c_engine_set_input(engine, "z", MACE_C_FLOAT32, kShape, 4, x, sizeof(x)),
              MACE_C_INVALID_ARGS, "'z' is not an input of the model");
  CHECK_ERROR(mace_c_engine_set_input(engine, "x", (MaceCDataType)9, kShape, 4, x, sizeof(x)),
              MACE_C_INVALID_ARGS, "data type 9 is unknown");
  CHECK_ERROR(mace_c_engine_set_input(engine, "x", MACE_C_FLOAT32, kShape, 4, NULL, sizeof(x)),
              MACE_C_INVALID_ARGS, "data is null");
  const int64_t negative[4] = {1, -2, 3, 3};
  CHECK_ERROR(mace_c_engine_set_input(engine, "x", MACE_C_FLOAT32, negative, 4, x, sizeof(x)),
              MACE_C_INVALID_ARGS, "negative or too large");
  /* Only the model's rank of dims is read. */
  CHECK_ERROR(mace_c_engine_set_input(engine, "x", MACE_C_FLOAT32, kShape, 1000, x, sizeof(x)),
              MACE_C_INVALID_ARGS, "has rank 1000 but the model expects shape [1,2,3,3]");
  /* The right size but the wrong type or shape: refused when the engine runs. */
  CHECK(mace_c_engine_set_input(engine, "x", MACE_C_INT32, kShape, 4, ints, sizeof(ints)) ==
        MACE_C_OK);
  CHECK_ERROR(mace_c_engine_run(engine), MACE_C_INVALID_ARGS, "int32");
  const int64_t other[4] = {1, 3, 2, 3};
  CHECK(mace_c_engine_set_input(engine, "x", MACE_C_FLOAT32, other, 4, x, sizeof(x)) ==
        MACE_C_OK);
  CHECK_ERROR(mace_c_engine_run(engine), MACE_C_INVALID_ARGS, "shape");
  CHECK_ERROR(mace_c_engine_get_output(engine, "nope", NULL, NULL, NULL, NULL, NULL),
              MACE_C_INVALID_ARGS, "'nope' is not an output of the model");
  /* The engine still works after the errors. */
  CHECK(RunAndCheck(engine, 7) == 0);
  mace_c_engine_destroy(engine);
}

static char* ReadAll(const char* path, size_t* size) {
  FILE* file = fopen(path, "rb");
  if (file == NULL) return NULL;
  fseek(file, 0, SEEK_END);
  long length = ftell(file);
  fseek(file, 0, SEEK_SET);
  char* bytes = (char*)malloc(length > 0 ? (size_t)length : 1);  /* C++ too (cross toolchains) */
  *size = fread(bytes, 1, (size_t)length, file);
  fclose(file);
  return bytes;
}

static void TestBuffersAndBadModels(void) {
  size_t graph_size = 0, weights_size = 0;
  char* graph = ReadAll(graph_path, &graph_size);
  char* weights = ReadAll(weights_path, &weights_size);
  CHECK(graph != NULL && weights != NULL && graph_size > 0 && weights_size > 0);
  if (graph == NULL || weights == NULL) return;
  MaceCConfig* config = NULL;
  CHECK(mace_c_config_create(MACE_C_CPU, &config) == MACE_C_OK);
  MaceCEngine* engine = NULL;
  CHECK(mace_c_engine_create_from_buffers(graph, graph_size, weights, weights_size, config,
                                          &engine) == MACE_C_OK);
  if (engine != NULL) {
    free(weights);  /* the engine keeps its own copy */
    weights = NULL;
    CHECK(RunAndCheck(engine, 11) == 0);
    mace_c_engine_destroy(engine);
  }
  weights = ReadAll(weights_path, &weights_size);
  engine = (MaceCEngine*)1;
  CHECK_ERROR(mace_c_engine_create_from_buffers(graph, graph_size, weights, weights_size / 2,
                                                config, &engine),
              MACE_C_INVALID_ARGS, "");
  CHECK(engine == NULL);
  char garbage[64];
  for (int i = 0; i < 64; ++i) garbage[i] = (char)(i * 37 + 11);
  CHECK_ERROR(mace_c_engine_create_from_buffers(garbage, sizeof(garbage), weights, weights_size,
                                                config, &engine),
              MACE_C_INVALID_ARGS, "");
  CHECK(strlen(mace_c_last_error()) > 0);
  CHECK_ERROR(mace_c_engine_create_from_buffers(graph, graph_size / 2, weights, weights_size,
                                                config, &engine),
              MACE_C_INVALID_ARGS, "");
  CHECK_ERROR(mace_c_engine_create_from_files("/nonexistent/m.pb", weights_path, config, &engine),
              MACE_C_INVALID_ARGS, "cannot open the model graph '/nonexistent/m.pb'");
  CHECK_ERROR(mace_c_engine_create_from_files(graph_path, "/nonexistent/m.data", config, &engine),
              MACE_C_INVALID_ARGS, "/nonexistent/m.data");
  CHECK_ERROR(mace_c_engine_create_from_buffers(NULL, 10, NULL, 0, config, &engine),
              MACE_C_INVALID_ARGS, "the graph buffer is null or empty");
  CHECK_ERROR(mace_c_engine_create_from_buffers(graph, graph_size, NULL, 5, config, &engine),
              MACE_C_INVALID_ARGS, "weights is null but weights_size is 5");
  MaceCConfig* hexagon = NULL;
  CHECK(mace_c_config_create(MACE_C_HEXAGON, &hexagon) == MACE_C_OK);
  CHECK(mace_c_engine_create_from_files(graph_path, weights_path, hexagon, &engine) !=
        MACE_C_OK);
  CHECK(strlen(mace_c_last_error()) > 0 && engine == NULL);
  mace_c_config_destroy(hexagon);
  mace_c_config_destroy(config);
  free(graph);
  free(weights);
}

static void TestNullHandlesAndConfig(void) {
  CHECK(strlen(mace_c_version()) > 0);
  CHECK(strcmp(mace_c_data_type_name(MACE_C_UINT8), "uint8") == 0);
  CHECK(mace_c_data_type_size(MACE_C_INT32) == 4 && mace_c_data_type_size((MaceCDataType)5) == 0);
  CHECK_ERROR(mace_c_config_create(MACE_C_CPU, NULL), MACE_C_INVALID_ARGS, "config is null");
  MaceCConfig* config = (MaceCConfig*)1;
  CHECK_ERROR(mace_c_config_create((MaceCDevice)7, &config), MACE_C_INVALID_ARGS,
              "device 7 is not");
  CHECK(config == NULL);
  CHECK_ERROR(mace_c_config_set_cpu_threads(NULL, 1, 0), MACE_C_INVALID_ARGS, "config is null");
  CHECK(mace_c_config_create(MACE_C_CPU, &config) == MACE_C_OK);
  CHECK_ERROR(mace_c_config_set_cpu_threads(config, 1, 5), MACE_C_INVALID_ARGS,
              "affinity 5 is not 0, 1 or 2");
  CHECK_ERROR(mace_c_config_set_gpu_hints(config, 4, 0), MACE_C_INVALID_ARGS,
              "hints must be 0 to 3");
  CHECK_ERROR(mace_c_config_set_gpu_data_type(config, 2), MACE_C_INVALID_ARGS,
              "is not 0 (fp16_fp32) or 1 (fp32_fp32)");
  CHECK(mace_c_config_set_gpu_data_type(config, 1) == MACE_C_OK);
  CHECK_ERROR(mace_c_config_set_cpu_threads(config, 257, 0), MACE_C_INVALID_ARGS,
              "num_threads 257 is not -1, 0 (the default) or 1 to 256");
  CHECK_ERROR(mace_c_config_set_cpu_threads(config, -2, 0), MACE_C_INVALID_ARGS,
              "num_threads -2");
  CHECK(mace_c_config_set_cpu_threads(config, -1, 0) == MACE_C_OK);
  CHECK_ERROR(mace_c_config_set_opencl_device_fallback(config, 2), MACE_C_INVALID_ARGS,
              "allow 2 is not 0 or 1");
  CHECK(mace_c_config_set_opencl_device_fallback(config, 1) == MACE_C_OK);
  CHECK(mace_c_config_set_opencl_cache_file(config, NULL) == MACE_C_OK);
  CHECK(mace_c_config_set_cpu_kernel_family(config, "no_such_family") == MACE_C_OK);
  MaceCEngine* engine = NULL;
  CHECK_ERROR(mace_c_engine_create_from_files(graph_path, weights_path, config, &engine),
              MACE_C_INVALID_ARGS, "unknown CPU kernel family 'no_such_family'");
  mace_c_config_destroy(config);
  CHECK_ERROR(mace_c_engine_create_from_files(graph_path, weights_path, NULL, &engine),
              MACE_C_INVALID_ARGS, "config is null");
  CHECK_ERROR(mace_c_engine_run(NULL), MACE_C_INVALID_ARGS, "engine is null");
  size_t count;
  CHECK_ERROR(mace_c_engine_input_count(NULL, &count), MACE_C_INVALID_ARGS, "is null");
  CHECK_ERROR(mace_c_engine_set_input(NULL, "x", MACE_C_FLOAT32, kShape, 4, NULL, 0),
              MACE_C_INVALID_ARGS, "engine or name is null");
  const char* json;
  CHECK_ERROR(mace_c_engine_memory_report_json(NULL, &json), MACE_C_INVALID_ARGS, "is null");
  mace_c_engine_destroy(NULL);
  mace_c_config_destroy(NULL);
}

/* An "emulator" that starts and never answers: a call to it times out. */
static int WriteSilentEmulator(char* path, size_t size) {
  const char* dir = getenv("TEST_TMPDIR");
  snprintf(path, size, "%s/silent_emulator.sh", dir != NULL ? dir : "/tmp");
  FILE* file = fopen(path, "w");
  if (file == NULL) return 0;
  fputs("#!/bin/sh\nexec sleep 20\n", file);
  fclose(file);
  return chmod(path, 0755) == 0;
}

static void TestHexagonOptions(void) {
  char emulator[4096];
  CHECK(WriteSilentEmulator(emulator, sizeof(emulator)));
  CHECK_ERROR(mace_c_config_set_hexagon_options(NULL, NULL, NULL, 0), MACE_C_INVALID_ARGS,
              "config is null");
  MaceCConfig* config = NULL;
  CHECK(mace_c_config_create(MACE_C_HEXAGON, &config) == MACE_C_OK);
  MaceCEngine* engine = NULL;
  /* A bad image path is named. */
  CHECK(mace_c_config_set_hexagon_options(config, emulator, "/nonexistent/dsp_runtime.elf", 0) ==
        MACE_C_OK);
  CHECK_ERROR(mace_c_engine_create_from_files(dsp_graph_path, dsp_weights_path, config, &engine),
              MACE_C_UNSUPPORTED, "/nonexistent/dsp_runtime.elf");
  CHECK(engine == NULL);
  /* So is a bad emulator path. */
  CHECK(mace_c_config_set_hexagon_options(config, "/nonexistent/qemu-hexagon", dsp_graph_path,
                                          0) == MACE_C_OK);
  CHECK_ERROR(mace_c_engine_create_from_files(dsp_graph_path, dsp_weights_path, config, &engine),
              MACE_C_UNSUPPORTED, "/nonexistent/qemu-hexagon");
  /* The timeout reaches each call to the DSP: the silent emulator's first
   * reply is late by exactly it. (Any existing file serves as the image:
   * this emulator does not read it.) */
  CHECK(mace_c_config_set_hexagon_options(config, emulator, dsp_graph_path, 300) == MACE_C_OK);
  CHECK_ERROR(mace_c_engine_create_from_files(dsp_graph_path, dsp_weights_path, config, &engine),
              MACE_C_RUNTIME_ERROR, "no reply before the deadline (300 ms a call)");
  CHECK(engine == NULL);
  /* Out of range: refused, and the options stay as they were. */
  CHECK_ERROR(mace_c_config_set_hexagon_options(config, emulator, dsp_graph_path, -1),
              MACE_C_INVALID_ARGS, "timeout -1 ms");
  CHECK_ERROR(mace_c_config_set_hexagon_options(config, NULL, NULL, 86400001),
              MACE_C_INVALID_ARGS, "86400001 ms");
  CHECK_ERROR(mace_c_engine_create_from_files(dsp_graph_path, dsp_weights_path, config, &engine),
              MACE_C_RUNTIME_ERROR, "(300 ms a call)");
  /* The config is copied into the engine at creation; a later change is a
   * change of the config only. */
  CHECK(mace_c_config_set_hexagon_options(config, emulator, dsp_graph_path, 150) == MACE_C_OK);
  CHECK_ERROR(mace_c_engine_create_from_files(dsp_graph_path, dsp_weights_path, config, &engine),
              MACE_C_RUNTIME_ERROR, "(150 ms a call)");
  mace_c_config_destroy(config);
  unlink(emulator);
}

/* Each thread has its own engine and its own last error. */
static void* ThreadBody(void* arg) {
  const unsigned seed = (unsigned)(size_t)arg;
  MaceCEngine* engine = CreateFromFiles();
  size_t bad = engine == NULL;
  for (int round = 0; round < 20 && engine != NULL; ++round) {
    bad += (size_t)RunAndCheck(engine, seed + (unsigned)round);
    if (seed == 100) {  /* one thread makes errors; the others must not see them */
      mace_c_engine_run(NULL);
    } else if (strcmp(mace_c_last_error(), "") != 0) {
      ++bad;
    }
  }
  mace_c_engine_destroy(engine);
  return (void*)bad;
}

static void TestThreads(void) {
  pthread_t threads[4];
  for (size_t t = 0; t < 4; ++t) {
    CHECK(pthread_create(&threads[t], NULL, ThreadBody, (void*)(100 + 50 * t)) == 0);
  }
  for (size_t t = 0; t < 4; ++t) {
    void* bad = NULL;
    pthread_join(threads[t], &bad);
    CHECK(bad == NULL);
  }
}

int main(int argc, char** argv) {
  if (argc != 9) {
    fprintf(stderr, "usage: c_api_test MODEL.pb MODEL.data DSP_MODEL.pb DSP_MODEL.data "
                    "DYN.pb DYN.data TYPED.pb TYPED.data\n");
    return 2;
  }
  graph_path = argv[1];
  weights_path = argv[2];
  dsp_graph_path = argv[3];
  dsp_weights_path = argv[4];
  dynamic_graph_path = argv[5];
  dynamic_weights_path = argv[6];
  typed_graph_path = argv[7];
  typed_weights_path = argv[8];
  TestNullHandlesAndConfig();
  TestTypedModel();
  TestModelInfoAndRun();
  TestInputErrors();
  TestDynamicInput();
  TestBuffersAndBadModels();
  TestThreads();
  TestHexagonOptions();
  printf("c_api_test: %d checks, %d failed\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
