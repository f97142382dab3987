// Operation: the device-neutral base of every op kernel.
//
// Lifecycle: the registry creates the op, Construct() binds its input and
// output tensors and calls Init() to parse and validate arguments, Prepare()
// checks input shapes and sets output shapes once the input shapes are known,
// and Run() computes without allocating. Every step reports failure through
// MaceStatus with a message that names the op.
//
// Arguments: Init reads every argument the op understands through the
// getters below. A getter that finds its argument in the wrong field (an int
// where a string belongs) records an error, and Construct returns the first
// such error after Init. Construct also refuses an argument given twice and
// any argument Init did not ask for (HasArg counts as asking), so that a
// misspelt name cannot quietly fall back to a default. An argument read
// only in Prepare or Run therefore counts as unknown: read it in Init.
#ifndef MACE_CORE_OPERATION_H_
#define MACE_CORE_OPERATION_H_

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "mace/core/tensor.h"
#include "mace/proto/mace.pb.h"
#include "mace/public/mace.h"
#include "mace/utils/status.h"

namespace mace {

// The heap bytes of some vectors (their capacity), for Operation::HeldBytes.
template <typename... Vectors>
int64_t VectorBytes(const Vectors&... vectors) {
  return (int64_t{0} + ... +
          static_cast<int64_t>(vectors.capacity() * sizeof(typename Vectors::value_type)));
}

class Runtime;
class Workspace;

// Per-run state handed to Prepare and Run: the runtime the op is placed on.
struct OpContext {
  Runtime* runtime = nullptr;
  Workspace* workspace = nullptr;
  // Set during Prepare when the net chooses among storage alternatives
  // afterwards: an op that offers one may then leave its default kernel (and
  // the weights packed for it) to UseStorage.
  bool storage_choice_pending = false;
  // Set when the net prepares its ops again for new input shapes: weights
  // packed then go to memory the kernel owns (freed when it packs again),
  // not to the runtime's persistent arena, which frees nothing until the
  // engine goes.
  bool replanning = false;
  // Set when the net prepares an op during Run: its inputs hold this run's
  // values, which an op whose output shapes follow from them
  // (OutputShapeSource::kInputValues) reads to set those shapes.
  bool input_values = false;
};

// How an op's output shapes follow from its inputs (Operation::
// OutputShapeSource). The net keeps the knowledge of what to do with each.
enum class OutputShapeSource {
  // From the input shapes alone: most ops.
  kInputShapes,
  // From input values, bounded by the input shapes: Prepare sets the
  // largest shape, memory is planned for it, and Run sets the one it
  // computes (NonMaxSuppression).
  kInputValuesBounded,
  // From input values alone: Prepare without them (OpContext::input_values
  // unset) sets an empty shape of each output's rank; the net prepares the
  // op again with the values before each run and gives outputs that
  // outgrow the plan memory of their own.
  kInputValues,
};

class Operation {
 public:
  virtual ~Operation() = default;

  // Binds tensors by name from `workspace` (creating outputs), calls Init
  // and checks the arguments it read (see the top of this file).
  MaceStatus Construct(const OperatorDef& def, Workspace* workspace);

  // Parses and validates arguments. Called once, before Prepare.
  virtual MaceStatus Init() { return MaceStatus(); }
  // Validates input shapes and sets every output's shape.
  virtual MaceStatus Prepare(OpContext* context) = 0;
  virtual MaceStatus Run(OpContext* context) = 0;

  // Where the output shapes come from. Valid after Init.
  virtual OutputShapeSource output_shape_source() const {
    return OutputShapeSource::kInputShapes;
  }

  // Multiply-accumulates for the current shapes, for benchmark tables.
  virtual int64_t Macs() const { return 0; }
  // Bytes the op keeps for the engine's lifetime outside the arenas (filters
  // packed inside it, tables, buffers kept between runs), for the memory
  // report.
  virtual int64_t HeldBytes() const { return 0; }
  // The data type this kernel writes to output `index`. By default the type
  // the kernel was registered for; ops such as ArgMax override it. Construct
  // refuses a model that declares anything else, so a kernel never writes
  // past a tensor sized for a smaller type.
  virtual DataType OutputType(int /*index*/) const { return kernel_dtype_; }
  DataType kernel_dtype() const { return kernel_dtype_; }
  void set_kernel_dtype(DataType dtype) { kernel_dtype_ = dtype; }

  // The storages this kernel reads its activation input `index` in and
  // writes output `index` in. The net inserts a converter wherever a
  // producer's storage differs from what its reader declares. By default:
  // plain (NCHW) tensors in the placed runtime's default memory type, of
  // the input's own type and of OutputType for outputs.
  virtual Storage InputStorage(int index) const;
  virtual Storage OutputStorage(int index) const;
  // The runtime the net placed this op on (null in op-level tests: CPU).
  Runtime* runtime() const { return runtime_; }
  void set_runtime(Runtime* runtime) { runtime_ = runtime; }

