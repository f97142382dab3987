/* The C API of MACE: a stable ABI over the C++ engine, for apps and language
 * bindings (Java/JNI, Python, Rust, Go, Flutter, Unity) that cannot use C++.
 *
 * Objects are opaque handles. Every call returns a MaceCStatus; on failure
 * mace_c_last_error() gives the message, naming the problem, for the calling
 * thread (until that thread's next call). No C++ exception or type crosses
 * this header, and no call aborts the process: a null handle, a wrong size
 * or type, or a bad model is an error code.
 *
 * An engine may be used from one thread at a time; distinct engines may run
 * on distinct threads at once.
 *
 *   MaceCConfig* config;
 *   mace_c_config_create(MACE_C_CPU, &config);
 *   MaceCEngine* engine;
 *   if (mace_c_engine_create_from_files("m.pb", "m.data", config, &engine) != MACE_C_OK)
 *     fprintf(stderr, "%s\n", mace_c_last_error());
 *   mace_c_config_destroy(config);
 *   mace_c_engine_set_input(engine, "input", MACE_C_FLOAT32, dims, 4, pixels, bytes);
 *   mace_c_engine_run(engine);   // consumes the inputs: set them again for each run
 *   mace_c_engine_get_output(engine, "output", &type, &dims, &rank, &data, &bytes);
 *   mace_c_engine_destroy(engine);
 */
#ifndef MACE_PUBLIC_MACE_C_H_
#define MACE_PUBLIC_MACE_C_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define MACE_C_API __attribute__((visibility("default")))
#else
#define MACE_C_API
#endif

/* In C++ the enums get int as their fixed type, so any int a C caller
 * passes is a value of the type (and an unknown one an error, not undefined
 * behaviour); in C they are int already. */
#ifdef __cplusplus
#define MACE_C_ENUM(name) enum name : int
#else
#define MACE_C_ENUM(name) enum name
#endif

/* The same codes as mace::MaceStatus::Code. */
typedef MACE_C_ENUM(MaceCStatus) {
  MACE_C_OK = 0,
  MACE_C_INVALID_ARGS = 1,
  MACE_C_OUT_OF_RESOURCES = 2,
  MACE_C_UNSUPPORTED = 3,
  MACE_C_RUNTIME_ERROR = 4,
  /* A run stopped by its cancellation flag, or by its timeout; the engine
   * is ready for the next run. */
  MACE_C_CANCELLED = 5,
  MACE_C_DEADLINE_EXCEEDED = 6
} MaceCStatus;

/* The same values as mace::DeviceType. */
typedef MACE_C_ENUM(MaceCDevice) {
  MACE_C_CPU = 0,
  MACE_C_GPU = 2,
  MACE_C_HEXAGON = 3
} MaceCDevice;

/* The same values as mace::TensorDataType. */
typedef MACE_C_ENUM(MaceCDataType) {
  MACE_C_FLOAT32 = 0,
  MACE_C_INT32 = 1,
  MACE_C_UINT8 = 2,
  MACE_C_INT64 = 3,
  /* One byte per element, 0 or 1. */
  MACE_C_BOOL = 4
} MaceCDataType;

typedef struct MaceCConfig MaceCConfig;
typedef struct MaceCEngine MaceCEngine;
typedef struct MaceCContext MaceCContext;
typedef struct MaceCCancellation MaceCCancellation;

/* "0.1.0". */
MACE_C_API const char* mace_c_version(void);
/* The message of the calling thread's last failed call, or "" if its last
 * call succeeded. Valid until the thread's next call. */
MACE_C_API const char* mace_c_last_error(void);
/* "float32", "int32", "uint8", "int64", "bool"; bytes per element (0 for an
 * unknown type). */
MACE_C_API const char* mace_c_data_type_name(MaceCDataType type);
MACE_C_API size_t mace_c_data_type_size(MaceCDataType type);

/* ---- Shared context and cancellation (docs/how-to/pipelines.md) --------------- */

/* A context whose CPU thread pool the engines given it share (see
 * mace::MaceContext); num_threads and affinity as for
 * mace_c_config_set_cpu_threads. An engine keeps the context alive: it may
 * be destroyed once the configs and engines hold it. Null is ignored. */
MACE_C_API MaceCStatus mace_c_context_create(int num_threads, int affinity,
                                             MaceCContext** context);
MACE_C_API void mace_c_context_destroy(MaceCContext* context);
MACE_C_API MaceCStatus mace_c_context_num_threads(const MaceCContext* context,
                                                  int* num_threads);
/* A flag that stops the runs it is given (mace_c_engine_run_with_options):
 * cancel may be called from any thread, and the flag stays set until
 * reset. Null is ignored by destroy; it must outlive the runs using it. */
MACE_C_API MaceCStatus mace_c_cancellation_create(MaceCCancellation** cancellation);
MACE_C_API void mace_c_cancellation_destroy(MaceCCancellation* cancellation);
MACE_C_API MaceCStatus mace_c_cancellation_cancel(MaceCCancellation* cancellation);
MACE_C_API MaceCStatus mace_c_cancellation_reset(MaceCCancellation* cancellation);

