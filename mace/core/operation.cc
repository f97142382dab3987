#include "mace/core/operation.h"

#include <set>

#include "mace/core/runtime.h"
#include "mace/core/workspace.h"

namespace mace {

MaceStatus Operation::Construct(const OperatorDef& def, Workspace* workspace) {
  def_ = def;
  inputs_.clear();
  outputs_.clear();
  read_args_.clear();
  arg_type_error_ = MaceStatus();
  // "T", the kernel's data type, is the net's to read (it chose this kernel
  // by it); here it is only checked to be an int that names a DataType.
  for (const Argument& arg : def.arg()) {
    if (arg.name() != "T") continue;
    if (!arg.has_i() || arg.has_f() || arg.has_s() || arg.ints_size() + arg.floats_size() > 0 ||
        arg.i() <= DT_INVALID || arg.i() > 127 || !DataType_IsValid(static_cast<int>(arg.i()))) {
      return Invalid("argument 'T' must be an int naming a DataType");
    }
  }
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
  const MaceStatus init = Init();
  // A wrong-type argument explains whatever Init then said about the
  // default it got instead, so it is reported first.
  MACE_RETURN_IF_ERROR(arg_type_error_);
  MACE_RETURN_IF_ERROR(init);
  return CheckArgs();
}

namespace {

MemoryType DefaultMemoryType(const Runtime* runtime) {
  return runtime != nullptr ? runtime->default_memory_type() : MemoryType::CPU_BUFFER;
}

// The field an Argument's value is in. A list with no values sets no field.
enum class Field { kNone, kInt, kFloat, kString, kInts, kFloats, kStrings, kSeveral };

Field FieldOf(const Argument& arg) {
  Field field = Field::kNone;
  int count = 0;
  auto note = [&](bool present, Field kind) {
    if (present) {
      field = kind;
      ++count;
    }
  };
  note(arg.has_i(), Field::kInt);
  note(arg.has_f(), Field::kFloat);
  note(arg.has_s(), Field::kString);
  note(arg.ints_size() > 0, Field::kInts);
  note(arg.floats_size() > 0, Field::kFloats);
  note(arg.strings_size() > 0, Field::kStrings);
  return count > 1 ? Field::kSeveral : field;
}

unsigned Bit(Field field) { return 1u << static_cast<int>(field); }

const char* FieldName(Field field) {
  switch (field) {
    case Field::kNone:
      return "no value";
    case Field::kInt:
      return "an int";
    case Field::kFloat:
      return "a float";
    case Field::kString:
      return "a string";
    case Field::kInts:
      return "a list of ints";
    case Field::kFloats:
      return "a list of floats";
    case Field::kStrings:
      return "a list of strings";
    case Field::kSeveral:
      break;
  }
  return "values in several fields";
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
  read_args_.insert(name);
  for (const Argument& arg : def_.arg()) {
    if (arg.name() == name) return &arg;
  }
  return nullptr;
}

const Argument* Operation::FindTypedArg(const std::string& name, unsigned fields,
                                        const char* wanted) const {
  const Argument* arg = FindArg(name);
  if (arg == nullptr) return nullptr;
  const Field field = FieldOf(*arg);
  if ((fields & Bit(field)) != 0) return arg;
  if (arg_type_error_.ok()) {
    arg_type_error_ =
        Invalid(StrCat("argument '", name, "' must be ", wanted, ", got ", FieldName(field)));
  }
  return nullptr;
}

bool Operation::HasArg(const std::string& name) const { return FindArg(name) != nullptr; }

int64_t Operation::GetInt(const std::string& name, int64_t default_value) const {
  const Argument* arg = FindTypedArg(name, Bit(Field::kInt), "an int");
  return arg != nullptr ? arg->i() : default_value;
}

float Operation::GetFloat(const std::string& name, float default_value) const {
  const Argument* arg = FindTypedArg(name, Bit(Field::kFloat), "a float");
  return arg != nullptr ? arg->f() : default_value;
}

double Operation::GetNumber(const std::string& name, double default_value) const {
  const Argument* arg =
      FindTypedArg(name, Bit(Field::kInt) | Bit(Field::kFloat), "an int or a float");
  if (arg == nullptr) return default_value;
  return arg->has_f() ? arg->f() : static_cast<double>(arg->i());
}

std::string Operation::GetString(const std::string& name, const std::string& default_value) const {
  const Argument* arg = FindTypedArg(name, Bit(Field::kString), "a string");
  return arg != nullptr ? arg->s() : default_value;
}

std::vector<int64_t> Operation::GetInts(const std::string& name) const {
  const Argument* arg = FindTypedArg(name, Bit(Field::kInts) | Bit(Field::kNone), "a list of ints");
  if (arg == nullptr) return {};
  return std::vector<int64_t>(arg->ints().begin(), arg->ints().end());
}

std::vector<float> Operation::GetFloats(const std::string& name) const {
  const Argument* arg =
      FindTypedArg(name, Bit(Field::kFloats) | Bit(Field::kNone), "a list of floats");
  if (arg == nullptr) return {};
  return std::vector<float>(arg->floats().begin(), arg->floats().end());
}

MaceStatus Operation::CheckArgs() const {
  std::set<std::string> seen;
  for (const Argument& arg : def_.arg()) {
    if (!seen.insert(arg.name()).second) {
      return Invalid(StrCat("argument '", arg.name(), "' is given more than once"));
    }
    if (!RefusesUnreadArgs() || read_args_.count(arg.name()) > 0 || arg.name() == "T") continue;
    std::string known;
    for (const std::string& name : read_args_) known += (known.empty() ? "" : ", ") + name;
    return Invalid(StrCat("unknown argument '", arg.name(), "' (this op reads ",
                          known.empty() ? std::string("no arguments") : known, ")"));
  }
  return MaceStatus();
}

std::string Operation::Describe() const { return StrCat(def_.type(), " '", def_.name(), "'"); }

MaceStatus Operation::Invalid(const std::string& message) const {
  return MaceStatus(MaceStatus::MACE_INVALID_ARGS, StrCat(Describe(), ": ", message));
}

}  // namespace mace
