// The public C++ API of MACE, the Mobile AI Compute Engine.
//
// An app loads a model (a graph plus one weights blob), creates an engine for
// one runtime, and runs it on named input tensors. No call aborts the process:
// every failure comes back as a MaceStatus with a message naming the problem.

#ifndef MACE_PUBLIC_MACE_H_
#define MACE_PUBLIC_MACE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mace {

enum class DeviceType { CPU = 0, GPU = 2, HEXAGON = 3 };

enum class DataFormat { NONE = 0, NHWC = 1, NCHW = 2, OIHW = 3 };

enum class CPUAffinityPolicy {
  AFFINITY_NONE = 0,
  AFFINITY_BIG_ONLY = 1,
  AFFINITY_LITTLE_ONLY = 2,
};

enum class GPUPerfHint { PERF_DEFAULT = 0, PERF_LOW = 1, PERF_NORMAL = 2, PERF_HIGH = 3 };

enum class GPUPriorityHint {
  PRIORITY_DEFAULT = 0,
  PRIORITY_LOW = 1,
  PRIORITY_NORMAL = 2,
  PRIORITY_HIGH = 3,
};

// How the GPU stores its image tensors: FP16_FP32 keeps them as half floats
// (computing in float, or in half where the device has cl_khr_fp16);
// FP32_FP32 keeps float images.
enum class GPUDataType { FP16_FP32 = 0, FP32_FP32 = 1 };

// The arithmetic of a CPU engine's float ops. FP16 (the deployment file's
// `data_type: fp16_fp16` for `runtime: cpu`) runs convolutions and
// FullyConnected with half-precision weights and activations on arm64 CPUs
// with ARMv8.2 FP16 arithmetic; elsewhere the engine logs that it runs FP32.
enum class CPUPrecision { FP32 = 0, FP16 = 1 };

// How intermediate tensors share memory. Object strategies are turned into
// one arena by stacking their objects; GREEDY_BY_SIZE places offsets
// directly; OPTIMAL, the default, searches for the smallest arena within a
// budget, starting from the best greedy plan (docs/design/memory_planning.md).
enum class MemoryStrategy {
  NAIVE = 0,
  EQUALITY = 1,
  GREEDY_IN_ORDER = 2,
  GREEDY_BY_BREADTH = 3,
  GREEDY_BY_SIZE = 4,
  GREEDY_BEST = 5,
  MINCOSTFLOW = 6,
  OPTIMAL = 7,
};

class MaceStatus {
 public:
  enum Code {
    MACE_SUCCESS = 0,
    MACE_INVALID_ARGS = 1,
    MACE_OUT_OF_RESOURCES = 2,
    MACE_UNSUPPORTED = 3,
    MACE_RUNTIME_ERROR = 4,
    // A Run stopped early: its CancellationFlag was set, or its
    // RunOptions::timeout_micros passed. The engine is ready for the next Run.
    MACE_CANCELLED = 5,
    MACE_DEADLINE_EXCEEDED = 6,
  };

  MaceStatus() = default;
  MaceStatus(Code code) : code_(code) {}  // NOLINT(runtime/explicit)
  MaceStatus(Code code, std::string information)
      : code_(code), information_(std::move(information)) {}

  Code code() const { return code_; }
  bool ok() const { return code_ == MACE_SUCCESS; }
  const std::string& information() const { return information_; }
  // "INVALID_ARGS: <message>", for logs and command-line tools.
  std::string ToString() const;

  bool operator==(Code code) const { return code_ == code; }
  bool operator!=(Code code) const { return code_ != code; }

 private:
  Code code_ = MACE_SUCCESS;
  std::string information_;
};

// The element types an app can exchange with the engine. BOOL is one byte
// per element holding 0 or 1. A model input or output declared INT32, INT64
// or BOOL whose ops compute in float32 is converted at the boundary; values
// that float32 cannot hold exactly (an integer beyond +-2^24) are refused
// with MACE_INVALID_ARGS rather than rounded (docs/how-to/cpp.md).
enum class TensorDataType { FLOAT32 = 0, INT32 = 1, UINT8 = 2, INT64 = 3, BOOL = 4 };

// Bytes per element of `type`.
int TensorDataTypeSize(TensorDataType type);
// "float32", "int32", "uint8", "int64", "bool".
const char* TensorDataTypeName(TensorDataType type);

