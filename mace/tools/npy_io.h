// Float32 tensors in NumPy .npy files or raw little-endian float32 files.
#ifndef MACE_TOOLS_NPY_IO_H_
#define MACE_TOOLS_NPY_IO_H_

#include <cstdint>
#include <string>
#include <vector>

namespace mace {
namespace tools {

// Reads `path`. A .npy file must be '<f4', C order; its shape is returned.
// Any other file is raw float32 and must hold exactly `expected_count`
// values. Returns false with `error` set on any mismatch.
bool ReadFloatTensor(const std::string& path, int64_t expected_count, std::vector<float>* data,
                     std::vector<int64_t>* shape, std::string* error);
bool WriteNpy(const std::string& path, const std::vector<int64_t>& shape, const float* data,
              std::string* error);

}  // namespace tools
}  // namespace mace

#endif  // MACE_TOOLS_NPY_IO_H_
