// A tensor is a shape plus a storage descriptor (where and how its elements
// are stored) and a view onto memory owned elsewhere: a slice of a planned
// block (Memory), a mapped weight, or (in tests and for app inputs) a buffer
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

class Memory;

// How a tensor's elements are laid out in its memory. Tensors of rank other
// than 4 are always dense row-major (kNCHW).
enum class Layout {
  kNCHW = 0,   // dense row-major in the shape's order: the engine's plain layout
  kNHWC = 1,   // rank 4, channels innermost
  kNCHWc = 2,  // rank 4, channel blocks of `block` lanes ("NCHWc", mace/ops/cpu/micro_kernels.h)
  kImage = 3,  // a 2D image with a device-specific mapping (`image` below)
};

const char* LayoutName(Layout layout);

// Quantization of an integer tensor: real = scale * (q - zero_point), with
// the range [min, max] the converter measured. An int8 weight quantized per
// output channel has channel_scales (one per slice of dimension 0) instead
// of `scale`, and zero point 0 (mace/ops/common/quantize.h).
struct QuantParams {
  float scale = 0.f;
  int32_t zero_point = 0;
  float min = 0.f;
  float max = 0.f;
  std::vector<float> channel_scales;
};

// Where and how a tensor is stored. Two tensors with equal storages can be
// read by the same kernels; where a reader needs another storage, the net
// inserts a converter between them (mace/core/converter_registry.h).
struct Storage {
  MemoryType memory_type = MemoryType::CPU_BUFFER;
  Layout layout = Layout::kNCHW;
  int block = 0;  // lanes per channel block, for kNCHWc
  int image = 0;  // the device's image mapping, for kImage
  DataType dtype = DT_FLOAT;

  static Storage Plain(DataType dtype = DT_FLOAT) {
    Storage storage;
    storage.dtype = dtype;
    return storage;
  }
  // CPU float32 in channel blocks of `block` lanes.
  static Storage ChannelBlocks(int block) {
    Storage storage = Plain(DT_FLOAT);
    storage.layout = Layout::kNCHWc;
    storage.block = block;
    return storage;
  }
  // Same memory, layout and type (quantization is a property of the data).
  bool operator==(const Storage& other) const {
    return memory_type == other.memory_type && layout == other.layout && block == other.block &&
           image == other.image && dtype == other.dtype;
  }
  bool operator!=(const Storage& other) const { return !(*this == other); }
  // "CPU_BUFFER/NCHW/float32", "CPU_BUFFER/NCHW8c/float32".
  std::string ToString() const;
};

class Tensor {
 public:
  Tensor(std::string name, DataType dtype);
  Tensor(std::string name, const Storage& storage);

  const std::string& name() const { return name_; }
  const Storage& storage() const { return storage_; }
  // Only the net sets storages, while it places ops (before memory is bound).
  void set_storage(const Storage& storage) { storage_ = storage; }
  DataType dtype() const { return storage_.dtype; }
  MemoryType memory_type() const { return storage_.memory_type; }
  Layout layout() const { return storage_.layout; }

  // 0 for the plain layout; otherwise a rank-4 float tensor stored in
  // channel blocks of this many lanes, its shape still NCHW.
  int channel_block() const { return storage_.layout == Layout::kNCHWc ? storage_.block : 0; }
  void set_channel_block(int block) {
    storage_.layout = block > 0 ? Layout::kNCHWc : Layout::kNCHW;
    storage_.block = block;
  }

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
  bool has_buffer() const { return data_ != nullptr || memory_ != nullptr || capacity_ > 0; }
  int64_t capacity() const { return capacity_; }

  // Points the tensor at `capacity_bytes` of `memory` from `offset` on. The
  // host view (data()) is set where the memory is host-addressable.
  void Bind(Memory* memory, int64_t offset, int64_t capacity_bytes);
  // The block the tensor lives in (null for weights, owned and app buffers)
  // and its byte offset there.
  Memory* memory() const { return memory_; }
  int64_t memory_offset() const { return memory_offset_; }
  // Points the tensor at writable host memory owned elsewhere.
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

  const QuantParams& quant() const { return quant_; }
  float scale() const { return quant_.scale; }
  int32_t zero_point() const { return quant_.zero_point; }
  void SetQuantization(const QuantParams& quant) { quant_ = quant; }
  void SetQuantization(float scale, int32_t zero_point) {
    quant_.scale = scale;
    quant_.zero_point = zero_point;
  }
  void SetChannelScales(std::vector<float> scales) { quant_.channel_scales = std::move(scales); }

  std::string DebugString() const;

 private:
  std::string name_;
  Storage storage_;
  std::vector<int64_t> shape_;
  void* data_ = nullptr;
  int64_t capacity_ = 0;
  Memory* memory_ = nullptr;
  int64_t memory_offset_ = 0;
  bool is_weight_ = false;
  std::shared_ptr<std::vector<uint64_t>> owned_;
  QuantParams quant_;
};

std::string ShapeToString(const std::vector<int64_t>& shape);

}  // namespace mace

#endif  // MACE_CORE_TENSOR_H_