/* ---- Engine configuration ---------------------------------------------- */

/* Engines created from the config use the context's CPU thread pool and,
 * on the GPU, its OpenCL context, queue and program (null: their own, the
 * default). */
MACE_C_API MaceCStatus mace_c_config_set_context(MaceCConfig* config, MaceCContext* context);
/* The engine's sequential group in its context (mace::MaceEngineConfig::
 * SetSequentialGroup): engines of one group >= 0 never run at the same
 * time and share one arena region; -1 (the default) a region of its own. */
MACE_C_API MaceCStatus mace_c_config_set_sequential_group(MaceCConfig* config, int group);
/* The shared CPU arena's bytes as now laid out. */
MACE_C_API MaceCStatus mace_c_context_arena_bytes(const MaceCContext* context, int64_t* bytes);

MACE_C_API MaceCStatus mace_c_config_create(MaceCDevice device, MaceCConfig** config);
/* Null is ignored. */
MACE_C_API void mace_c_config_destroy(MaceCConfig* config);
/* num_threads: -1 or 0 for the policy's default, else 1 to 256; affinity:
 * 0 none, 1 big cores, 2 little cores. Any other value is
 * MACE_C_INVALID_ARGS. */
MACE_C_API MaceCStatus mace_c_config_set_cpu_threads(MaceCConfig* config, int num_threads,
                                                     int affinity);
/* 0 default, 1 low, 2 normal, 3 high. */
MACE_C_API MaceCStatus mace_c_config_set_gpu_hints(MaceCConfig* config, int perf_hint,
                                                   int priority_hint);
/* GPU image storage: 0 fp16_fp32 (half images), 1 fp32_fp32. */
MACE_C_API MaceCStatus mace_c_config_set_gpu_data_type(MaceCConfig* config, int data_type);
/* Lets a GPU engine use an OpenCL device that is not a GPU (0 or 1; any
 * other value is MACE_C_INVALID_ARGS). */
MACE_C_API MaceCStatus mace_c_config_set_opencl_device_fallback(MaceCConfig* config, int allow);
/* The compiled-program cache file of the GPU runtime (null or "" for none). */
MACE_C_API MaceCStatus mace_c_config_set_opencl_cache_file(MaceCConfig* config, const char* path);
/* "auto", "ref", "neon", "avx2", "avx512". */
MACE_C_API MaceCStatus mace_c_config_set_cpu_kernel_family(MaceCConfig* config,
                                                           const char* family);
/* The emulated Hexagon DSP of a MACE_C_HEXAGON engine (docs/design/dsp.md):
 * the qemu-hexagon binary, the DSP image (dsp_runtime.elf) and the deadline
 * of each call to the DSP in milliseconds. A null or "" path, or a timeout
 * of 0, takes the default: MACE_QEMU_HEXAGON (else qemu-hexagon on PATH),
 * MACE_DSP_RUNTIME, and MACE_DSP_TIMEOUT_MS (else 30,000). A timeout below
 * 0 or above a day is MACE_C_INVALID_ARGS and leaves the config as it was.
 * An emulator or image that does not exist fails engine creation with
 * MACE_C_UNSUPPORTED naming the path; a DSP that does not answer within
 * the timeout fails the call with MACE_C_RUNTIME_ERROR. */
MACE_C_API MaceCStatus mace_c_config_set_hexagon_options(MaceCConfig* config,
                                                         const char* emulator_path,
                                                         const char* image_path,
                                                         int64_t call_timeout_ms);

/* 1: an engine created from files reads the weights file into private
 * memory, after which the file may change freely; 0 (the default): it maps
 * the file, which must then stay as it is (see
 * mace_c_engine_create_from_files). */
MACE_C_API MaceCStatus mace_c_config_set_copy_weights_file(MaceCConfig* config, int copy);

/* ---- Engines ------------------------------------------------------------ */

/* Loads a model: the graph file (.pb) and its weights file (.data, memory-
 * mapped read-only unless mace_c_config_set_copy_weights_file says to copy
 * it). The config is copied; it may be destroyed afterwards. The engine
 * reads the model's declared inputs and outputs.
 *
 * Both paths must name regular files (symbolic links are followed): a
 * FIFO, a device, a directory, a socket, a symbolic link loop or a link to
 * nothing is MACE_C_INVALID_ARGS naming the path, without waiting or
 * reading. A mapped weights file that is written, truncated or extended
 * while the engine holds it fails the next run with MACE_C_RUNTIME_ERROR
 * ("weights file '<path>' changed since the engine was created; create the
 * engine again"); a change during a run is not seen until the next one. */
MACE_C_API MaceCStatus mace_c_engine_create_from_files(const char* graph_path,
                                                       const char* weights_path,
                                                       const MaceCConfig* config,
                                                       MaceCEngine** engine);