// A dense tensor that the app owns. The engine reads inputs from and writes
// outputs into `data`, which must hold product(shape) elements of the
// tensor's data type. Float tensors are the common case; int32, int64,
// bool and uint8 ones carry integer model inputs and outputs (indices,
// masks, quantized data).
class MaceTensor {
 public:
  MaceTensor() = default;
  MaceTensor(std::vector<int64_t> shape, std::shared_ptr<float> data,
             DataFormat format = DataFormat::NCHW)
      : shape_(std::move(shape)), data_(std::move(data)), format_(format) {}
  MaceTensor(std::vector<int64_t> shape, std::shared_ptr<void> data, TensorDataType data_type,
             DataFormat format = DataFormat::NCHW)
      : shape_(std::move(shape)), data_(std::move(data)), data_type_(data_type), format_(format) {}

  const std::vector<int64_t>& shape() const { return shape_; }
  TensorDataType data_type() const { return data_type_; }
  // The float data; null when the tensor holds another type.
  std::shared_ptr<float> data() const {
    return data_type_ == TensorDataType::FLOAT32 ? std::static_pointer_cast<float>(data_) : nullptr;
  }
  // The data as whatever type the tensor holds.
  const std::shared_ptr<void>& raw_data() const { return data_; }
  DataFormat data_format() const { return format_; }
  // Elements in the shape; -1 when a dimension is negative or the product
  // overflows int64.
  int64_t size() const;

 private:
  std::vector<int64_t> shape_;
  std::shared_ptr<void> data_;
  TensorDataType data_type_ = TensorDataType::FLOAT32;
  DataFormat format_ = DataFormat::NCHW;
};

// Per-operator statistics from one Run.
struct OperatorStats {
  std::string operator_name;
  std::string type;
  std::vector<std::vector<int64_t>> output_shape;
  int64_t start_micros = 0;
  int64_t end_micros = 0;
  int64_t macs = 0;
  // The op's kernel time on the device (GPU: from profiling events, with
  // MaceEngineConfig::SetOpenCLProfiling), or -1 when not measured.
  int64_t device_micros = -1;
};

struct RunMetadata {
  std::vector<OperatorStats> op_stats;
};

// Where one intermediate tensor lives and when it is alive.
struct TensorPlacement {
  std::string name;
  std::string memory_type;  // "CPU_BUFFER", "GPU_BUFFER" or "GPU_IMAGE"
  int64_t offset = -1;      // byte offset in its arena; -1 when not in one
  int64_t size = 0;         // bytes
  int first_op = 0;         // inclusive lifetime, in op indices
  int last_op = 0;
  std::string alias_of;  // set when the tensor shares its input's memory
  int64_t image = -1;    // GPU_IMAGE: which of the planned images holds it
};

// The plan of one memory type (CPU_BUFFER, GPU_BUFFER, GPU_IMAGE): each is
// planned on its own and allocated by the runtime that owns it.
struct MemoryTypeReport {
  std::string memory_type;
  std::string runtime;  // "CPU", "GPU", ...
  std::string strategy;
  int64_t bytes = 0;              // planned, in all its blocks
  int64_t naive_bytes = 0;        // one block per tensor, no sharing
  int64_t lower_bound_bytes = 0;  // max bytes live at any op
  int blocks = 0;                 // one arena for buffers; one per shared image
};

