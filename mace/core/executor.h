// An Executor runs one loaded model for MaceEngine: Net runs its ops one by
// one on the runtimes they are placed on; a whole-graph executor (a DSP that
// takes the graph once and runs it as a whole) is another implementation.
// The engine only moves the app's tensors in and out through the host-side
// input and output tensors an executor exposes.
#ifndef MACE_CORE_EXECUTOR_H_
#define MACE_CORE_EXECUTOR_H_

#include <map>
#include <string>
#include <vector>

#include "mace/core/tensor.h"
#include "mace/proto/mace.pb.h"
#include "mace/public/mace.h"
#include "mace/utils/status.h"

namespace mace {

class Executor {
 public:
  virtual ~Executor() = default;
  // Builds the executor for `net_def`: the model inputs come from its
  // input_info, and `output_names` are the tensors the app reads.
  virtual MaceStatus Init(const NetDef& net_def, const std::vector<std::string>& output_names) = 0;
  virtual MaceStatus Run(RunMetadata* run_metadata) = 0;
  // Host tensors (plain, CPU_BUFFER) the engine fills before Run and reads
  // after it; null for names the model does not have.
  virtual Tensor* InputTensor(const std::string& name) = 0;
  virtual const Tensor* OutputTensor(const std::string& name) const = 0;
  // True for an input that has no memory of its own: the engine points it
  // at the app's buffer (or a copy) before Run and detaches it after.
  virtual bool InputReadInPlace(const std::string& /*name*/) const { return false; }
  // True when output shapes may change from one Run to the next (dynamic
  // inputs, or ops whose output shape depends on the data).
  virtual bool OutputShapesVary() const { return false; }
  virtual const MemoryReport& memory_report() const = 0;
  // Gives the inputs `shapes` (every input named) for the next Run. An
  // executor that plans once accepts only the shapes it has; Net also takes
  // the dynamic dimensions the model declares (net.h).
  virtual MaceStatus Reshape(const std::map<std::string, std::vector<int64_t>>& shapes) {
    for (const auto& [name, shape] : shapes) {
      const Tensor* tensor = InputTensor(name);
      MACE_CHECK_ARG(tensor != nullptr, "'", name, "' is not an input of the model");
      if (shape == tensor->shape()) continue;
      return MaceStatus(MaceStatus::MACE_UNSUPPORTED,
                        StrCat("input '", name, "' has shape ", ShapeToString(shape),
                               " but the model expects ", ShapeToString(tensor->shape()),
                               ": this runtime plans the model once, for fixed input shapes; "
                               "only the CPU runtime takes new input shapes"));
    }
    return MaceStatus();
  }
  // The largest shape input `name` takes: its shape unless dynamic.
  virtual std::vector<int64_t> InputMaxShape(const std::string& name) {
    const Tensor* tensor = InputTensor(name);
    return tensor != nullptr ? tensor->shape() : std::vector<int64_t>();
  }
};

}  // namespace mace

#endif  // MACE_CORE_EXECUTOR_H_
