#include "mace/core/tensor.h"

#include <sstream>

namespace mace {

Tensor::Tensor(std::string name, DataType dtype, MemoryType memory_type)
    : name_(std::move(name)), dtype_(dtype), memory_type_(memory_type) {}

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
  if (channel_block_ <= 0 || shape_.size() != 4) return size();
  const int64_t channels = (shape_[1] + channel_block_ - 1) / channel_block_ * channel_block_;
  return shape_[0] * channels * shape_[2] * shape_[3];
}

int64_t Tensor::raw_size() const { return storage_size() * DataTypeSize(dtype_); }

void Tensor::SetBuffer(void* data, int64_t capacity_bytes) {
  owned_.reset();
  data_ = data;
  capacity_ = capacity_bytes;
  is_weight_ = false;
}

void Tensor::SetConstBuffer(const void* data, int64_t capacity_bytes) {
  owned_.reset();
  // The const is restored by raw_mutable_data(), which refuses weights.
  data_ = const_cast<void*>(data);
  capacity_ = capacity_bytes;
  is_weight_ = true;
}

void Tensor::AllocateOwned() {
  const int64_t bytes = raw_size();
  // uint64_t storage keeps the buffer 8-byte aligned for every dtype.
  owned_ = std::make_shared<std::vector<uint64_t>>((bytes + 7) / 8, 0);
  data_ = owned_->data();
  capacity_ = bytes;
  is_weight_ = false;
}

std::string ShapeToString(const std::vector<int64_t>& shape) {
  std::ostringstream out;
  out << "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out << ",";
    out << shape[i];
  }
  out << "]";
  return out.str();
}

std::string Tensor::DebugString() const {
  return name_ + " " + DataTypeName(dtype_) + ShapeToString(shape_);
}

}  // namespace mace