  // Whether the kernel reads its constant inputs (weights) from host memory
  // after Prepare. A device kernel that copies them into device memory at
  // Prepare says no; when no kernel of a net does, the net drops the host
  // weights at the end of Init.
  virtual bool ReadsHostWeights() const { return true; }

  // If >= 0, output 0 may share the memory of this input when the engine
  // sees it is legal (same byte size, input dead after this op).
  virtual int InPlaceInput() const { return -1; }
  // True when output 0's bytes are exactly the inputs' bytes one after the
  // other (a Concat whose slices are contiguous). The engine may then place
  // each input inside the output, and the op must not copy an input onto
  // itself. Valid after Prepare.
  virtual bool OutputConcatenatesInputs() const { return false; }

  // Layout planning. Beside its default storages, a kernel may offer one
  // alternative storage for output 0 and the activation inputs it reads (the
  // CPU's channel blocks). After Prepare the net decides per connected run
  // of such ops (net_layout.cc) and calls UseStorage on each op that offered
  // one, with the storage it chose: the alternative or the default.
  struct StorageOption {
    Storage storage;
    // Faster in it than in the default on its own, not only to spare its
    // neighbours a conversion.
    bool preferred = false;
  };
  // The alternative for the current shapes, or none. Valid after Prepare.
  virtual std::optional<StorageOption> AlternativeStorage() const { return std::nullopt; }
  // Whether activation input `index` may stay in its default storage when
  // the op runs in the alternative.
  virtual bool ReadsDefaultInput(int /*index*/) const { return false; }
  virtual MaceStatus UseStorage(const Storage& /*storage*/, OpContext* /*context*/) {
    return MaceStatus();
  }
  // Rebinds an input (to a converted copy of it).
  void ReplaceInput(int index, const Tensor* tensor) { inputs_[index] = tensor; }
  // Rebinds an output (to the output of the reader it fused with:
  // OpRegistry::RegisterFusion).
  void ReplaceOutput(int index, Tensor* tensor) { outputs_[index] = tensor; }

  const OperatorDef& def() const { return def_; }
  const std::string& name() const { return def_.name(); }
  const std::string& type() const { return def_.type(); }
  int InputSize() const { return static_cast<int>(inputs_.size()); }
  int OutputSize() const { return static_cast<int>(outputs_.size()); }
  const Tensor* Input(int index) const { return inputs_[index]; }
  Tensor* Output(int index) { return outputs_[index]; }
  const Tensor* Output(int index) const { return outputs_[index]; }

  // Each getter returns the default (or an empty list) when the argument is
  // absent, and when it holds the wrong type, after recording that error.
  // An int is read from `i`, a float from `f`, a string from `s`, lists
  // from `ints` and `floats`; a list argument with no values is empty.
  bool HasArg(const std::string& name) const;
  int64_t GetInt(const std::string& name, int64_t default_value) const;
  float GetFloat(const std::string& name, float default_value) const;
  // An int or a float, as `f` or `i`: for the few arguments converters write
  // either way (LocalResponseNorm's).
  double GetNumber(const std::string& name, double default_value) const;
  std::string GetString(const std::string& name, const std::string& default_value) const;
  std::vector<int64_t> GetInts(const std::string& name) const;
  std::vector<float> GetFloats(const std::string& name) const;

  // "Conv2D 'conv1'": used as the prefix of every error message.
  std::string Describe() const;

 protected:
  // Error helper: INVALID_ARGS with the op named.
  MaceStatus Invalid(const std::string& message) const;
  // The first wrong-type argument a getter met, or OK.
  const MaceStatus& ArgTypeError() const { return arg_type_error_; }
  // Whether Construct refuses arguments Init did not read. Custom ops read
  // theirs in Prepare or Run, so the engine cannot know their names.
  virtual bool RefusesUnreadArgs() const { return true; }

 private:
  // Records `name` as read and returns its argument, or null.
  const Argument* FindArg(const std::string& name) const;
  // FindArg, but null for an argument whose value is in none of `fields`
  // (bits of operation.cc's Field), after keeping the first such error;
  // `wanted` names the type for it ("an int").
  const Argument* FindTypedArg(const std::string& name, unsigned fields, const char* wanted) const;
  MaceStatus CheckArgs() const;

  OperatorDef def_;
  DataType kernel_dtype_ = DT_FLOAT;
  Runtime* runtime_ = nullptr;
  std::vector<const Tensor*> inputs_;
  std::vector<Tensor*> outputs_;
  mutable std::set<std::string> read_args_;
  mutable MaceStatus arg_type_error_;
};

// Returns INVALID_ARGS naming the op when `condition` is false.
#define OP_CHECK(condition, ...)                                   \
  do {                                                             \
    if (!(condition)) return Invalid(::mace::StrCat(__VA_ARGS__)); \
  } while (0)

}  // namespace mace

#endif  // MACE_CORE_OPERATION_H_