struct MemoryReport {
  std::string strategy;
  int64_t arena_bytes = 0;        // planned arena for intermediates
  int64_t persistent_bytes = 0;   // arena of packed weights, for the engine's lifetime
  int64_t scratch_bytes = 0;      // kernel scratch shared by all ops
  int64_t weights_bytes = 0;      // constant tensors
  // State tensors of a streaming model, each in memory of its own (never
  // an arena), with a copy of their initial values for ResetState.
  int64_t state_bytes = 0;
  // Kept by ops outside the arenas for the engine's lifetime: filters packed
  // inside an op, lookup tables, per-thread buffers kept between runs.
  int64_t op_bytes = 0;
  // Model inputs read in place from the app's buffers (not the engine's).
  int64_t app_input_bytes = 0;
  // Copies of inputs the engine made when an app buffer could not be read
  // in place (another type, or misaligned); 0 until such a run.
  int64_t input_copy_bytes = 0;
  int64_t naive_bytes = 0;        // one buffer per tensor, no sharing
  int64_t lower_bound_bytes = 0;  // max bytes live at any op
  int64_t plan_micros = 0;        // time the planner took at init (or the last re-plan)
  int64_t replans = 0;            // plans made again for new shapes of dynamic inputs
  std::vector<TensorPlacement> tensors;
  // Every memory type the net uses; the fields above repeat CPU_BUFFER's.
  std::vector<MemoryTypeReport> memory_types;
  // An engine in a MaceContext keeps its CPU arena (arena_bytes, with the
  // offsets in `tensors`) as its part of the context's shared CPU arena:
  // the whole shared arena's bytes, and where this engine's part starts in
  // it. 0 and -1 for an engine without a context.
  int64_t shared_arena_bytes = 0;
  int64_t shared_arena_offset = -1;
};

// ---- Custom operators ------------------------------------------------------

// What a custom op sees while it prepares or runs. Inputs and outputs are
// float32 tensors in the engine's CPU layout (NCHW).
class CustomOpContext {
 public:
  virtual ~CustomOpContext() = default;
  virtual int InputCount() const = 0;
  virtual int OutputCount() const = 0;
  virtual std::vector<int64_t> InputShape(int index) const = 0;
  virtual const float* InputData(int index) const = 0;
  // Prepare sets each output's shape; Run fills the data.
  virtual MaceStatus SetOutputShape(int index, const std::vector<int64_t>& shape) = 0;
  virtual float* OutputData(int index) = 0;
  // Arguments from the model's OperatorDef.
  virtual bool HasArg(const std::string& name) const = 0;
  virtual int64_t GetIntArg(const std::string& name, int64_t default_value) const = 0;
  virtual float GetFloatArg(const std::string& name, float default_value) const = 0;
  virtual std::vector<int64_t> GetIntsArg(const std::string& name) const = 0;
};

// An app-defined operator. Prepare validates inputs and sets output shapes
// once at init; Run computes.
class CustomOp {
 public:
  virtual ~CustomOp() = default;
  virtual MaceStatus Prepare(CustomOpContext* context) = 0;
  virtual MaceStatus Run(CustomOpContext* context) = 0;
};

using CustomOpFactory = std::function<std::unique_ptr<CustomOp>()>;

// Sees each float32 output of each op right after the op runs, as plain NCHW
// values on the host: the tensor's name, shape and data (valid only during
// the call). Calibration tools use it to measure activation ranges.
using OutputObserver = std::function<void(const std::string& tensor_name,
                                          const std::vector<int64_t>& shape, const float* data)>;

// ---- Engine ----------------------------------------------------------------

// Stops the Runs it is given (RunOptions) when any thread calls Cancel(). A
// Run that sees it set returns MACE_CANCELLED; the flag stays set for later
// Runs until Reset(). The app keeps it alive while a Run uses it.
class CancellationFlag {
 public:
  void Cancel() { cancelled_.store(true, std::memory_order_release); }
  void Reset() { cancelled_.store(false, std::memory_order_release); }
  bool cancelled() const { return cancelled_.load(std::memory_order_acquire); }

 private:
  std::atomic<bool> cancelled_{false};
};

// Bounds one Run (docs/how-to/pipelines.md). The CPU checks between ops and
// between the pieces of each parallel loop; the GPU between ops and
// between the enqueued pieces of a split kernel; the DSP before each DSP
// graph, and every millisecond while a call waits, ending the DSP session
// (the next Run starts a new one).
struct RunOptions {
  // Microseconds the Run may take from its call; past them it returns
  // MACE_DEADLINE_EXCEEDED. 0: no limit; below 0 is MACE_INVALID_ARGS.
  int64_t timeout_micros = 0;
  // Null: the Run cannot be cancelled.
  const CancellationFlag* cancellation = nullptr;
};

