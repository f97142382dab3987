#include "mace/runtimes/opencl/program_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "mace/utils/crc32c.h"
#include "mace/utils/file_read.h"
#include "mace/utils/status.h"

namespace mace {
namespace opencl {
namespace {

constexpr size_t kMagicBytes = 8;
// Header strings are names and option lists; anything longer is corruption.
constexpr uint32_t kMaxStringBytes = 1 << 16;

void PutU32(std::string* out, uint32_t value) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}
void PutU64(std::string* out, uint64_t value) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

// Reads fields from the front of a byte string; false once it runs out.
class Reader {
 public:
  explicit Reader(const std::string& bytes) : bytes_(bytes) {}
  bool U32(uint32_t* value) {
    uint64_t wide = 0;
    if (!Unsigned(4, &wide)) return false;
    *value = static_cast<uint32_t>(wide);
    return true;
  }
  bool U64(uint64_t* value) { return Unsigned(8, value); }
  bool String(std::string* value) {
    uint32_t length = 0;
    if (!U32(&length) || length > kMaxStringBytes || bytes_.size() - at_ < length) return false;
    value->assign(bytes_, at_, length);
    at_ += length;
    return true;
  }
  size_t at() const { return at_; }

 private:
  bool Unsigned(int size, uint64_t* value) {
    if (bytes_.size() - at_ < static_cast<size_t>(size)) return false;
    *value = 0;
    for (int i = 0; i < size; ++i) {
      *value |= static_cast<uint64_t>(static_cast<unsigned char>(bytes_[at_ + i])) << (8 * i);
    }
    at_ += size;
    return true;
  }
  const std::string& bytes_;
  size_t at_ = 0;
};

bool Differs(const char* what, const std::string& cached, const std::string& wanted,
             std::string* why) {
  if (cached == wanted) return false;
  *why = StrCat("built for ", what, " '", cached, "', not '", wanted, "'");
  return true;
}

}  // namespace

const DeviceFileFormat kProgramCacheFormat = {"MACECLPC", kProgramCacheVersion,
                                              "MACE OpenCL program cache"};

uint64_t Fnv1a64(const std::string& text, uint64_t hash) {
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

std::string EncodeDeviceFile(const DeviceFileFormat& format, const ProgramCacheKey& key,
                             const std::string& body) {
  std::string out(format.magic, kMagicBytes);
  PutU32(&out, format.version);
  for (const std::string* text : {&key.platform, &key.device, &key.driver, &key.options}) {
    PutU32(&out, static_cast<uint32_t>(text->size()));
    out += *text;
  }
  PutU64(&out, key.source_hash);
  PutU64(&out, body.size());
  PutU32(&out, Crc32c(body.data(), body.size()));
  PutU32(&out, Crc32c(out.data(), out.size()));
  return out + body;
}

bool DecodeDeviceFile(const DeviceFileFormat& format, const std::string& file,
                      const ProgramCacheKey& key, std::string* body, std::string* why) {
  if (file.empty()) {
    *why = "the file is empty";
    return false;
  }
  if (file.size() < kMagicBytes || std::memcmp(file.data(), format.magic, kMagicBytes) != 0) {
    *why = StrCat("not a ", format.name, " (bad magic)");
    return false;
  }
  const std::string rest = file.substr(kMagicBytes);
  Reader reader(rest);
  uint32_t version = 0;
  ProgramCacheKey cached;
  uint64_t source_hash = 0, body_size = 0;
  uint32_t body_crc = 0, header_crc = 0;
  if (!reader.U32(&version)) {
    *why = "truncated header";
    return false;
  }
  if (version != format.version) {
    *why = StrCat("format version ", version, ", this library reads version ", format.version);
    return false;
  }
  if (!reader.String(&cached.platform) || !reader.String(&cached.device) ||
      !reader.String(&cached.driver) || !reader.String(&cached.options) ||
      !reader.U64(&source_hash) || !reader.U64(&body_size) || !reader.U32(&body_crc)) {
    *why = "truncated or corrupt header";
    return false;
  }
  const size_t header_bytes = kMagicBytes + reader.at();
  if (!reader.U32(&header_crc) || Crc32c(file.data(), header_bytes) != header_crc) {
    *why = "corrupt header (checksum mismatch)";
    return false;
  }
  if (Differs("platform", cached.platform, key.platform, why) ||
      Differs("device", cached.device, key.device, why) ||
      Differs("driver", cached.driver, key.driver, why) ||
      Differs("build options", cached.options, key.options, why)) {
    return false;
  }
  if (source_hash != key.source_hash) {
    *why = "built from other kernel sources (stale)";
    return false;
  }
  const size_t body_at = kMagicBytes + reader.at();
  if (file.size() - body_at != body_size) {
    *why = StrCat("the body has ", file.size() - body_at, " bytes, the header says ", body_size,
                  " (truncated?)");
    return false;
  }
  if (body_size == 0 || Crc32c(file.data() + body_at, body_size) != body_crc) {
    *why = "corrupt body (checksum mismatch)";
    return false;
  }
  body->assign(file, body_at, body_size);
  return true;
}

std::string EncodeProgramCache(const ProgramCacheKey& key, const std::string& binary) {
  return EncodeDeviceFile(kProgramCacheFormat, key, binary);
}

bool DecodeProgramCache(const std::string& file, const ProgramCacheKey& key, std::string* binary,
                        std::string* why) {
  return DecodeDeviceFile(kProgramCacheFormat, file, key, binary, why);
}

bool ReadDeviceFile(const DeviceFileFormat& format, const std::string& path,
                    const ProgramCacheKey& key, std::string* body, std::string* why) {
  why->clear();
  // No file yet is the usual first run: no reason to give.
  struct stat info;
  if (lstat(path.c_str(), &info) != 0 && errno == ENOENT) return false;
  std::string bytes;
  const MaceStatus read = ReadRegularFile(path, "", kMaxFileReadBytes, &bytes);
  if (!read.ok()) {
    *why = StrCat("cannot be read: ", read.information());
    return false;
  }
  return DecodeDeviceFile(format, bytes, key, body, why);
}

bool ReadProgramCache(const std::string& path, const ProgramCacheKey& key, std::string* binary,
                      std::string* why) {
  return ReadDeviceFile(kProgramCacheFormat, path, key, binary, why);
}

MaceStatus WriteFileAtomically(const std::string& path, const std::string& bytes) {
  const std::string temporary = StrCat(path, ".tmp.", getpid());
  FILE* file = std::fopen(temporary.c_str(), "wb");
  if (file == nullptr) {
    return MaceStatus(MaceStatus::MACE_RUNTIME_ERROR,
                      StrCat("cannot create '", temporary, "': ", std::strerror(errno)));
  }
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  const bool closed = std::fclose(file) == 0;
  if (!written || !closed || std::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string error = std::strerror(errno);
    std::remove(temporary.c_str());
    return MaceStatus(MaceStatus::MACE_RUNTIME_ERROR,
                      StrCat("cannot write '", path, "': ", error));
  }
  return MaceStatus();
}

MaceStatus WriteProgramCache(const std::string& path, const ProgramCacheKey& key,
                             const std::string& binary) {
  return WriteFileAtomically(path, EncodeProgramCache(key, binary));
}

}  // namespace opencl
}  // namespace mace