/* The same from memory (e.g. app assets); both buffers may be freed after
 * the call. weights may be null when weights_size is 0. */
MACE_C_API MaceCStatus mace_c_engine_create_from_buffers(const void* graph, size_t graph_size,
                                                         const void* weights, size_t weights_size,
                                                         const MaceCConfig* config,
                                                         MaceCEngine** engine);
/* Frees the engine and everything it handed out. Null is ignored. */
MACE_C_API void mace_c_engine_destroy(MaceCEngine* engine);

/* The model's inputs and outputs, in the model's order. A name stays valid
 * for the engine's lifetime. */
MACE_C_API MaceCStatus mace_c_engine_input_count(const MaceCEngine* engine, size_t* count);
MACE_C_API MaceCStatus mace_c_engine_input_name(const MaceCEngine* engine, size_t index,
                                                const char** name);
/* The shape the model declares for input `name`: *dims holds *rank values,
 * valid for the engine's lifetime. */
MACE_C_API MaceCStatus mace_c_engine_input_shape(const MaceCEngine* engine, const char* name,
                                                 const int64_t** dims, size_t* rank);
/* The largest shape input `name` takes (the model's max_dims): a dimension
 * larger here than in mace_c_engine_input_shape is dynamic, and a CPU
 * engine runs any value from 1 to this one there, planning its memory
 * again for each new shape. Equal to the declared shape for a fixed input.
 * *dims holds *rank values, valid for the engine's lifetime. */
MACE_C_API MaceCStatus mace_c_engine_input_max_shape(const MaceCEngine* engine, const char* name,
                                                     const int64_t** dims, size_t* rank);
MACE_C_API MaceCStatus mace_c_engine_output_count(const MaceCEngine* engine, size_t* count);
MACE_C_API MaceCStatus mace_c_engine_output_name(const MaceCEngine* engine, size_t index,
                                                 const char** name);

/* Copies `data_size` bytes of input `name`, a tensor of `type` with `rank`
 * dims. rank must be the model's (checked before dims is read);
 * data_size must equal product(dims) * mace_c_data_type_size(type);
 * type must be the model's (an input declared int32, int64 or bool also
 * takes float32; an integer beyond +-2^24 into a float32 model fails the
 * run with MACE_C_INVALID_ARGS) and shape the model's, a dynamic dimension
 * anywhere within its range (checked at run). The input is kept for the
 * next mace_c_engine_run only. A refused input drops every input set since
 * the last run, so a caller that goes on after an error sets them all
 * again. */
MACE_C_API MaceCStatus mace_c_engine_set_input(MaceCEngine* engine, const char* name,
                                               MaceCDataType type, const int64_t* dims,
                                               size_t rank, const void* data, size_t data_size);
/* Drops the inputs set since the last run, for a caller that gives up on a
 * run halfway (e.g. a binding that refuses an input itself). */
MACE_C_API MaceCStatus mace_c_engine_clear_inputs(MaceCEngine* engine);
/* Runs the model on the inputs set since the last run, and consumes them:
 * every input must be set again before the next run. An input not set
 * since the last run is MACE_C_INVALID_ARGS naming it. A failed run leaves
 * no outputs and no inputs behind. */
MACE_C_API MaceCStatus mace_c_engine_run(MaceCEngine* engine);
/* mace_c_engine_run bounded by a timeout in microseconds from the call (0:
 * none; below 0 is MACE_C_INVALID_ARGS) and a cancellation flag (may be
 * null): a run they stop is MACE_C_DEADLINE_EXCEEDED or MACE_C_CANCELLED,
 * leaves no outputs, and consumes the inputs like any failed run. */
MACE_C_API MaceCStatus mace_c_engine_run_with_options(MaceCEngine* engine, int64_t timeout_us,
                                                      const MaceCCancellation* cancellation);
/* Output `name` of the last successful run: its type, shape and data,
 * valid until the next run or destroy. Any out-pointer may be null. */
MACE_C_API MaceCStatus mace_c_engine_get_output(const MaceCEngine* engine, const char* name,
                                                MaceCDataType* type, const int64_t** dims,
                                                size_t* rank, const void** data,
                                                size_t* data_size);
/* The memory plan as a JSON object (arena, weights, naive and lower-bound
 * bytes, re-plans, and one entry per memory type), valid until the next
 * call of this function on the engine or its destroy. */
MACE_C_API MaceCStatus mace_c_engine_memory_report_json(MaceCEngine* engine, const char** json);
/* How many times the engine has planned its memory again because a run
 * brought new shapes of dynamic inputs (0 for a model without any). */
MACE_C_API MaceCStatus mace_c_engine_replans(const MaceCEngine* engine, int64_t* replans);
/* Gives every state tensor of a streaming model its initial value again
 * (MaceEngine::ResetState); nothing to do for a model without state. */
MACE_C_API MaceCStatus mace_c_engine_reset_state(MaceCEngine* engine);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* MACE_PUBLIC_MACE_C_H_ */
