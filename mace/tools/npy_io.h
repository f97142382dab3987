// Float32 tensors in NumPy .npy files or raw little-endian float32 files.
// Every byte of an input file is untrusted: a bad file is an error message
// naming it, never a crash or an allocation sized by the file.
#ifndef MACE_TOOLS_NPY_IO_H_
#define MACE_TOOLS_NPY_IO_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mace {
namespace tools {

// A float32 header needs under 200 bytes; NumPy itself refuses more than
// 10,000 unless told otherwise.
constexpr size_t kMaxNpyHeaderBytes = 1 << 16;

struct NpyHeader {
  std::vector<int64_t> shape;
  std::string descr;       // '<f4', '<i4', '<i8', '|b1' or '|u1'

  size_t data_offset = 0;  // where the array data starts in the file
};

// Parses the magic, version and header dict at the start of `bytes`, which
// may go on past the header. Accepts C order only, of float32 ('<f4'),
// int32 ('<i4'), int64 ('<i8'), bool ('|b1') or uint8 ('|u1').
bool ParseNpyHeader(std::string_view bytes, NpyHeader* header, std::string* error);

// Checks that a file of `file_size` bytes with `header` holds exactly an
// array of `shape`: the same shape, no truncated and no trailing data.
bool CheckNpyLayout(const NpyHeader& header, int64_t file_size, const std::vector<int64_t>& shape,
                    std::string* error);

// Bytes per element of a supported descr, else 0.
size_t NpyElementSize(const std::string& descr);

// Decodes a whole float32 .npy file held in memory into `data`, which has
// room for product(shape) floats; the file's shape must be `shape`.
bool DecodeNpy(std::string_view bytes, const std::vector<int64_t>& shape, float* data,
               std::string* error);

// Reads `path` into `data`, which has room for product(shape) floats. A .npy
// file must have exactly `shape`; any other file is raw float32 and must hold
// exactly product(shape) values. Errors name the file.
bool ReadFloatTensor(const std::string& path, const std::vector<int64_t>& shape, float* data,
                     std::string* error);

// Reads an input file of exactly `shape`: a .npy of any supported dtype
// (its descr is returned), or a raw file of float32 values ('<f4'). `data`
// receives the elements' bytes. Errors name the file.
bool ReadTensorFile(const std::string& path, const std::vector<int64_t>& shape, std::string* descr,
                    std::string* data, std::string* error);

// A version 1.0 .npy file of `shape` holding `data`, whose elements are
// `element_size` bytes of the NumPy type `descr` ('<f4', '<i4', '|u1').
bool EncodeNpy(const std::vector<int64_t>& shape, const void* data, const std::string& descr,
               size_t element_size, std::string* bytes, std::string* error);
bool WriteNpy(const std::string& path, const std::vector<int64_t>& shape, const void* data,
              const std::string& descr, size_t element_size, std::string* error);
// The same, for float32 ('<f4').
bool EncodeNpy(const std::vector<int64_t>& shape, const float* data, std::string* bytes,
               std::string* error);
bool WriteNpy(const std::string& path, const std::vector<int64_t>& shape, const float* data,
              std::string* error);

}  // namespace tools
}  // namespace mace

#endif  // MACE_TOOLS_NPY_IO_H_
