// Fuzz target for the whole engine: a valid small model mutated field by
// field (arguments, op types, tensor names, output shapes and types, the
// offline memory plan, weight offsets and dims, input infos), then built and
// run once on a small input. The engine must refuse it with a status or run
// it, never crash, and never plan more than kMemoryLimit bytes.
//
// Input layout (as model_loader_fuzzer): [4-byte little-endian graph
// length][graph bytes][weights]. The custom mutator below parses the graph
// and changes one field; inputs that do not parse get libFuzzer's byte
// mutations, so both paths are covered.
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "mace/proto/mace.pb.h"
#include "mace/public/mace.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

constexpr int64_t kMemoryLimit = int64_t{64} << 20;
constexpr int64_t kMaxInputElements = int64_t{1} << 16;

struct Model {
  mace::NetDef net;
  std::string weights;
};

bool Unpack(const uint8_t* data, size_t size, Model* model) {
  if (size < 4) return false;
  uint32_t graph_size = 0;
  std::memcpy(&graph_size, data, 4);
  if (graph_size > size - 4) return false;
  if (!model->net.ParseFromArray(data + 4, static_cast<int>(graph_size))) return false;
  model->weights.assign(reinterpret_cast<const char*>(data) + 4 + graph_size,
                        size - 4 - graph_size);
  return true;
}

std::string Pack(const Model& model) {
  const std::string graph = model.net.SerializeAsString();
  const uint32_t size = static_cast<uint32_t>(graph.size());
  return std::string(reinterpret_cast<const char*>(&size), 4) + graph + model.weights;
}

class Mutator {
 public:
  explicit Mutator(unsigned int seed) : rng_(seed) {}

  int64_t Pick(int64_t n) { return n <= 0 ? 0 : static_cast<int64_t>(rng_() % n); }

  // Values that break sizes and offsets, plus small ones that keep a model
  // valid but different.
  int64_t Value() {
    static const int64_t kValues[] = {0,
                                      -1,
                                      1,
                                      2,
                                      3,
                                      4,
                                      64,
                                      65,
                                      std::numeric_limits<int32_t>::max(),
                                      std::numeric_limits<int32_t>::min(),
                                      int64_t{1} << 32,
                                      int64_t{1} << 40,
                                      std::numeric_limits<int64_t>::max(),
                                      std::numeric_limits<int64_t>::min(),
                                      std::numeric_limits<int64_t>::max() - 63};
    const int64_t n = sizeof(kValues) / sizeof(kValues[0]);
    const int64_t k = Pick(n + 2);
    return k < n ? kValues[k] : Pick(300) - 20;
  }

  std::string Name(const mace::NetDef& net) {
    std::vector<std::string> names = {"missing", ""};
    for (const auto& info : net.input_info()) names.push_back(info.name());
    for (const auto& tensor : net.tensors()) names.push_back(tensor.name());
    for (const auto& op : net.op()) names.insert(names.end(), op.output().begin(), op.output().end());
    return names[Pick(names.size())];
  }

  void MutateArg(mace::Argument* arg) {
    switch (Pick(7)) {
      case 0:
        arg->set_i(Value());
        break;
      case 1:
        if (arg->ints_size() > 0) {
          arg->set_ints(Pick(arg->ints_size()), Value());
        } else {
          arg->add_ints(Value());
        }
        break;
      case 2:
        arg->clear_ints();
        for (int64_t k = Pick(6); k > 0; --k) arg->add_ints(Value());
        break;
      case 3:
        arg->set_f(Pick(2) ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>(Value()));
        break;
      case 4: {
        static const char* kStrings[] = {"RELU", "RELU6", "NOOP", "TANH", "SIGMOID", "", "?"};
        arg->set_s(kStrings[Pick(7)]);
        break;
      }
      case 5:
        arg->add_floats(static_cast<float>(Value()));
        break;
      default: {
        static const char* kNames[] = {"strides", "pads", "padding", "dilations", "activation",
                                       "axis",    "type", "shape",   "global",    "pooling_type",
                                       "kernels", "T",    "group",   "max_limit", "keepdims"};
        arg->set_name(kNames[Pick(15)]);
      }
    }
  }

