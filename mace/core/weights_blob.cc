#include <sys/mman.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <limits>

#include "mace/core/workspace.h"
#include "mace/utils/crc32c.h"
#include "mace/utils/file_read.h"
#include "mace/utils/large_buffer.h"
#include "mace/utils/logging.h"
#include "mace/utils/status.h"

namespace mace {
namespace {

class HeapBlob : public WeightsBlob {
 public:
  HeapBlob(const unsigned char* data, int64_t size) : buffer_(size, 64, data) {}
  const unsigned char* data() const override { return const_cast<AlignedBuffer&>(buffer_).data(); }
  unsigned char* mutable_data() { return buffer_.data(); }
  int64_t size() const override { return buffer_.size(); }

 private:
  AlignedBuffer buffer_;
};

// A read-only private mapping of a weights file. Its pages are the file's
// until written, so a rewrite of the file changes what they hold and a
// truncation makes them fault (SIGBUS); the descriptor stays open so that
// CheckUnchanged sees either with one fstat.
class MappedBlob : public WeightsBlob {
 public:
  MappedBlob(RegularFile file, void* data, int64_t size)
      : file_(std::move(file)), data_(data), size_(size) {}
  ~MappedBlob() override { munmap(data_, size_); }
  const unsigned char* data() const override { return static_cast<const unsigned char*>(data_); }
  int64_t size() const override { return size_; }
  MaceStatus CheckUnchanged() const override {
    if (!file_.Changed()) return MaceStatus();
    return MaceStatus(MaceStatus::MACE_RUNTIME_ERROR,
                      StrCat("weights file '", file_.path(),
                             "' changed since the engine was created; create the engine again"));
  }

 private:
  RegularFile file_;
  void* data_;
  int64_t size_;
};

// Opens the weights file at `path` and checks that this process can address
// all of it.
MaceStatus OpenWeightsFile(const std::string& path, RegularFile* file) {
  MACE_RETURN_IF_ERROR(RegularFile::Open(path, "weights file", file));
  if (static_cast<uint64_t>(file->size()) > std::numeric_limits<size_t>::max() / 2) {
    return MaceStatus(MaceStatus::MACE_OUT_OF_RESOURCES,
                      StrCat(file->name(), " holds ", file->size(),
                             " bytes, more than this process can address"));
  }
  return MaceStatus();
}

std::string Hex32(uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof(text), "0x%08" PRIX32, value);
  return text;
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
  RegularFile file;
  MACE_RETURN_IF_ERROR(OpenWeightsFile(path, &file));
  // An empty file has nothing to map, and nothing that could fault.
  if (file.size() == 0) {
    *blob = CopyWeights(nullptr, 0);
    return MaceStatus();
  }
  // Every byte is read at creation (the checksum, then the packers), so
  // the whole file is mapped at once: one call instead of a page fault
  // per fault-around window (16 pages), each a trap into the kernel.
#if defined(MAP_POPULATE)
  const int flags = MAP_PRIVATE | MAP_POPULATE;
#else
  const int flags = MAP_PRIVATE;
#endif
  void* data = mmap(nullptr, static_cast<size_t>(file.size()), PROT_READ, flags, file.fd(), 0);
  if (data == MAP_FAILED) {
    return MaceStatus(MaceStatus::MACE_OUT_OF_RESOURCES,
                      StrCat("cannot map ", file.name(), ": ", std::strerror(errno)));
  }
  const int64_t size = file.size();
  *blob = std::make_shared<MappedBlob>(std::move(file), data, size);
  return MaceStatus();
}

MaceStatus ReadWeightsFile(const std::string& path, std::shared_ptr<WeightsBlob>* blob) {
  RegularFile file;
  MACE_RETURN_IF_ERROR(OpenWeightsFile(path, &file));
  auto copy = std::make_shared<HeapBlob>(nullptr, file.size());
  if (copy->size() != file.size()) {
    return MaceStatus(MaceStatus::MACE_OUT_OF_RESOURCES,
                      StrCat("cannot allocate ", file.size(), " bytes to copy ", file.name()));
  }
  MACE_RETURN_IF_ERROR(file.ReadAt(0, file.size(), copy->mutable_data()));
  MACE_CHECK_ARG(!file.Changed(), file.name(), " changed while it was read");
  *blob = std::move(copy);
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
