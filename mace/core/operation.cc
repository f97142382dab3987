#include "mace/core/operation.h"

#include "mace/core/runtime.h"
#include "mace/core/workspace.h"

namespace mace {

MaceStatus Operation::Construct(const OperatorDef& def, Workspace* workspace) {
  def_ = def;
  inputs_.clear();
  outputs_.clear();
  for (const std::string& input : def.input()) {
    // An empty name marks an optional input that the model leaves out.
    if (input.empty()) {
      inputs_.push_back(nullptr);
      continue;
    }
    const Tensor* tensor = workspace->GetTensor(input);
    if (tensor == nullptr) {
      return Invalid(StrCat("input '", input,
                            "' is not produced by any earlier op, "
                            "is not a model input and is not a weight"));
    }
    inputs_.push_back(tensor);
  }
  for (int i = 0; i < def.output_size(); ++i) {
    const std::string& output = def.output(i);
    if (output.empty()) return Invalid("has an empty output name");
    if (workspace->GetTensor(output) != nullptr) {
      return Invalid(StrCat("output '", output, "' is already defined elsewhere in the graph"));
    }
    const DataType dtype = OutputType(i);
    if (i < def.output_type_size() && def.output_type(i) != dtype) {
      return Invalid(StrCat("output '", output, "' is declared ", DataTypeName(def.output_type(i)),
                            " but this kernel writes ", DataTypeName(dtype)));
    }
    Tensor* tensor = workspace->CreateTensor(output, dtype);
    if (i < def.quantize_info_size()) {
      const QuantizeActivationInfo& info = def.quantize_info(i);
      tensor->SetQuantization({info.scale(), info.zero_point(), info.minval(), info.maxval()});
    }
    outputs_.push_back(tensor);
  }
  return Init();
}

namespace {

MemoryType DefaultMemoryType(const Runtime* runtime) {
  return runtime != nullptr ? runtime->default_memory_type() : MemoryType::CPU_BUFFER;
}

}  // namespace

Storage Operation::InputStorage(int index) const {
  Storage storage = Storage::Plain(inputs_[index] != nullptr ? inputs_[index]->dtype() : DT_FLOAT);
  storage.memory_type = DefaultMemoryType(runtime_);
  return storage;
}

Storage Operation::OutputStorage(int index) const {
  Storage storage = Storage::Plain(OutputType(index));
  storage.memory_type = DefaultMemoryType(runtime_);
  return storage;
}

const Argument* Operation::FindArg(const std::string& name) const {
  for (const Argument& arg : def_.arg()) {
    if (arg.name() == name) return &arg;
  }
  return nullptr;
}

bool Operation::HasArg(const std::string& name) const { return FindArg(name) != nullptr; }

int64_t Operation::GetInt(const std::string& name, int64_t default_value) const {
  const Argument* arg = FindArg(name);
  return arg != nullptr && arg->has_i() ? arg->i() : default_value;
}

float Operation::GetFloat(const std::string& name, float default_value) const {
  const Argument* arg = FindArg(name);
  return arg != nullptr && arg->has_f() ? arg->f() : default_value;
}

std::string Operation::GetString(const std::string& name, const std::string& default_value) const {
  const Argument* arg = FindArg(name);
  return arg != nullptr && arg->has_s() ? arg->s() : default_value;
}

std::vector<int64_t> Operation::GetInts(const std::string& name) const {
  const Argument* arg = FindArg(name);
  if (arg == nullptr) return {};
  return std::vector<int64_t>(arg->ints().begin(), arg->ints().end());
}

std::vector<float> Operation::GetFloats(const std::string& name) const {
  const Argument* arg = FindArg(name);
  if (arg == nullptr) return {};
  return std::vector<float>(arg->floats().begin(), arg->floats().end());
}

std::string Operation::Describe() const { return StrCat(def_.type(), " '", def_.name(), "'"); }

MaceStatus Operation::Invalid(const std::string& message) const {
  return MaceStatus(MaceStatus::MACE_INVALID_ARGS, StrCat(Describe(), ": ", message));
}

}  // namespace mace