// What the engines of one app share (docs/how-to/pipelines.md):
// - one CPU thread pool, created with the context, so engines given it
//   start no threads of their own. Engines may run from several app
//   threads at once: one Run at a time has the pool's workers, and a
//   parallel loop of another Run that finds them busy runs on its own
//   calling thread, with the same results;
// - one CPU arena for the intermediates of its engines. Engines of one
//   sequential group (MaceEngineConfig::SetSequentialGroup) never run at
//   the same time and share one region of it, as large as the largest of
//   their plans; each group, and each engine outside a group, has a region
//   of its own. The layout is planned again when an engine joins or leaves.
//   A Run of an engine whose group has another engine running is refused
//   with MACE_RUNTIME_ERROR naming the group;
// - one OpenCL context, queue, program and table of tuned work-group sizes
//   for its GPU engines with the same device settings;
// - one DSP session for its Hexagon engines with the same emulator and
//   image; their DSP calls take turns.
// The context lives as long as the last engine or config holding it.
class MaceContext {
 public:
  // num_threads <= 0 means one thread per core the policy allows; a larger
  // count is clamped to those cores. The pool's threads start here.
  static MaceStatus Create(int num_threads, CPUAffinityPolicy policy,
                           std::shared_ptr<MaceContext>* context);
  ~MaceContext();
  MaceContext(const MaceContext&) = delete;
  MaceContext& operator=(const MaceContext&) = delete;
  // Threads of the CPU pool, the calling thread included.
  int num_threads() const;
  CPUAffinityPolicy cpu_affinity_policy() const;
  // Bytes of the shared CPU arena as now laid out.
  int64_t arena_bytes() const;

  class Impl;
  Impl* impl() const { return impl_.get(); }

 private:
  MaceContext();
  std::unique_ptr<Impl> impl_;
};

// The emulated Hexagon DSP of a DeviceType::HEXAGON engine
// (docs/design/dsp.md). Empty paths and a zero timeout take their defaults:
// qemu-hexagon on PATH, no image, 30,000 ms. MACE_QEMU_HEXAGON,
// MACE_DSP_RUNTIME and MACE_DSP_TIMEOUT_MS override those defaults
// (debugging overrides, docs/reference/environment.md).
struct HexagonOptions {
  std::string emulator_path;  // the qemu-hexagon binary
  std::string image_path;     // the DSP image, dsp_runtime.elf
  int64_t call_timeout_ms = 0;  // deadline of each call to the DSP
};

class MaceEngineConfig {
 public:
  explicit MaceEngineConfig(DeviceType device_type = DeviceType::CPU);
  ~MaceEngineConfig();
  MaceEngineConfig(const MaceEngineConfig& other);
  MaceEngineConfig& operator=(const MaceEngineConfig& other);

