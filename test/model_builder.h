// Builds small models in memory for the end-to-end tests: a NetDef and its
// weights blob, with weights 64-byte aligned as the converter writes them.
#ifndef TEST_MODEL_BUILDER_H_
#define TEST_MODEL_BUILDER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mace/proto/mace.pb.h"
#include "mace/public/mace.h"

namespace mace {
namespace testing {

struct ModelBuilder {
  NetDef net;
  std::string data;

  void AddWeight(const std::string& name, const std::vector<int64_t>& dims,
                 const std::vector<float>& values) {
    data.resize((data.size() + 63) / 64 * 64, '\0');
    ConstTensor* tensor = net.add_tensors();
    tensor->set_name(name);
    for (int64_t d : dims) tensor->add_dims(d);
    tensor->set_offset(data.size());
    tensor->set_data_size(values.size());
    data.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
  }

  // A weight of any type from raw bytes (`count` elements of
  // `element_size` bytes).
  ConstTensor* AddRawWeight(const std::string& name, const std::vector<int64_t>& dims,
                            DataType dtype, const void* bytes, int64_t count, int element_size) {
    data.resize((data.size() + 63) / 64 * 64, '\0');
    ConstTensor* tensor = net.add_tensors();
    tensor->set_name(name);
    for (int64_t d : dims) tensor->add_dims(d);
    tensor->set_data_type(dtype);
    tensor->set_offset(data.size());
    tensor->set_data_size(count);
    data.append(static_cast<const char*>(bytes), count * element_size);
    return tensor;
  }

  OperatorDef* AddOp(const std::string& type, const std::string& name,
                     const std::vector<std::string>& inputs, const std::string& output) {
    OperatorDef* op = net.add_op();
    op->set_type(type);
    op->set_name(name);
    for (const std::string& input : inputs) op->add_input(input);
    op->add_output(output);
    return op;
  }

  static void SetString(OperatorDef* op, const std::string& name, const std::string& value) {
    Argument* arg = op->add_arg();
    arg->set_name(name);
    arg->set_s(value);
  }

  static void SetInt(OperatorDef* op, const std::string& name, int64_t value) {
    Argument* arg = op->add_arg();
    arg->set_name(name);
    arg->set_i(value);
  }

  OperatorDef* Op(const std::string& name) {
    for (OperatorDef& op : *net.mutable_op()) {
      if (op.name() == name) return &op;
    }
    return nullptr;
  }

  std::string Graph() const { return net.SerializeAsString(); }

  // An engine for the model, with the weights passed in memory.
  MaceStatus CreateEngine(const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs, const MaceEngineConfig& config,
                          std::shared_ptr<MaceEngine>* engine) const {
    const std::string graph = Graph();
    return CreateMaceEngineFromProto(reinterpret_cast<const unsigned char*>(graph.data()),
                                     graph.size(),
                                     reinterpret_cast<const unsigned char*>(data.data()),
                                     data.size(), inputs, outputs, config, engine);
  }
};

}  // namespace testing
}  // namespace mace

#endif  // TEST_MODEL_BUILDER_H_