  void Mutate(Model* model) {
    mace::NetDef& net = model->net;
    mace::OperatorDef* op = net.op_size() > 0 ? net.mutable_op(Pick(net.op_size())) : nullptr;
    mace::ConstTensor* tensor =
        net.tensors_size() > 0 ? net.mutable_tensors(Pick(net.tensors_size())) : nullptr;
    switch (Pick(16)) {
      case 0:
      case 1:
        if (op != nullptr) MutateArg(op->arg_size() > 0 && Pick(4) ? op->mutable_arg(Pick(op->arg_size()))
                                                               : op->add_arg());
        break;
      case 2: {
        static const char* kTypes[] = {
            "Conv2D",   "DepthwiseConv2d", "Deconv2D",  "Pooling", "Eltwise",       "Softmax",
            "Reshape",  "FullyConnected",  "Concat",    "BiasAdd", "Activation",    "Identity",
            "Transpose", "Squeeze",        "Pad",       "Crop",    "ResizeBilinear", "Reduce",
            "MatMul",   "ChannelShuffle",  "Split",     "Gather",  "ArgMax",        "BatchNorm"};
        if (op != nullptr) op->set_type(kTypes[Pick(sizeof(kTypes) / sizeof(kTypes[0]))]);
        break;
      }
      case 3:
        if (op != nullptr && op->input_size() > 0) op->set_input(Pick(op->input_size()), Name(net));
        else if (op != nullptr) op->add_input(Name(net));
        break;
      case 4:
        if (op != nullptr && op->output_size() > 0) op->set_output(Pick(op->output_size()), Name(net));
        else if (op != nullptr) op->add_output(Name(net));
        break;
      case 5:
        if (op != nullptr) {
          mace::OutputShape* shape = op->output_shape_size() > 0 && Pick(2)
                                         ? op->mutable_output_shape(Pick(op->output_shape_size()))
                                         : op->add_output_shape();
          if (shape->dims_size() > 0 && Pick(2)) {
            shape->set_dims(Pick(shape->dims_size()), Value());
          } else {
            shape->add_dims(Pick(8));
          }
        }
        break;
      case 6:
        if (op != nullptr) op->add_output_type(static_cast<mace::DataType>(Pick(6)));
        break;
      case 7:
      case 8:
        // The offline memory plan: offsets for one or every op's outputs.
        for (int i = 0; i < net.op_size(); ++i) {
          mace::OperatorDef* target = net.mutable_op(i);
          if (target != op && Pick(2)) continue;
          target->clear_output_mem_offset();
          for (int k = 0; k < target->output_size() + (Pick(8) == 0 ? 1 : 0); ++k) {
            const int64_t choice = Pick(4);
            target->add_output_mem_offset(choice == 0 ? -1 : choice == 1 ? Value() : 64 * Pick(64));
          }
        }
        break;
      case 9:
        if (tensor != nullptr) tensor->set_offset(Pick(2) ? Value() : 64 * Pick(32));
        break;
      case 10:
        if (tensor != nullptr) {
          if (tensor->dims_size() > 0 && Pick(3)) {
            tensor->set_dims(Pick(tensor->dims_size()), Value());
          } else {
            tensor->add_dims(Pick(4));
          }
          if (Pick(2)) tensor->set_data_size(Value());
        }
        break;
      case 11:
        if (tensor != nullptr) tensor->set_data_type(static_cast<mace::DataType>(Pick(6)));
        break;
      case 12: {
        mace::InputOutputInfo* info =
            net.input_info_size() > 0 && Pick(2) ? net.mutable_input_info(0)
            : net.output_info_size() > 0         ? net.mutable_output_info(0)
                                                 : net.add_output_info();
        const int64_t field = Pick(3);
        if (field == 0 && info->dims_size() > 0) info->set_dims(Pick(info->dims_size()), Pick(9));
        if (field == 1) info->set_data_type(static_cast<mace::DataType>(Pick(6)));
        if (field == 2) info->set_data_format(static_cast<int32_t>(Pick(5)));
        break;
      }
      case 13:
        net.set_data_type(static_cast<mace::DataType>(Pick(6)));
        break;
      case 14:
        if (op != nullptr && Pick(2)) {
          net.add_op()->CopyFrom(*op);
        } else if (net.op_size() > 1) {
          net.mutable_op()->SwapElements(0, static_cast<int>(Pick(net.op_size())));
        }
        break;
      default:
        if (op != nullptr) op->set_device_type(static_cast<int32_t>(Pick(4)));
    }
  }

 private:
  std::minstd_rand rng_;
};

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  Model model;
  Mutator mutator(seed);
  if (mutator.Pick(8) == 0 || !Unpack(data, size, &model)) {
    return LLVMFuzzerMutate(data, size, max_size);
  }
  for (int64_t n = 1 + mutator.Pick(3); n > 0; --n) mutator.Mutate(&model);
  const std::string packed = Pack(model);
  if (packed.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, packed.data(), packed.size());
  return packed.size();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  uint32_t graph_size = 0;
  std::memcpy(&graph_size, data, 4);
  data += 4;
  size -= 4;
  if (graph_size > size) graph_size = static_cast<uint32_t>(size);
  mace::MaceEngineConfig config;
  config.SetMemoryLimit(kMemoryLimit);
  config.SetCPUThreadPolicy(1, mace::CPUAffinityPolicy::AFFINITY_NONE);
  std::shared_ptr<mace::MaceEngine> engine;
  const mace::MaceStatus status =
      mace::CreateMaceEngineFromProto(data, graph_size, data + graph_size, size - graph_size, {},
                                      {}, config, &engine);
  if (!status.ok()) return 0;
  std::map<std::string, std::vector<int64_t>> shapes;
  if (!engine->GetInputShapes(&shapes).ok()) return 0;
  std::map<std::string, mace::MaceTensor> inputs;
  for (const auto& [name, shape] : shapes) {
    int64_t count = 1;
    for (int64_t d : shape) {
      if (d < 0 || (d > 0 && count > kMaxInputElements / d)) return 0;
      count *= d;
    }
    // Small inputs only: the memory limit already bounds the arena they
    // live in, and a larger one exercises nothing new.
    if (count > kMaxInputElements) return 0;
    std::shared_ptr<float> buffer(new float[count > 0 ? count : 1](),
                                  std::default_delete<float[]>());
    for (int64_t i = 0; i < count; ++i) buffer.get()[i] = static_cast<float>(i % 7) - 3.f;
    inputs[name] = mace::MaceTensor(shape, buffer);
  }
  std::map<std::string, mace::MaceTensor> outputs;
  engine->Run(inputs, &outputs);
  return 0;
}