  DeviceType device_type() const;
  // num_threads <= 0 means "all cores the policy allows".
  MaceStatus SetCPUThreadPolicy(int num_threads, CPUAffinityPolicy policy);
  int num_threads() const;
  CPUAffinityPolicy cpu_affinity_policy() const;
  void SetGPUHints(GPUPerfHint perf_hint, GPUPriorityHint priority_hint);
  GPUPerfHint gpu_perf_hint() const;
  GPUPriorityHint gpu_priority_hint() const;
  // The GPU's image storage (default FP16_FP32).
  void SetGPUDataType(GPUDataType type);
  GPUDataType gpu_data_type() const;
  // A GPU engine runs on an OpenCL GPU device. With fallback allowed
  // (default off) it takes any OpenCL device when there is no GPU, such as
  // a CPU implementation (PoCL); without, engine creation then fails with
  // MACE_UNSUPPORTED naming the devices found.
  void SetOpenCLDeviceFallback(bool allow);
  bool opencl_device_fallback() const;
  // The compiled-program cache file of a GPU engine (default: none, the
  // kernels are built from source at each engine creation). A valid file
  // for this device, driver and library is loaded; a missing, stale,
  // foreign or corrupt one is rebuilt and rewritten, with one warning.
  void SetOpenCLCacheFile(const std::string& path);
  const std::string& opencl_cache_file() const;
  // Precompiled program files shipped with the app (the cache file's
  // format, e.g. one a tuning build wrote), tried in order before the
  // cache file. They are only read; one built for another device, driver
  // or library is skipped with a warning.
  void SetOpenCLBinaryPaths(const std::vector<std::string>& paths);
  const std::vector<std::string>& opencl_binary_paths() const;
  // The tuned-parameter file: the work-group size of each kernel launch,
  // for this device. A missing, foreign or corrupt file is ignored with a
  // warning. With tuning on, launches the file lacks are timed over
  // candidate sizes and the file is (re)written after the run.
  void SetOpenCLParameterPath(const std::string& path);
  const std::string& opencl_parameter_path() const;
  void SetOpenCLTuning(bool tune);
  bool opencl_tuning() const;
  // Profiling events for every GPU kernel, so RunMetadata carries each
  // op's device time (OperatorStats::device_micros). Default off.
  void SetOpenCLProfiling(bool profile);
  bool opencl_profiling() const;
  // limit_opencl_kernel_time (default off): a GPU engine splits its long
  // kernels (convolutions, FullyConnected, MatMul) into pieces of about
  // 1 ms of device work each, enqueued one after another, so that other
  // GPU users (the UI on a phone) get the device in between. Results are
  // unchanged; a run takes slightly longer.
  void SetLimitOpenCLKernelTime(bool limit);
  bool limit_opencl_kernel_time() const;
  // The device's multiply-adds per millisecond that sizes those pieces;
  // 0 (the default): 5e7, or MACE_OPENCL_WORK_PER_MS when set. Below 0 or
  // not finite fails engine creation with MACE_INVALID_ARGS.
  void SetOpenCLWorkPerMs(double work_per_ms);
  double opencl_work_per_ms() const;
  // Winograd for the GPU's 3x3 stride-1 convolutions: "auto" (the default:
  // where the converter marked it or the channels make it pay; or
  // MACE_OPENCL_WINOGRAD when set), "on" (every eligible one) or "off".
  // Other values fail engine creation with MACE_INVALID_ARGS.
  void SetOpenCLWinograd(const std::string& mode);
  const std::string& opencl_winograd() const;
  void SetMemoryStrategy(MemoryStrategy strategy);  // default OPTIMAL
  MemoryStrategy memory_strategy() const;
  // Budget of MemoryStrategy::OPTIMAL (default 10 ms): that many
  // milliseconds and 1,000 search steps per millisecond, whichever runs out
  // first; the best plan found by then is used. The step budget, which
  // normally ends the search, gives the same plan on every run.
  void SetMemoryPlanTimeLimitMs(int64_t time_limit_ms);
  int64_t memory_plan_time_limit_ms() const;
  // Keep every intermediate readable after Run (debugging); no sharing.
  void SetPreserveIntermediates(bool preserve);
  bool preserve_intermediates() const;
  // Keep the graph inputs intact for the whole run (the default). Off, an
  // input's bytes are reused once its last reader has run, which saves
  // memory when inputs are large; Run copies the inputs in every time.
  // A CPU engine reads plain inputs in place from the app's buffers
  // during Run, with no arena bytes, whatever this says.
  void SetPreserveInputs(bool preserve);
  bool preserve_inputs() const;
  // Let runtimes keep runs of ops in layouts of their own where that is
  // faster (the default). On the CPU that is the channel-blocked layout: 1x1
  // convolutions then read their input in place, and depthwise convolutions
  // and pooling work on vectors of channels. Inputs and outputs stay NCHW
  // either way. Off, SetCPUBlockedLayout has no effect.
  void SetLayoutOptimization(bool enable);
  bool layout_optimization() const;
  // Where the CPU uses the channel-blocked layout: "auto" (the default:
  // where it pays on this CPU), "on" (wherever blocked kernels exist) or
  // "off". Other values fail engine creation with MACE_INVALID_ARGS.
  // Settings left at their defaults here and in the three fusions below
  // take the environment's debugging overrides (MACE_CPU_BLOCKED_LAYOUT,
  // MACE_CPU_FUSE_*; docs/reference/environment.md).
  void SetCPUBlockedLayout(const std::string& mode);
  const std::string& cpu_blocked_layout() const;
  // Fusions of the blocked layout, each on by default; off runs the two
  // layers one after the other (more memory traffic; the results agree to
  // float rounding). A
  // blocked convolution with the pooling that alone reads it:
  void SetCPUConvPoolingFusion(bool fuse);
  bool cpu_conv_pooling_fusion() const;
  // A 3x3 depthwise convolution with the 1x1 convolution after it:
  void SetCPUDepthwisePointwiseFusion(bool fuse);
  bool cpu_depthwise_pointwise_fusion() const;
  // Also the 1x1 expansion before such a pair (needs the pair's fusion):
  void SetCPUExpandFusion(bool fuse);
  bool cpu_expand_fusion() const;
  // The CPU kernel family this engine uses: "auto" (the default: the best
  // this CPU has, or MACE_CPU_KERNELS when set), "ref" (the reference
  // kernels), or "neon", "avx2", "avx512". Engine creation fails with
  // MACE_UNSUPPORTED when the CPU or this build lacks the family. Engines in
  // one process may use different families.
  void SetCPUKernelFamily(const std::string& family);
  const std::string& cpu_kernel_family() const;
  // Half-precision arithmetic for the CPU (default FP32); see CPUPrecision.
  void SetCPUPrecision(CPUPrecision precision);
  CPUPrecision cpu_precision() const;
  // Check the weights against the CRC-32C the converter stored in the model
  // (the default): Init then fails with MACE_INVALID_ARGS on a truncated or
  // corrupt weights file instead of running it. Costs one pass over the
  // weights at init. Models converted without a checksum load unchecked.
  void SetVerifyWeights(bool verify);
  bool verify_weights() const;
  // How an engine created from a weights file holds it. Off (the default),
  // the file is memory-mapped read-only and the CPU kernels read the
  // weights in place, with no copy; the file must then stay as it is while
  // the engine lives. Before each Run of an engine that still holds the
  // mapping, one fstat compares the file with what it was at creation
  // (device, inode, size, modification and status-change times); a file
  // written, truncated or extended since then fails the Run with
  // MACE_RUNTIME_ERROR ("weights file '<path>' changed since the engine was
  // created; create the engine again") instead of reading pages that may
  // fault or hold other weights. A change made during a Run is not seen
  // until the next one. A file replaced by rename or deleted is not a
  // change: the engine keeps the old file's pages. On, the file is read
  // into private memory at creation (its size in memory, for the engine's
  // lifetime) and may then change freely.
  void SetCopyWeightsFile(bool copy);
  bool copy_weights_file() const;
  // The most bytes the model's planned tensor memory (every arena and image
  // the engine allocates for intermediates, inputs and outputs) may take;
  // Init fails with MACE_OUT_OF_RESOURCES naming the need before allocating
  // more. For apps that load untrusted models. 0 (the default): no limit.
  void SetMemoryLimit(int64_t bytes);
  int64_t memory_limit() const;
  // Calls `observer` after every op of every Run (off by default; null turns
  // it off). It needs the values in plain layout, so setting it also turns
  // layout optimization off; outputs of ops on other runtimes than the CPU
  // are not observed.
  void SetOutputObserver(OutputObserver observer);
  const OutputObserver& output_observer() const;
  // Where the DSP emulator and image are, and the deadline of each call
  // (HexagonOptions). A timeout below 0 or above a day is MACE_INVALID_ARGS
  // and leaves the options as they were; a missing emulator or image fails
  // engine creation with MACE_UNSUPPORTED naming the path.
  MaceStatus SetHexagonOptions(const HexagonOptions& options);
  const HexagonOptions& hexagon_options() const;
  // The shared context of this engine (default: none, the engine starts a
  // CPU pool of its own). With one, SetCPUThreadPolicy has no effect: the
  // engine uses the context's pool.
  void SetContext(std::shared_ptr<MaceContext> context);
  const std::shared_ptr<MaceContext>& context() const;
  // The sequential group of an engine in a context: engines of one group
  // (a number >= 0 the app chooses) promise never to run at the same time
  // and share one arena region. -1 (the default): a region of its own, so
  // it may run at any time. Below -1 is MACE_INVALID_ARGS.
  MaceStatus SetSequentialGroup(int group);
  int sequential_group() const;
  // Registers an app operator for op type `type` (float32, CPU).
  MaceStatus RegisterCustomOp(const std::string& type, CustomOpFactory factory);
  const std::map<std::string, CustomOpFactory>& custom_ops() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

class MaceEngine {
 public:
  explicit MaceEngine(const MaceEngineConfig& config);
  ~MaceEngine();
  MaceEngine(const MaceEngine&) = delete;
  MaceEngine& operator=(const MaceEngine&) = delete;

