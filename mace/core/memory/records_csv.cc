#include "mace/core/memory/records_csv.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <utility>

namespace mace {
namespace memory {
namespace {

std::string Trim(const std::string& text) {
  size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return text.substr(begin, end - begin);
}

std::vector<std::string> SplitFields(const std::string& line) {
  std::vector<std::string> fields;
  if (line.empty()) return fields;
  // n commas separate n + 1 fields, the last empty after a final comma.
  for (size_t begin = 0;;) {
    const size_t comma = line.find(',', begin);
    if (comma == std::string::npos) {
      fields.push_back(Trim(line.substr(begin)));
      return fields;
    }
    fields.push_back(Trim(line.substr(begin, comma - begin)));
    begin = comma + 1;
  }
}

std::string Lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

struct Form {
  RecordsFormat format;
  const char* header;
  size_t num_fields;
};

constexpr Form kForms[] = {
    {RecordsFormat::kSizeFirstLast, "size,first,last", 3},
    {RecordsFormat::kImage, "width,height,first,last", 4},
    {RecordsFormat::kMiniMalloc, "id,lower,upper,size", 4},
};

class LineParser {
 public:
  LineParser(const std::string& file_name, size_t line_number)
      : where_(file_name + ":" + std::to_string(line_number) + ": ") {}

  Status Error(const std::string& message) const { return Status::Error(where_ + message); }

  Status Number(const std::string& field, const char* name, size_t max, size_t* value) const {
    if (!ParseUnsigned(field, max, value)) {
      return Error(std::string(name) + " must be an integer in [0, " + std::to_string(max) +
                   "], got " + Quote(field));
    }
    return Status();
  }

 private:
  std::string where_;
};

Status ParseRow(const LineParser& line, RecordsFormat format, const std::vector<std::string>& f,
                RecordsFile* out) {
  size_t a = 0, b = 0, first = 0, last = 0;
  // On 32-bit targets size_t cannot hold kMaxTask; lifetimes are capped lower.
  const size_t max_task = static_cast<size_t>(
      std::min<uint64_t>(kMaxTask, std::numeric_limits<size_t>::max()));
  switch (format) {
    case RecordsFormat::kSizeFirstLast:
      MACE_MEMORY_RETURN_IF_ERROR(line.Number(f[0], "size", kMaxTensorSize, &a));
      MACE_MEMORY_RETURN_IF_ERROR(line.Number(f[1], "first", max_task, &first));
      MACE_MEMORY_RETURN_IF_ERROR(line.Number(f[2], "last", max_task, &last));
      if (first > last) return line.Error("first > last");
      out->records.push_back({a, static_cast<TaskId>(first), static_cast<TaskId>(last)});
      return Status();
    case RecordsFormat::kImage:
      MACE_MEMORY_RETURN_IF_ERROR(line.Number(f[0], "width", kMaxImageExtent, &a));
      MACE_MEMORY_RETURN_IF_ERROR(line.Number(f[1], "height", kMaxImageExtent, &b));
      MACE_MEMORY_RETURN_IF_ERROR(line.Number(f[2], "first", max_task, &first));
      MACE_MEMORY_RETURN_IF_ERROR(line.Number(f[3], "last", max_task, &last));
      if (first > last) return line.Error("first > last");
      out->image_records.push_back({{a, b}, static_cast<TaskId>(first), static_cast<TaskId>(last)});
      return Status();
    case RecordsFormat::kMiniMalloc:
      if (f[0].empty()) return line.Error("empty id");
      MACE_MEMORY_RETURN_IF_ERROR(line.Number(f[1], "lower", max_task, &first));
      MACE_MEMORY_RETURN_IF_ERROR(line.Number(f[2], "upper", max_task, &last));
      MACE_MEMORY_RETURN_IF_ERROR(line.Number(f[3], "size", kMaxTensorSize, &a));
      if (first >= last) return line.Error("lower must be < upper (half-open lifespan)");
      out->ids.push_back(f[0]);
      out->records.push_back({a, static_cast<TaskId>(first), static_cast<TaskId>(last - 1)});
      return Status();
  }
  return line.Error("unknown format");
}

}  // namespace

std::string Quote(const std::string& text) {
  constexpr size_t kMaxShown = 40;
  std::string quoted = "'";
  for (size_t k = 0; k < text.size() && k < kMaxShown; ++k) {
    const unsigned char c = static_cast<unsigned char>(text[k]);
    quoted += c >= 0x20 && c < 0x7f ? static_cast<char>(c) : '?';
  }
  if (text.size() > kMaxShown) quoted += "...";
  return quoted + "'";
}

bool ParseUnsigned(const std::string& field, size_t max, size_t* value) {
  // 19 digits always fit in 64 bits, whatever the width of size_t.
  if (field.empty() || field.size() > 19) return false;
  uint64_t result = 0;
  for (char c : field) {
    if (c < '0' || c > '9') return false;
    result = result * 10 + static_cast<uint64_t>(c - '0');
  }
  if (result > max) return false;
  *value = static_cast<size_t>(result);
  return true;
}

Status ParseRecordsCsv(const std::string& text, const std::string& file_name, RecordsFile* out) {
  *out = RecordsFile();
  size_t line_number = 0;
  const Form* form = nullptr;
  // One record a line; a final line break ends the last line.
  for (size_t begin = 0; begin < text.size();) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    const std::string line = Trim(text.substr(begin, end - begin));
    begin = end + 1;
    ++line_number;
    if (line.empty()) continue;
    const LineParser parser(file_name, line_number);
    std::vector<std::string> fields = SplitFields(line);
    if (form == nullptr) {
      std::string header;
      for (size_t k = 0; k < fields.size(); ++k) header += (k ? "," : "") + Lower(fields[k]);
      for (const Form& candidate : kForms) {
        if (header == candidate.header) form = &candidate;
      }
      if (form == nullptr) {
        return parser.Error("unknown header " + Quote(line) +
                            "; expected size,first,last or width,height,first,last or "
                            "id,lower,upper,size");
      }
      out->format = form->format;
      continue;
    }
    if (fields.size() != form->num_fields) {
      return parser.Error("expected " + std::to_string(form->num_fields) + " fields (" +
                          form->header + "), got " + std::to_string(fields.size()));
    }
    MACE_MEMORY_RETURN_IF_ERROR(ParseRow(parser, form->format, fields, out));
  }
  if (form == nullptr) return Status::Error(file_name + ":1: missing header line");
  return Status();
}

Status ReadTextFile(const std::string& path, std::string* text) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    return Status::Error(path + ": is a directory, not a file");
  }
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return Status::Error(path + ": cannot open file");
  std::string contents;
  char buffer[4096];
  size_t count;
  while ((count = std::fread(buffer, 1, sizeof(buffer), file)) > 0) contents.append(buffer, count);
  const bool failed = std::ferror(file) != 0;
  std::fclose(file);
  if (failed) return Status::Error(path + ": read error");
  *text = std::move(contents);
  return Status();
}

Status ReadRecordsCsv(const std::string& path, RecordsFile* out) {
  std::string text;
  MACE_MEMORY_RETURN_IF_ERROR(ReadTextFile(path, &text));
  return ParseRecordsCsv(text, path, out);
}

}  // namespace memory
}  // namespace mace
