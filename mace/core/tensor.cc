#include "mace/core/tensor.h"

#include <utility>

#include "mace/core/runtime.h"
#include "mace/utils/string_builder.h"

namespace mace {

const char* LayoutName(Layout layout) {
  switch (layout) {
    case Layout::kNCHW:
      return "NCHW";
    case Layout::kNHWC:
      return "NHWC";
    case Layout::kNCHWc:
      return "NCHWc";
    case Layout::kImage:
      return "IMAGE";
  }
  return "UNKNOWN";
}

std::string Storage::ToString() const {
  std::string layout_name = LayoutName(layout);
  if (layout == Layout::kNCHWc) layout_name = "NCHW" + std::to_string(block) + "c";
  if (layout == Layout::kImage) layout_name += std::to_string(image);
  return std::string(MemoryTypeName(memory_type)) + "/" + layout_name + "/" + DataTypeName(dtype);
}

Tensor::Tensor(std::string name, DataType dtype) : name_(std::move(name)) {
  storage_.dtype = dtype;
}

Tensor::Tensor(std::string name, const Storage& storage)
    : name_(std::move(name)), storage_(storage) {}

int64_t Tensor::dim(int index) const {
  if (index < 0) index += dim_size();
  return shape_[index];
}

int64_t Tensor::size() const {
  int64_t count = 1;
  for (int64_t d : shape_) count *= d;
  return count;
}

int64_t Tensor::storage_size() const {
  const int block = channel_block();
  if (block <= 0 || shape_.size() != 4) return size();
  const int64_t channels = (shape_[1] + block - 1) / block * block;
  return shape_[0] * channels * shape_[2] * shape_[3];
}

int64_t Tensor::raw_size() const { return storage_size() * DataTypeSize(storage_.dtype); }

void Tensor::Bind(Memory* memory, int64_t offset, int64_t capacity_bytes) {
  unsigned char* host = memory != nullptr ? memory->host() : nullptr;
  SetBuffer(host != nullptr ? host + offset : nullptr, capacity_bytes);
  memory_ = memory;
  memory_offset_ = offset;
}

void Tensor::SetBuffer(void* data, int64_t capacity_bytes) {
  owned_.reset();
  memory_ = nullptr;
  memory_offset_ = 0;
  data_ = data;
  capacity_ = capacity_bytes;
  is_weight_ = false;
}

void Tensor::SetConstBuffer(const void* data, int64_t capacity_bytes) {
  owned_.reset();
  memory_ = nullptr;
  memory_offset_ = 0;
  // The const is restored by raw_mutable_data(), which refuses weights.
  data_ = const_cast<void*>(data);
  capacity_ = capacity_bytes;
  is_weight_ = true;
}

void Tensor::AllocateOwned() {
  const int64_t bytes = raw_size();
  // uint64_t storage keeps the buffer 8-byte aligned for every dtype.
  owned_ = std::make_shared<std::vector<uint64_t>>((bytes + 7) / 8, 0);
  memory_ = nullptr;
  memory_offset_ = 0;
  data_ = owned_->data();
  capacity_ = bytes;
  is_weight_ = false;
}

std::string ShapeToString(const std::vector<int64_t>& shape) {
  StringBuilder out;
  out << "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out << ",";
    out << shape[i];
  }
  out << "]";
  return std::move(out).str();
}

std::string Tensor::DebugString() const {
  return name_ + " " + DataTypeName(storage_.dtype) + ShapeToString(shape_);
}

}  // namespace mace