  // Loads a serialized NetDef and its weights from memory. The engine copies
  // what it needs; the buffers may be freed after Init returns.
  MaceStatus Init(const unsigned char* model_graph, size_t model_graph_size,
                  const std::vector<std::string>& input_nodes,
                  const std::vector<std::string>& output_nodes, const unsigned char* model_weights,
                  size_t model_weights_size);
  // As above, but memory-maps the weights file read-only; CPU kernels use the
  // weights in place (or copies it: MaceEngineConfig::SetCopyWeightsFile,
  // which also says what a change of the file does). The file must be a
  // regular file: a FIFO, a device, a directory or a socket is refused with
  // MACE_INVALID_ARGS naming the path, as are a missing file, a symbolic
  // link loop and a link to nothing.
  MaceStatus Init(const unsigned char* model_graph, size_t model_graph_size,
                  const std::vector<std::string>& input_nodes,
                  const std::vector<std::string>& output_nodes,
                  const std::string& model_weights_file);

  // Runs one inference. A CPU engine reads each plain input where the app
  // keeps it until Run returns, so the app must not write those buffers
  // from another thread meanwhile; the engine never writes them.
  MaceStatus Run(const std::map<std::string, MaceTensor>& inputs,
                 std::map<std::string, MaceTensor>* outputs);
  MaceStatus Run(const std::map<std::string, MaceTensor>& inputs,
                 std::map<std::string, MaceTensor>* outputs, RunMetadata* run_metadata);
  // A Run that stops early when `options` says so (MACE_CANCELLED,
  // MACE_DEADLINE_EXCEEDED), leaving `outputs` untouched. `run_metadata`
  // may be null.
  MaceStatus Run(const std::map<std::string, MaceTensor>& inputs,
                 std::map<std::string, MaceTensor>* outputs, RunMetadata* run_metadata,
                 const RunOptions& options);

