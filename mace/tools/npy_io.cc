#include "mace/tools/npy_io.h"

#include <cstring>
#include <fstream>
#include <set>

#include "mace/tools/run_report.h"
#include "mace/utils/checked_math.h"
#include "mace/utils/file_read.h"

namespace mace {
namespace tools {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
// Magic, version (2 bytes), header length (at most 4 bytes) and header.
constexpr size_t kMaxNpyPrefix = kMagicSize + 2 + 4 + kMaxNpyHeaderBytes;
constexpr int64_t kMaxFloats = kMaxByteCount / static_cast<int64_t>(sizeof(float));

bool EndsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The header is a Python dict literal, e.g.
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// This reads exactly that grammar: string keys; string, boolean and integer
// tuple values. A substring search would accept a dict whose real 'descr'
// differs from a decoy inside another value.
class HeaderDictParser {
 public:
  explicit HeaderDictParser(std::string_view text) : text_(text) {}

  bool Parse(std::vector<int64_t>* shape, std::string* descr_out, std::string* error) {
    std::set<std::string> seen;
    std::string descr;
    bool fortran_order = true;
    if (!Expect('{')) return Fail("the header is not a dict", error);
    while (!Peek('}')) {
      std::string key;
      if (!String(&key) || !Expect(':')) return Fail("the header dict is malformed", error);
      if (!seen.insert(key).second) return Fail("the header repeats '" + key + "'", error);
      bool ok = false;
      if (key == "descr")
        ok = String(&descr);
      else if (key == "fortran_order")
        ok = Bool(&fortran_order);
      else if (key == "shape")
        ok = Tuple(shape);
      else
        return Fail("the header has an unknown key '" + key + "'", error);
      if (!ok) return Fail("the header's '" + key + "' value is malformed", error);
      if (!Expect(',')) break;
    }
    if (!Expect('}')) return Fail("the header dict is malformed", error);
    SkipSpace();
    if (pos_ != text_.size()) return Fail("the header has text after its dict", error);
    if (seen.size() != 3) return Fail("the header lacks descr, fortran_order or shape", error);
    if (NpyElementSize(descr) == 0) {
      return Fail("the dtype is '" + descr + "'; supported are float32 ('<f4'), int32 ('<i4'), "
                  "int64 ('<i8'), bool ('|b1') and uint8 ('|u1')", error);
    }
    if (fortran_order) return Fail("Fortran-order arrays are not supported", error);
    *descr_out = descr;
    return true;
  }

 private:
  static bool Fail(const std::string& message, std::string* error) {
    *error = message;
    return false;
  }
  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n')) ++pos_;
  }
  bool Peek(char c) {
    SkipSpace();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  bool Expect(char c) {
    if (!Peek(c)) return false;
    ++pos_;
    return true;
  }
  bool String(std::string* value) {
    SkipSpace();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) return false;
    const size_t end = text_.find(text_[pos_], pos_ + 1);
    if (end == std::string_view::npos) return false;
    value->assign(text_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return true;
  }
  bool Bool(bool* value) {
    SkipSpace();
    for (const auto& [word, meaning] : {std::pair<std::string_view, bool>{"True", true},
                                        std::pair<std::string_view, bool>{"False", false}}) {
      if (text_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        *value = meaning;
        return true;
      }
    }
    return false;
  }
  bool Integer(int64_t* value) {
    SkipSpace();
    const size_t start = pos_;
    int64_t result = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      if (!CheckedMul(result, 10, &result) || !CheckedAdd(result, text_[pos_] - '0', &result)) {
        return false;
      }
      ++pos_;
    }
    *value = result;
    return pos_ > start;
  }
  // (), (3,) or (2, 3) with an optional trailing comma.
  bool Tuple(std::vector<int64_t>* dims) {
    dims->clear();
    if (!Expect('(')) return false;
    while (!Peek(')')) {
      int64_t dim = 0;
      if (!Integer(&dim)) return false;
      dims->push_back(dim);
      if (!Expect(',')) break;
    }
    return Expect(')');
  }

  std::string_view text_;
  size_t pos_ = 0;
};

uint32_t LittleEndian(std::string_view bytes, size_t offset, size_t width) {
  uint32_t value = 0;
  for (size_t i = 0; i < width; ++i) {
    value |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[offset + i])) << (8 * i);
  }
  return value;
}

