#include "mace/core/runtime.h"

#include <cstdlib>
#include <cstring>

#include "mace/core/tensor.h"
#include "mace/utils/checked_math.h"
#include "mace/utils/large_buffer.h"
#include "mace/utils/status.h"

namespace mace {
namespace {

class HostMemory : public Memory {
 public:
  HostMemory(MemoryType type, int64_t bytes, int64_t allocated, unsigned char* data)
      : Memory(MemoryExtent::Buffer(type, bytes)), allocated_(allocated), data_(data) {}
  ~HostMemory() override { FreeZeroedBuffer(data_, allocated_); }
  unsigned char* host() override { return data_; }

 private:
  int64_t allocated_;
  unsigned char* data_;
};

}  // namespace

std::unique_ptr<Memory> NewHostMemory(MemoryType type, int64_t bytes) {
  if (bytes < 0 || bytes > kMaxByteCount) return nullptr;
  // A zero-byte block still gets a distinct, valid pointer.
  const int64_t size = bytes > 0 ? bytes : 1;
  // Zeroed without a memset where the kernel maps fresh zero pages: the
  // arena's pages are then first touched by the inference that writes them.
  void* pointer = AllocateZeroedBuffer(size);
  if (pointer == nullptr) return nullptr;
  return std::make_unique<HostMemory>(type, bytes, size, static_cast<unsigned char*>(pointer));
}

MaceStatus Runtime::Map(Memory* memory, unsigned char** host) {
  MACE_CHECK_ARG(memory != nullptr && host != nullptr, "Map needs memory and a pointer");
  *host = memory->host();
  MACE_UNSUPPORTED_IF(*host == nullptr, name(), " cannot map ", MemoryTypeName(memory->type()),
                      " memory for the host");
  return MaceStatus();
}

MaceStatus Runtime::Unmap(Memory* /*memory*/) { return MaceStatus(); }

MaceStatus Runtime::ImageExtentFor(const Tensor& tensor, MemoryExtent* /*extent*/) const {
  return MaceStatus(MaceStatus::MACE_UNSUPPORTED,
                    StrCat(name(), " has no 2D images for tensor '", tensor.name(), "'"));
}

MaceStatus Runtime::Copy(Memory* source, int64_t source_offset, Memory* target,
                         int64_t target_offset, int64_t bytes) {
  MACE_CHECK_ARG(source != nullptr && target != nullptr, "Copy needs two memory blocks");
  MACE_CHECK_ARG(RangeFits(source_offset, bytes, source->bytes()) &&
                     RangeFits(target_offset, bytes, target->bytes()),
                 "copy of ", bytes, " bytes from offset ", source_offset, " of a ", source->bytes(),
                 "-byte block to offset ", target_offset, " of a ", target->bytes(),
                 "-byte block is out of range");
  unsigned char* from = nullptr;
  unsigned char* to = nullptr;
  MACE_RETURN_IF_ERROR(Map(source, &from));
  MaceStatus status = Map(target, &to);
  if (status.ok()) {
    if (bytes > 0) std::memmove(to + target_offset, from + source_offset, bytes);
    status = Unmap(target);
  }
  const MaceStatus unmapped = Unmap(source);
  return status.ok() ? unmapped : status;
}

}  // namespace mace