  // Each input's current shape: the one the model declares until a Run
  // gives a dynamic input another; valid after Init.
  MaceStatus GetInputShapes(std::map<std::string, std::vector<int64_t>>* shapes) const;
  // The largest shape each input takes. A dimension larger here than in
  // GetInputShapes' default is dynamic: Run takes any value from 1 to this
  // one there (CPU runtime; docs/how-to/cpp.md). Equal for a fixed input.
  MaceStatus GetInputMaxShapes(std::map<std::string, std::vector<int64_t>>* shapes) const;
  // The element type the app feeds each input: the model's declared app
  // type (int64 token ids, a bool mask, ...), else the engine's own type.
  // Run also takes float32 for an integer input. Valid after Init.
  MaceStatus GetInputDataTypes(std::map<std::string, TensorDataType>* types) const;
  // The input and output names in the model's order (or as Init was given
  // them); valid after Init.
  MaceStatus GetInputNames(std::vector<std::string>* names) const;
  MaceStatus GetOutputNames(std::vector<std::string>* names) const;
  // Where every intermediate tensor lives; valid after Init.
  MaceStatus GetMemoryReport(MemoryReport* report) const;
  // Gives every state tensor of the model (the memory a streaming model
  // keeps between Runs, docs/how-to/streaming_state.md) its initial value
  // again, as after Init; a model without state has nothing to reset. Not
  // to be called while a Run is in progress on another thread.
  MaceStatus ResetState();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// Creates and initializes an engine from a serialized graph and a weights
// file (memory-mapped, or copied; see MaceEngine::Init).
MaceStatus CreateMaceEngineFromProto(const unsigned char* model_graph, size_t model_graph_size,
                                     const std::string& model_weights_file,
                                     const std::vector<std::string>& input_nodes,
                                     const std::vector<std::string>& output_nodes,
                                     const MaceEngineConfig& config,
                                     std::shared_ptr<MaceEngine>* engine);

// Same, with the weights already in memory (e.g. read from app assets).
MaceStatus CreateMaceEngineFromProto(const unsigned char* model_graph, size_t model_graph_size,
                                     const unsigned char* model_weights, size_t model_weights_size,
                                     const std::vector<std::string>& input_nodes,
                                     const std::vector<std::string>& output_nodes,
                                     const MaceEngineConfig& config,
                                     std::shared_ptr<MaceEngine>* engine);

// "0.1.0"
const char* MaceVersion();

}  // namespace mace

#endif  // MACE_PUBLIC_MACE_H_
