// A tensor is shape, type and layout plus a view onto memory owned elsewhere:
// an arena slice, a mapped weight, or (in tests and for app inputs) a buffer
// the tensor owns itself.
#ifndef MACE_CORE_TENSOR_H_
#define MACE_CORE_TENSOR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mace/core/types.h"
#include "mace/public/mace.h"

namespace mace {

class Tensor {
 public:
  Tensor(std::string name, DataType dtype, MemoryType memory_type = MemoryType::CPU_BUFFER);

  const std::string& name() const { return name_; }
  DataType dtype() const { return dtype_; }
  MemoryType memory_type() const { return memory_type_; }
  DataFormat data_format() const { return data_format_; }
  void set_data_format(DataFormat format) { data_format_ = format; }

  // 0 for the plain layout; otherwise a rank-4 float tensor stored in
  // channel blocks of this many lanes ("NCHWc", mace/ops/cpu/micro_kernels.h),
  // its shape still NCHW. Only the engine's layout plan sets it.
  int channel_block() const { return channel_block_; }
  void set_channel_block(int block) { channel_block_ = block; }

  const std::vector<int64_t>& shape() const { return shape_; }
  int dim_size() const { return static_cast<int>(shape_.size()); }
  // Negative indices count from the back.
  int64_t dim(int index) const;
  // Sets the shape only; memory is bound separately.
  void Reshape(std::vector<int64_t> shape) { shape_ = std::move(shape); }
  int64_t size() const;          // elements
  int64_t storage_size() const;  // elements stored, with channel-block padding
  int64_t raw_size() const;      // bytes needed for the current shape and layout

  bool is_weight() const { return is_weight_; }
  bool has_buffer() const { return data_ != nullptr || capacity_ > 0; }
  int64_t capacity() const { return capacity_; }

  // Points the tensor at writable memory owned elsewhere.
  void SetBuffer(void* data, int64_t capacity_bytes);
  // Points the tensor at read-only weight memory.
  void SetConstBuffer(const void* data, int64_t capacity_bytes);
  // Gives the tensor its own zeroed memory for the current shape.
  void AllocateOwned();

  const void* raw_data() const { return data_; }
  void* raw_mutable_data() { return is_weight_ ? nullptr : data_; }
  template <typename T>
  const T* data() const {
    return static_cast<const T*>(data_);
  }
  template <typename T>
  T* mutable_data() {
    return static_cast<T*>(raw_mutable_data());
  }

  float scale() const { return scale_; }
  int32_t zero_point() const { return zero_point_; }
  void SetQuantization(float scale, int32_t zero_point) {
    scale_ = scale;
    zero_point_ = zero_point;
  }

  std::string DebugString() const;

 private:
  std::string name_;
  DataType dtype_;
  MemoryType memory_type_;
  DataFormat data_format_ = DataFormat::NCHW;
  int channel_block_ = 0;
  std::vector<int64_t> shape_;
  void* data_ = nullptr;
  int64_t capacity_ = 0;
  bool is_weight_ = false;
  std::shared_ptr<std::vector<uint64_t>> owned_;
  float scale_ = 0.f;
  int32_t zero_point_ = 0;
};

std::string ShapeToString(const std::vector<int64_t>& shape);

}  // namespace mace

#endif  // MACE_CORE_TENSOR_H_
