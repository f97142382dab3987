#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iomanip>

#include "mace/core/workspace.h"
#include "mace/utils/crc32c.h"
#include "mace/utils/large_buffer.h"
#include "mace/utils/logging.h"
#include "mace/utils/status.h"

namespace mace {
namespace {

class HeapBlob : public WeightsBlob {
 public:
  HeapBlob(const unsigned char* data, int64_t size) : buffer_(size, 64, data) {}
  const unsigned char* data() const override { return const_cast<AlignedBuffer&>(buffer_).data(); }
  int64_t size() const override { return buffer_.size(); }

 private:
  AlignedBuffer buffer_;
};

class MappedBlob : public WeightsBlob {
 public:
  MappedBlob(void* data, int64_t size) : data_(data), size_(size) {}
  ~MappedBlob() override {
    if (data_ != nullptr) munmap(data_, size_);
  }
  const unsigned char* data() const override { return static_cast<const unsigned char*>(data_); }
  int64_t size() const override { return size_; }

 private:
  void* data_;
  int64_t size_;
};

std::string Hex32(uint32_t value) {
  std::ostringstream stream;
  stream << "0x" << std::hex << std::uppercase << std::setw(8) << std::setfill('0') << value;
  return stream.str();
}

}  // namespace

AlignedBuffer::AlignedBuffer(int64_t size, int64_t alignment, const unsigned char* source)
    : size_(size) {
  if (size <= 0) return;
  void* pointer = AllocateLargeBuffer(size, alignment);
  if (pointer != nullptr) {
    data_ = static_cast<unsigned char*>(pointer);
    if (source != nullptr) {
      std::memcpy(data_, source, size);
    } else {
      std::memset(data_, 0, size);
    }
  } else {
    size_ = 0;
  }
}

AlignedBuffer::~AlignedBuffer() { free(data_); }

std::shared_ptr<WeightsBlob> CopyWeights(const unsigned char* data, int64_t size) {
  return std::make_shared<HeapBlob>(data, size);
}

MaceStatus MapWeightsFile(const std::string& path, std::shared_ptr<WeightsBlob>* blob) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return MaceStatus(MaceStatus::MACE_INVALID_ARGS,
                      StrCat("cannot open weights file '", path, "': ", std::strerror(errno)));
  }
  struct stat info;
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    close(fd);
    return MaceStatus(MaceStatus::MACE_INVALID_ARGS,
                      StrCat("weights file '", path, "' is not a regular file"));
  }
  void* data = nullptr;
  if (info.st_size > 0) {
    // Every byte is read at creation (the checksum, then the packers), so
    // the whole file is mapped at once: one call instead of a page fault
    // per fault-around window (16 pages), each a trap into the kernel.
#if defined(MAP_POPULATE)
    const int flags = MAP_PRIVATE | MAP_POPULATE;
#else
    const int flags = MAP_PRIVATE;
#endif
    data = mmap(nullptr, info.st_size, PROT_READ, flags, fd, 0);
    if (data == MAP_FAILED) {
      close(fd);
      return MaceStatus(MaceStatus::MACE_OUT_OF_RESOURCES,
                        StrCat("cannot map weights file '", path, "': ", std::strerror(errno)));
    }
  }
  close(fd);
  *blob = std::make_shared<MappedBlob>(data, info.st_size);
  return MaceStatus();
}

MaceStatus VerifyWeights(const NetDef& net_def, const WeightsBlob* blob) {
  if (!net_def.has_weights_crc32c()) {
    VLOG(1) << "model '" << net_def.name()
            << "' has no weights checksum (its converter predates weights_crc32c); "
               "its weights are not verified";
    return MaceStatus();
  }
  const uint32_t expected = net_def.weights_crc32c();
  const uint32_t actual = blob == nullptr ? Crc32c(nullptr, 0) : Crc32c(blob->data(), blob->size());
  MACE_CHECK_ARG(actual == expected, "the weights data does not match the model (CRC32C expected ",
                 Hex32(expected), ", got ", Hex32(actual), "): a truncated or corrupt .data file?");
  VLOG(1) << "weights match the model's CRC32C " << Hex32(expected);
  return MaceStatus();
}

}  // namespace mace