// Prefixes `error` with the file it is about; returns false for chaining.
bool NamePath(const std::string& path, std::string* error) {
  if (error->find("'" + path + "'") == std::string::npos) *error = "'" + path + "': " + *error;
  return false;
}

// The flag-style result of a file read: `error` takes the status' message.
bool Succeeded(const MaceStatus& status, std::string* error) {
  if (!status.ok()) *error = status.information();
  return status.ok();
}

}  // namespace

bool ParseNpyHeader(std::string_view bytes, NpyHeader* header, std::string* error) {
  if (bytes.size() < kMagicSize + 2 || bytes.compare(0, kMagicSize, kMagic) != 0) {
    *error = "not a .npy file (no \\x93NUMPY magic)";
    return false;
  }
  const int major = static_cast<unsigned char>(bytes[6]);
  const int minor = static_cast<unsigned char>(bytes[7]);
  if ((major < 1 || major > 3) || minor != 0) {
    *error = "unsupported .npy version " + std::to_string(major) + "." + std::to_string(minor);
    return false;
  }
  // Version 1 stores the header length in 2 bytes, versions 2 and 3 in 4.
  const size_t length_width = major == 1 ? 2 : 4;
  const size_t header_start = kMagicSize + 2 + length_width;
  if (bytes.size() < header_start) {
    *error = "the .npy header is truncated";
    return false;
  }
  const size_t header_length = LittleEndian(bytes, kMagicSize + 2, length_width);
  if (header_length > kMaxNpyHeaderBytes) {
    *error = "the .npy header claims " + std::to_string(header_length) + " bytes, more than " +
             std::to_string(kMaxNpyHeaderBytes);
    return false;
  }
  if (bytes.size() - header_start < header_length) {
    *error = "the .npy header is truncated";
    return false;
  }
  HeaderDictParser parser(bytes.substr(header_start, header_length));
  if (!parser.Parse(&header->shape, &header->descr, error)) return false;
  if (CheckedElementCount(header->shape, kMaxFloats) < 0) {
    *error = "the .npy shape " + ShapeText(header->shape) + " is too large";
    return false;
  }
  header->data_offset = header_start + header_length;
  return true;
}

bool CheckNpyLayout(const NpyHeader& header, int64_t file_size, const std::vector<int64_t>& shape,
                    std::string* error) {
  if (header.shape != shape) {
    *error = "the file's shape " + ShapeText(header.shape) + " differs from the input shape " +
             ShapeText(shape);
    return false;
  }
  // ParseNpyHeader bounded the count (to the float32 limit, which no
  // element size here exceeds by more than 2x), so the byte count cannot
  // overflow int64.
  const int64_t needed = CheckedElementCount(shape, kMaxFloats) * NpyElementSize(header.descr);
  const int64_t held = file_size - static_cast<int64_t>(header.data_offset);
  if (held != needed) {
    *error = std::string(held < needed ? "truncated" : "trailing bytes") + ": shape " +
             ShapeText(shape) + " needs " + std::to_string(needed) +
             " data bytes but the file has " + std::to_string(held);
    return false;
  }
  return true;
}

bool DecodeNpy(std::string_view bytes, const std::vector<int64_t>& shape, float* data,
               std::string* error) {
  NpyHeader header;
  if (!ParseNpyHeader(bytes, &header, error)) return false;
  if (header.descr != "<f4") {
    *error = "the dtype is '" + header.descr + "' but a float32 ('<f4') array is needed";
    return false;
  }
  if (!CheckNpyLayout(header, static_cast<int64_t>(bytes.size()), shape, error)) return false;
  std::memcpy(data, bytes.data() + header.data_offset, bytes.size() - header.data_offset);
  return true;
}

size_t NpyElementSize(const std::string& descr) {
  if (descr == "<f4" || descr == "<i4") return 4;
  if (descr == "<i8") return 8;
  if (descr == "|b1" || descr == "|u1") return 1;
  return 0;
}

