#include <algorithm>

#include "mace/core/arena_plan.h"
#include "mace/utils/status.h"

namespace mace {

class MaceEngineConfig::Impl {
 public:
  DeviceType device_type = DeviceType::CPU;
  int num_threads = -1;
  CPUAffinityPolicy policy = CPUAffinityPolicy::AFFINITY_NONE;
  GPUPerfHint perf_hint = GPUPerfHint::PERF_DEFAULT;
  GPUPriorityHint priority_hint = GPUPriorityHint::PRIORITY_DEFAULT;
  GPUDataType gpu_data_type = GPUDataType::FP16_FP32;
  bool opencl_device_fallback = false;
  std::string opencl_cache_file;
  std::vector<std::string> opencl_binary_paths;
  std::string opencl_parameter_path;
  bool opencl_tuning = false;
  bool opencl_profiling = false;
  bool limit_opencl_kernel_time = false;
  double opencl_work_per_ms = 0;
  std::string opencl_winograd = "auto";
  MemoryStrategy memory_strategy = MemoryStrategy::OPTIMAL;
  int64_t plan_time_limit_ms = kDefaultPlanTimeLimitMs;
  bool preserve_intermediates = false;
  bool preserve_inputs = true;
  bool layout_optimization = true;
  std::string cpu_kernel_family = "auto";
  std::string cpu_blocked_layout = "auto";
  bool cpu_conv_pooling_fusion = true;
  bool cpu_depthwise_pointwise_fusion = true;
  bool cpu_expand_fusion = true;
  CPUPrecision cpu_precision = CPUPrecision::FP32;
  bool verify_weights = true;
  bool copy_weights_file = false;
  int64_t memory_limit = 0;
  std::map<std::string, CustomOpFactory> custom_ops;
  OutputObserver output_observer;
  HexagonOptions hexagon_options;
  std::shared_ptr<MaceContext> context;
  int sequential_group = -1;
};

MaceEngineConfig::MaceEngineConfig(DeviceType device_type) : impl_(new Impl) {
  impl_->device_type = device_type;
}
MaceEngineConfig::~MaceEngineConfig() = default;
MaceEngineConfig::MaceEngineConfig(const MaceEngineConfig& other) : impl_(new Impl(*other.impl_)) {}
MaceEngineConfig& MaceEngineConfig::operator=(const MaceEngineConfig& other) {
  *impl_ = *other.impl_;
  return *this;
}

DeviceType MaceEngineConfig::device_type() const { return impl_->device_type; }

MaceStatus MaceEngineConfig::SetCPUThreadPolicy(int num_threads, CPUAffinityPolicy policy) {
  MACE_CHECK_ARG(num_threads <= 256, "num_threads ", num_threads, " is out of range");
  const int value = static_cast<int>(policy);
  MACE_CHECK_ARG(value >= 0 && value <= 2, "unknown CPU affinity policy ", value);
  impl_->num_threads = num_threads;
  impl_->policy = policy;
  return MaceStatus();
}
int MaceEngineConfig::num_threads() const { return impl_->num_threads; }
CPUAffinityPolicy MaceEngineConfig::cpu_affinity_policy() const { return impl_->policy; }

void MaceEngineConfig::SetGPUHints(GPUPerfHint perf_hint, GPUPriorityHint priority_hint) {
  impl_->perf_hint = perf_hint;
  impl_->priority_hint = priority_hint;
}
GPUPerfHint MaceEngineConfig::gpu_perf_hint() const { return impl_->perf_hint; }
GPUPriorityHint MaceEngineConfig::gpu_priority_hint() const { return impl_->priority_hint; }
void MaceEngineConfig::SetGPUDataType(GPUDataType type) { impl_->gpu_data_type = type; }
GPUDataType MaceEngineConfig::gpu_data_type() const { return impl_->gpu_data_type; }
void MaceEngineConfig::SetOpenCLDeviceFallback(bool allow) {
  impl_->opencl_device_fallback = allow;
}
bool MaceEngineConfig::opencl_device_fallback() const { return impl_->opencl_device_fallback; }
void MaceEngineConfig::SetOpenCLCacheFile(const std::string& path) {
  impl_->opencl_cache_file = path;
}
const std::string& MaceEngineConfig::opencl_cache_file() const {
  return impl_->opencl_cache_file;
}
void MaceEngineConfig::SetOpenCLBinaryPaths(const std::vector<std::string>& paths) {
  impl_->opencl_binary_paths = paths;
}
const std::vector<std::string>& MaceEngineConfig::opencl_binary_paths() const {
  return impl_->opencl_binary_paths;
}
void MaceEngineConfig::SetOpenCLParameterPath(const std::string& path) {
  impl_->opencl_parameter_path = path;
}
MaceStatus MaceEngineConfig::SetHexagonOptions(const HexagonOptions& options) {
  constexpr int64_t kDayMs = int64_t{24} * 3600 * 1000;
  if (options.call_timeout_ms < 0 || options.call_timeout_ms > kDayMs) {
    return MaceStatus(MaceStatus::MACE_INVALID_ARGS,
                      StrCat("Hexagon call timeout ", options.call_timeout_ms,
                             " ms: expected 0 (the default) to a day"));
  }
  impl_->hexagon_options = options;
  return MaceStatus();
}
const HexagonOptions& MaceEngineConfig::hexagon_options() const { return impl_->hexagon_options; }
const std::string& MaceEngineConfig::opencl_parameter_path() const {
  return impl_->opencl_parameter_path;
}
void MaceEngineConfig::SetOpenCLTuning(bool tune) { impl_->opencl_tuning = tune; }
bool MaceEngineConfig::opencl_tuning() const { return impl_->opencl_tuning; }
void MaceEngineConfig::SetOpenCLProfiling(bool profile) { impl_->opencl_profiling = profile; }
bool MaceEngineConfig::opencl_profiling() const { return impl_->opencl_profiling; }
void MaceEngineConfig::SetLimitOpenCLKernelTime(bool limit) {
  impl_->limit_opencl_kernel_time = limit;
}
bool MaceEngineConfig::limit_opencl_kernel_time() const {
  return impl_->limit_opencl_kernel_time;
}

void MaceEngineConfig::SetMemoryStrategy(MemoryStrategy strategy) {
  impl_->memory_strategy = strategy;
}
MemoryStrategy MaceEngineConfig::memory_strategy() const { return impl_->memory_strategy; }
void MaceEngineConfig::SetMemoryPlanTimeLimitMs(int64_t time_limit_ms) {
  impl_->plan_time_limit_ms = time_limit_ms;
}
int64_t MaceEngineConfig::memory_plan_time_limit_ms() const { return impl_->plan_time_limit_ms; }
void MaceEngineConfig::SetPreserveIntermediates(bool preserve) {
  impl_->preserve_intermediates = preserve;
}
bool MaceEngineConfig::preserve_intermediates() const { return impl_->preserve_intermediates; }
void MaceEngineConfig::SetPreserveInputs(bool preserve) { impl_->preserve_inputs = preserve; }
bool MaceEngineConfig::preserve_inputs() const { return impl_->preserve_inputs; }
void MaceEngineConfig::SetLayoutOptimization(bool enable) { impl_->layout_optimization = enable; }
bool MaceEngineConfig::layout_optimization() const { return impl_->layout_optimization; }
void MaceEngineConfig::SetCPUKernelFamily(const std::string& family) {
  impl_->cpu_kernel_family = family;
}
const std::string& MaceEngineConfig::cpu_kernel_family() const { return impl_->cpu_kernel_family; }
void MaceEngineConfig::SetCPUBlockedLayout(const std::string& mode) {
  impl_->cpu_blocked_layout = mode;
}
const std::string& MaceEngineConfig::cpu_blocked_layout() const {
  return impl_->cpu_blocked_layout;
}
void MaceEngineConfig::SetCPUConvPoolingFusion(bool fuse) { impl_->cpu_conv_pooling_fusion = fuse; }
bool MaceEngineConfig::cpu_conv_pooling_fusion() const { return impl_->cpu_conv_pooling_fusion; }
void MaceEngineConfig::SetCPUDepthwisePointwiseFusion(bool fuse) {
  impl_->cpu_depthwise_pointwise_fusion = fuse;
}
bool MaceEngineConfig::cpu_depthwise_pointwise_fusion() const {
  return impl_->cpu_depthwise_pointwise_fusion;
}
void MaceEngineConfig::SetCPUExpandFusion(bool fuse) { impl_->cpu_expand_fusion = fuse; }
bool MaceEngineConfig::cpu_expand_fusion() const { return impl_->cpu_expand_fusion; }
void MaceEngineConfig::SetOpenCLWorkPerMs(double work_per_ms) {
  impl_->opencl_work_per_ms = work_per_ms;
}
double MaceEngineConfig::opencl_work_per_ms() const { return impl_->opencl_work_per_ms; }
void MaceEngineConfig::SetOpenCLWinograd(const std::string& mode) {
  impl_->opencl_winograd = mode;
}
const std::string& MaceEngineConfig::opencl_winograd() const { return impl_->opencl_winograd; }
void MaceEngineConfig::SetCPUPrecision(CPUPrecision precision) {
  impl_->cpu_precision = precision;
}
CPUPrecision MaceEngineConfig::cpu_precision() const { return impl_->cpu_precision; }
void MaceEngineConfig::SetVerifyWeights(bool verify) { impl_->verify_weights = verify; }
bool MaceEngineConfig::verify_weights() const { return impl_->verify_weights; }
void MaceEngineConfig::SetCopyWeightsFile(bool copy) { impl_->copy_weights_file = copy; }
bool MaceEngineConfig::copy_weights_file() const { return impl_->copy_weights_file; }
void MaceEngineConfig::SetMemoryLimit(int64_t bytes) { impl_->memory_limit = std::max<int64_t>(bytes, 0); }
int64_t MaceEngineConfig::memory_limit() const { return impl_->memory_limit; }

void MaceEngineConfig::SetOutputObserver(OutputObserver observer) {
  impl_->output_observer = std::move(observer);
}
const OutputObserver& MaceEngineConfig::output_observer() const { return impl_->output_observer; }

void MaceEngineConfig::SetContext(std::shared_ptr<MaceContext> context) {
  impl_->context = std::move(context);
}

const std::shared_ptr<MaceContext>& MaceEngineConfig::context() const { return impl_->context; }

MaceStatus MaceEngineConfig::SetSequentialGroup(int group) {
  MACE_CHECK_ARG(group >= -1, "sequential group ", group, " is below -1");
  impl_->sequential_group = group;
  return MaceStatus();
}

int MaceEngineConfig::sequential_group() const { return impl_->sequential_group; }

MaceStatus MaceEngineConfig::RegisterCustomOp(const std::string& type, CustomOpFactory factory) {
  MACE_CHECK_ARG(!type.empty(), "a custom op needs a type name");
  MACE_CHECK_ARG(factory != nullptr, "custom op '", type, "' has no factory");
  MACE_CHECK_ARG(impl_->custom_ops.count(type) == 0, "custom op '", type, "' is registered twice");
  impl_->custom_ops[type] = std::move(factory);
  return MaceStatus();
}

const std::map<std::string, CustomOpFactory>& MaceEngineConfig::custom_ops() const {
  return impl_->custom_ops;
}

}  // namespace mace
