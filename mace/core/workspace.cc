#include "mace/core/workspace.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <tuple>
#include <vector>

#include "mace/utils/checked_math.h"
#include "mace/utils/status.h"

namespace mace {

Tensor* Workspace::CreateTensor(const std::string& name, DataType dtype) {
  if (tensors_.count(name) > 0) return nullptr;
  auto tensor = std::make_unique<Tensor>(name, dtype);
  Tensor* raw = tensor.get();
  tensors_.emplace(name, std::move(tensor));
  return raw;
}

Tensor* Workspace::GetTensor(const std::string& name) {
  auto it = tensors_.find(name);
  return it == tensors_.end() ? nullptr : it->second.get();
}

const Tensor* Workspace::GetTensor(const std::string& name) const {
  auto it = tensors_.find(name);
  return it == tensors_.end() ? nullptr : it->second.get();
}

unsigned char* Workspace::AllocateBuffer(int64_t size, const unsigned char* source) {
  buffers_.push_back(std::make_unique<AlignedBuffer>(size, 64, source));
  return buffers_.back()->data();
}

void Workspace::ReleaseWeights() {
  for (auto& [name, tensor] : tensors_) {
    if (tensor->is_weight()) tensor->SetConstBuffer(nullptr, 0);
  }
  weights_.reset();
  buffers_.clear();
  weights_bytes_ = 0;
}

MaceStatus Workspace::LoadWeights(const NetDef& net_def, std::shared_ptr<WeightsBlob> blob) {
  const int64_t blob_size = blob == nullptr ? 0 : blob->size();
  weights_ = std::move(blob);
  // (offset, bytes, name) of every weight, to refuse overlapping ones below.
  std::vector<std::tuple<int64_t, int64_t, std::string>> ranges;
  for (const ConstTensor& weight : net_def.tensors()) {
    const std::string where = StrCat("weight '", weight.name(), "'");
    MACE_CHECK_ARG(!weight.name().empty(), "a weight tensor has no name");
    const int element_size = DataTypeSize(weight.data_type());
    MACE_CHECK_ARG(element_size > 0, where, " has unsupported data type ",
                   static_cast<int>(weight.data_type()));
    int64_t elements = 1;
    for (int64_t d : weight.dims()) {
      MACE_CHECK_ARG(d >= 0 && (d == 0 || elements <= std::numeric_limits<int32_t>::max() / d),
                     where, " has an invalid dimension ", d);
      elements *= d;
    }
    MACE_CHECK_ARG(weight.data_size() == elements, where, " says data_size ", weight.data_size(),
                   " but its dims hold ", elements, " elements");
    const int64_t bytes = elements * element_size;
    MACE_CHECK_ARG(RangeFits(weight.offset(), bytes, blob_size), where, " needs ", bytes,
                   " bytes at offset ", weight.offset(), " but the weights data has only ",
                   blob_size, " bytes");
    if (bytes > 0) ranges.emplace_back(weight.offset(), bytes, weight.name());
    Tensor* tensor = CreateTensor(weight.name(), weight.data_type());
    MACE_CHECK_ARG(tensor != nullptr, where, " is defined twice");
    tensor->Reshape(std::vector<int64_t>(weight.dims().begin(), weight.dims().end()));
    tensor->SetQuantization(weight.scale(), weight.zero_point());
    tensor->SetChannelScales({weight.channel_scales().begin(), weight.channel_scales().end()});
    const unsigned char* source =
        weights_ == nullptr ? nullptr : weights_->data() + weight.offset();
    if (source != nullptr && reinterpret_cast<uintptr_t>(source) % element_size == 0) {
      tensor->SetConstBuffer(source, bytes);
    } else {
      tensor->SetConstBuffer(AllocateBuffer(bytes, source), bytes);
    }
    weights_bytes_ += bytes;
  }
  // Each weight has its own bytes: a model whose tensors share or overlap
  // bytes has had an offset changed (the weights checksum cannot see that).
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i) {
    const auto& [offset, bytes, name] = ranges[i - 1];
    MACE_CHECK_ARG(offset + bytes <= std::get<0>(ranges[i]), "weight '", std::get<2>(ranges[i]),
                   "' at offset ", std::get<0>(ranges[i]), " overlaps weight '", name,
                   "' at [", offset, ", +", bytes, ")");
  }
  return MaceStatus();
}

MaceStatus Workspace::LoadStates(const NetDef& net_def) {
  const int64_t blob_size = weights_ == nullptr ? 0 : weights_->size();
  for (const ConstTensor& state : net_def.state_tensors()) {
    const std::string where = StrCat("state tensor '", state.name(), "'");
    MACE_CHECK_ARG(!state.name().empty(), "a state tensor has no name");
    MACE_CHECK_ARG(!HasTensor(state.name()), where, " has the name of another tensor");
    const int element_size = DataTypeSize(state.data_type());
    MACE_CHECK_ARG(element_size > 0, where, " has unsupported data type ",
                   static_cast<int>(state.data_type()));
    int64_t elements = 1;
    for (int64_t d : state.dims()) {
      MACE_CHECK_ARG(d > 0 && elements <= std::numeric_limits<int32_t>::max() / d, where,
                     " has an invalid dimension ", d);
      elements *= d;
    }
    MACE_CHECK_ARG(state.data_size() == 0 || state.data_size() == elements, where,
                   " says data_size ", state.data_size(), " but its dims hold ", elements,
                   " elements (0 means zeros)");
    const int64_t bytes = elements * element_size;
    const bool has_value = state.data_size() > 0;
    MACE_CHECK_ARG(!has_value || RangeFits(state.offset(), bytes, blob_size), where, " needs ",
                   bytes, " bytes at offset ", state.offset(), " but the weights data has only ",
                   blob_size, " bytes");
    const unsigned char* source = has_value ? weights_->data() + state.offset() : nullptr;
    State entry;
    entry.initial = std::make_unique<AlignedBuffer>(bytes, 64, source);
    entry.value = std::make_unique<AlignedBuffer>(bytes, 64, source);
    if (entry.initial->size() != bytes || entry.value->size() != bytes) {
      return MaceStatus(MaceStatus::MACE_OUT_OF_RESOURCES,
                        StrCat("cannot allocate ", bytes, " bytes for ", where));
    }
    entry.tensor = CreateTensor(state.name(), state.data_type());
    entry.tensor->Reshape(std::vector<int64_t>(state.dims().begin(), state.dims().end()));
    entry.tensor->SetQuantization(state.scale(), state.zero_point());
    entry.tensor->SetBuffer(entry.value->data(), bytes);
    state_bytes_ += 2 * bytes;
    states_.push_back(std::move(entry));
  }
  return MaceStatus();
}

void Workspace::ResetStates() {
  for (State& state : states_) {
    std::memcpy(state.value->data(), state.initial->data(), state.value->size());
  }
}

bool Workspace::IsState(const Tensor* tensor) const {
  for (const State& state : states_) {
    if (state.tensor == tensor) return true;
  }
  return false;
}

}  // namespace mace
