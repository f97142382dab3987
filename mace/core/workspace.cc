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

}  // namespace mace