bool ReadTensorFile(const std::string& path, const std::vector<int64_t>& shape, std::string* descr,
                    std::string* data, std::string* error) {
  if (!EndsWith(path, ".npy")) {
    *descr = "<f4";
    const int64_t count = CheckedElementCount(shape, kMaxFloats);
    if (count < 0) {
      *error = "shape " + ShapeText(shape) + " is too large to read '" + path + "' into";
      return false;
    }
    data->resize(count * sizeof(float));
    return ReadFloatTensor(path, shape, reinterpret_cast<float*>(data->data()), error);
  }
  RegularFile file;
  if (!Succeeded(RegularFile::Open(path, "", &file), error)) return false;
  NpyHeader header;
  std::string bytes;
  if (!Succeeded(file.ReadHead(kMaxNpyPrefix, &bytes), error) ||
      !ParseNpyHeader(bytes, &header, error) ||
      !CheckNpyLayout(header, file.size(), shape, error) ||
      !Succeeded(file.ReadAll(file.size(), &bytes), error)) {
    return NamePath(path, error);
  }
  *descr = header.descr;
  data->assign(bytes, header.data_offset, std::string::npos);
  return true;
}

bool ReadFloatTensor(const std::string& path, const std::vector<int64_t>& shape, float* data,
                     std::string* error) {
  const int64_t count = CheckedElementCount(shape, kMaxFloats);
  if (count < 0) {
    *error = "shape " + ShapeText(shape) + " is too large to read '" + path + "' into";
    return false;
  }
  const int64_t needed = count * static_cast<int64_t>(sizeof(float));
  RegularFile file;
  if (!Succeeded(RegularFile::Open(path, "", &file), error)) return false;
  const int64_t size = file.size();
  std::string bytes;
  if (EndsWith(path, ".npy")) {
    // The header first: a file of the wrong shape is refused before its data
    // is read, however large it claims to be.
    NpyHeader header;
    if (!Succeeded(file.ReadHead(kMaxNpyPrefix, &bytes), error)) return false;
    if (!ParseNpyHeader(bytes, &header, error) || !CheckNpyLayout(header, size, shape, error) ||
        !Succeeded(file.ReadAll(size, &bytes), error) || !DecodeNpy(bytes, shape, data, error)) {
      return NamePath(path, error);
    }
    return true;
  }
  if (size != needed) {
    *error = "'" + path + "' holds " + std::to_string(size) + " bytes but the input needs " +
             std::to_string(count) + " float32 values (" + std::to_string(needed) + " bytes)";
    return false;
  }
  if (!Succeeded(file.ReadAt(0, needed, data), error)) return false;
  return true;
}

bool EncodeNpy(const std::vector<int64_t>& shape, const void* data, const std::string& descr,
               size_t element_size, std::string* bytes, std::string* error) {
  const int64_t count =
      CheckedElementCount(shape, kMaxByteCount / static_cast<int64_t>(element_size));
  if (count < 0) {
    *error = "shape " + ShapeText(shape) + " is too large for a .npy file";
    return false;
  }
  std::string dims;
  for (int64_t d : shape) dims += std::to_string(d) + ", ";
  if (shape.size() > 1) dims.resize(dims.size() - 1);
  std::string header =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  // Pad so that the data starts on a 64-byte boundary, ending with '\n'.
  const size_t total = kMagicSize + 4 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  const size_t length = header.size();
  if (length > 0xffff) {
    *error = "shape " + ShapeText(shape) + " has too many dimensions for a .npy 1.0 header";
    return false;
  }
  bytes->assign(kMagic, kMagicSize);
  bytes->append({'\x01', '\x00', static_cast<char>(length & 0xff), static_cast<char>(length >> 8)});
  bytes->append(header);
  bytes->append(reinterpret_cast<const char*>(data), count * element_size);
  return true;
}

bool WriteNpy(const std::string& path, const std::vector<int64_t>& shape, const void* data,
              const std::string& descr, size_t element_size, std::string* error) {
  std::string bytes;
  if (!EncodeNpy(shape, data, descr, element_size, &bytes, error)) return NamePath(path, error);
  std::ofstream file(path, std::ios::binary);
  file.write(bytes.data(), bytes.size());
  if (!file) {
    *error = "cannot write '" + path + "'";
    return false;
  }
  return true;
}

bool EncodeNpy(const std::vector<int64_t>& shape, const float* data, std::string* bytes,
               std::string* error) {
  return EncodeNpy(shape, data, "<f4", sizeof(float), bytes, error);
}

bool WriteNpy(const std::string& path, const std::vector<int64_t>& shape, const float* data,
              std::string* error) {
  return WriteNpy(path, shape, data, "<f4", sizeof(float), error);
}

}  // namespace tools
}  // namespace mace
