// The compiled-program cache file: an OpenCL program binary wrapped in a
// header that says which device, driver, build options and kernel sources
// it was built for, with checksums, so that a stale, foreign, truncated or
// corrupt file is recognized before the binary reaches the driver (a
// truncated binary crashes some drivers inside clCreateProgramWithBinary).
//
// Layout, little-endian:
//   8 bytes   magic "MACECLPC"
//   u32       format version (kProgramCacheVersion)
//   4 x (u32 length + bytes)   platform, device, driver version, build options
//   u64       hash of the kernel sources (FNV-1a 64)
//   u64       body size
//   u32       CRC-32C of the body
//   u32       CRC-32C of everything above
//   body      the program binary
//
// The tuned-parameter file (tuning.h) uses the same wrapping with its own
// magic and version: any per-device file goes through Encode/DecodeDeviceFile.
#ifndef MACE_RUNTIMES_OPENCL_PROGRAM_CACHE_H_
#define MACE_RUNTIMES_OPENCL_PROGRAM_CACHE_H_

#include <cstdint>
#include <string>

#include "mace/public/mace.h"

namespace mace {
namespace opencl {

constexpr uint32_t kProgramCacheVersion = 1;

// What a cached binary must have been built for.
struct ProgramCacheKey {
  std::string platform;
  std::string device;
  std::string driver;
  std::string options;
  uint64_t source_hash = 0;
};

// What a per-device file is: its 8-byte magic, format version and name
// (for messages).
struct DeviceFileFormat {
  const char* magic;
  uint32_t version;
  const char* name;
};

extern const DeviceFileFormat kProgramCacheFormat;

uint64_t Fnv1a64(const std::string& text, uint64_t hash = 0xcbf29ce484222325ull);

// The file's bytes: a header of `format` and `key`, then `body`.
std::string EncodeDeviceFile(const DeviceFileFormat& format, const ProgramCacheKey& key,
                             const std::string& body);
// Checks `file` against `format` and `key`: the body on success, else
// false with the reason in `why` ("truncated", "built for device X", ...).
bool DecodeDeviceFile(const DeviceFileFormat& format, const std::string& file,
                      const ProgramCacheKey& key, std::string* body, std::string* why);
// Reads and checks `path`. False with an empty `why` when there is no file;
// false with a reason when there is one that cannot be used.
bool ReadDeviceFile(const DeviceFileFormat& format, const std::string& path,
                    const ProgramCacheKey& key, std::string* body, std::string* why);
// Writes `bytes` atomically: a temporary file next to `path`, then a
// rename, so readers see the old file or the new one, never half of one.
MaceStatus WriteFileAtomically(const std::string& path, const std::string& bytes);

// The file's bytes for `binary` built under `key`.
std::string EncodeProgramCache(const ProgramCacheKey& key, const std::string& binary);

// Checks `file` against `key`: the binary on success, else false with the
// reason in `why` ("truncated", "built for device X", ...).
bool DecodeProgramCache(const std::string& file, const ProgramCacheKey& key, std::string* binary,
                        std::string* why);

// Reads and checks `path`. False with an empty `why` when there is no file;
// false with a reason when there is one that cannot be used.
bool ReadProgramCache(const std::string& path, const ProgramCacheKey& key, std::string* binary,
                      std::string* why);

// Writes the file atomically: a temporary file next to it, then a rename,
// so readers see the old file or the new one, never half of one.
MaceStatus WriteProgramCache(const std::string& path, const ProgramCacheKey& key,
                             const std::string& binary);

}  // namespace opencl
}  // namespace mace

#endif  // MACE_RUNTIMES_OPENCL_PROGRAM_CACHE_H_
