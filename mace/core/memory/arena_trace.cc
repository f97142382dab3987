#include "mace/core/memory/arena_trace.h"

#include <cctype>
#include <map>

#include "mace/core/memory/records_csv.h"
#include "mace/core/memory/simple_arena.h"
#include "mace/core/memory/usage_record.h"

namespace mace {
namespace memory {
namespace {

struct Live {
  ArenaAllocation allocation;
  bool freed = false;
};

// The white-space separated words of `line`.
std::vector<std::string> Words(const std::string& line) {
  std::vector<std::string> words;
  size_t at = 0;
  auto space = [&line](size_t k) { return std::isspace(static_cast<unsigned char>(line[k])) != 0; };
  while (true) {
    while (at < line.size() && space(at)) ++at;
    if (at == line.size()) return words;
    const size_t begin = at;
    while (at < line.size() && !space(at)) ++at;
    words.push_back(line.substr(begin, at - begin));
  }
}

}  // namespace

Status RunArenaTrace(const std::string& text, const std::string& file_name, size_t arena_alignment,
                     ArenaTraceResult* result) {
  *result = ArenaTraceResult();
  SimpleArena arena(arena_alignment);
  std::map<std::string, Live> allocations;
  size_t line_number = 0;
  // One command a line; a final line break ends the last line.
  for (size_t begin = 0; begin < text.size();) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(begin, end - begin);
    begin = end + 1;
    ++line_number;
    auto error = [&](const std::string& message) {
      return Status::Error(file_name + ":" + std::to_string(line_number) + ": " + message);
    };
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::vector<std::string> fields = Words(line);
    if (fields.empty()) continue;

    if (fields[0] == "alloc") {
      if (fields.size() != 4) return error("expected 'alloc ID ALIGNMENT SIZE'");
      size_t alignment = 0, size = 0;
      if (!ParseUnsigned(fields[2], kMaxAlignment, &alignment)) {
        return error("bad alignment " + Quote(fields[2]));
      }
      if (!ParseUnsigned(fields[3], kMaxTensorSize, &size)) {
        return error("bad size " + Quote(fields[3]));
      }
      if (allocations.count(fields[1]) > 0) return error(Quote(fields[1]) + " allocated twice");
      Live live;
      const Status status = arena.Allocate(alignment, size, &live.allocation);
      if (!status.ok()) return error(status.message());
      allocations[fields[1]] = live;
      result->offsets.emplace_back(fields[1], live.allocation.offset);
    } else if (fields[0] == "free") {
      if (fields.size() != 2) return error("expected 'free ID'");
      auto it = allocations.find(fields[1]);
      if (it == allocations.end()) return error(Quote(fields[1]) + " freed before allocation");
      if (it->second.freed) return error(Quote(fields[1]) + " freed twice");
      const Status status = arena.Deallocate(it->second.allocation);
      if (!status.ok()) return error(status.message());
      it->second.freed = true;
    } else {
      return error("unknown command " + Quote(fields[0]) + "; expected alloc or free");
    }
  }
  result->high_water_mark = arena.high_water_mark();
  return Status();
}

}  // namespace memory
}  // namespace mace
