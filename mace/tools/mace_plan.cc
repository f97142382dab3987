// mace_plan: plans memory for tensor lifetimes read from a CSV file, or
// replays an allocation trace on the online arena, and prints one JSON
// object on stdout. See docs/design/memory_planning.md.
//
//   mace_plan --strategy=greedy_by_size --mode=offsets [--alignment=N]
//             [--time_limit_ms=N] [--step_limit=N] RECORDS.csv
//   mace_plan --arena_trace=TRACE.txt [--arena_alignment=N]
//
// Any bad input prints one "mace_plan: error: ..." line on stderr and exits
// with code 1.
#include <chrono>
#include <cstdio>
#include <exception>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "mace/core/memory/arena_trace.h"
#include "mace/core/memory/planner.h"
#include "mace/core/memory/records_csv.h"
#include "mace/core/memory/simple_arena.h"
#include "mace/utils/file_read.h"

namespace mace {
namespace memory {

// A day: far beyond any useful search, small enough for every clock type.
constexpr size_t kMaxTimeLimitMs = size_t{86400} * 1000;
constexpr size_t kMaxStepLimit = size_t{1} << 50;
namespace {

constexpr char kUsage[] =
    "usage: mace_plan --strategy=naive|equality|greedy_in_order|greedy_by_breadth|"
    "greedy_by_size|greedy_best|mincostflow|optimal\n"
    "                 --mode=objects|offsets [--alignment=N] [--time_limit_ms=N]\n"
    "                 [--step_limit=N] RECORDS.csv\n"
    "       mace_plan --arena_trace=TRACE.txt [--arena_alignment=N]\n";

struct Flags {
  Strategy strategy = kDefaultStrategy;
  bool objects_mode = false;
  PlanOptions options;
  std::string csv_path;
  std::string trace_path;
  size_t arena_alignment = kDefaultArenaAlignment;
  bool help = false;
};

Status ParseFlags(int argc, char** argv, Flags* flags) {
  bool plan_flag_seen = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      flags->help = true;
      continue;
    }
    if (arg.rfind("--", 0) != 0) {
      if (!flags->csv_path.empty()) return Status::Error("more than one records file given");
      flags->csv_path = arg;
      continue;
    }
    const size_t equals = arg.find('=');
    if (equals == std::string::npos) return Status::Error("flag " + Quote(arg) + " needs =VALUE");
    const std::string name = arg.substr(2, equals - 2);
    const std::string value = arg.substr(equals + 1);
    size_t number = 0;
    if (name == "strategy") {
      if (!ParseStrategy(value, &flags->strategy)) {
        return Status::Error("unknown strategy " + Quote(value));
      }
      plan_flag_seen = true;
    } else if (name == "mode") {
      if (value != "objects" && value != "offsets") {
        return Status::Error("--mode must be objects or offsets, got " + Quote(value));
      }
      flags->objects_mode = value == "objects";
      plan_flag_seen = true;
    } else if (name == "alignment") {
      if (!ParseUnsigned(value, kMaxAlignment, &number) || number == 0) {
        return Status::Error("--alignment must be an integer in [1, " +
                             std::to_string(kMaxAlignment) + "], got " + Quote(value));
      }
      flags->options.alignment = number;
      plan_flag_seen = true;
    } else if (name == "time_limit_ms") {
      if (!ParseUnsigned(value, kMaxTimeLimitMs, &number)) {
        return Status::Error("--time_limit_ms must be a non-negative integer, got " + Quote(value));
      }
      flags->options.time_limit_ms = static_cast<int64_t>(number);
      plan_flag_seen = true;
    } else if (name == "step_limit") {
      if (!ParseUnsigned(value, kMaxStepLimit, &number)) {
        return Status::Error("--step_limit must be a non-negative integer, got " + Quote(value));
      }
      flags->options.step_limit = static_cast<int64_t>(number);
      plan_flag_seen = true;
    } else if (name == "arena_trace") {
      if (value.empty()) return Status::Error("--arena_trace needs a file name");
      flags->trace_path = value;
    } else if (name == "arena_alignment") {
      if (!ParseUnsigned(value, kMaxAlignment, &number) || number == 0 ||
          (number & (number - 1)) != 0) {
        return Status::Error("--arena_alignment must be a power of two, got " + Quote(value));
      }
      flags->arena_alignment = number;
    } else {
      return Status::Error("unknown flag " + Quote("--" + name));
    }
  }
  if (flags->help) return Status();
  if (!flags->trace_path.empty()) {
    if (plan_flag_seen || !flags->csv_path.empty()) {
      return Status::Error("--arena_trace takes no records file and no planning flags");
    }
    return Status();
  }
  if (flags->csv_path.empty()) return Status::Error("no records file given");
  if (flags->objects_mode && flags->strategy == Strategy::kOptimal) {
    return Status::Error("strategy optimal only plans offsets (--mode=offsets)");
  }
  return Status();
}

std::string JsonString(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
      out += escaped;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

template <typename T, typename Write>
void WriteArray(std::ostream& out, const std::vector<T>& values, Write write) {
  out << "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out << ", ";
    write(values[i]);
  }
  out << "]";
}

void WriteSizes(std::ostream& out, const std::vector<size_t>& values) {
  WriteArray(out, values, [&out](size_t value) { out << value; });
}

const char* OptimalJson(const std::optional<bool>& optimal) {
  if (!optimal.has_value()) return "null";
  return *optimal ? "true" : "false";
}

// Plans and writes everything but time_ms, which the caller measures.
Status Plan(const Flags& flags, const RecordsFile& file, std::ostream& out) {
  if (file.is_image()) {
    if (!flags.objects_mode) {
      return Status::Error("2D image records can only be planned as objects (--mode=objects)");
    }
    ImageObjectsPlan plan;
    MACE_MEMORY_RETURN_IF_ERROR(PlanImageObjects(file.image_records, flags.strategy, &plan));
    out << "\"object_ids\": ";
    WriteSizes(out, plan.assignment.object_ids);
    out << ", \"object_sizes\": ";
    WriteArray(out, plan.assignment.object_sizes, [&out](const ImageSize& size) {
      out << "[" << size.width << ", " << size.height << "]";
    });
    out << ", \"total\": " << plan.total << ", \"lower_bound\": " << plan.lower_bound
        << ", \"optimal\": " << OptimalJson(plan.optimal);
    return Status();
  }
  if (flags.objects_mode) {
    ObjectsPlan plan;
    MACE_MEMORY_RETURN_IF_ERROR(PlanObjects(file.records, flags.strategy, &plan));
    out << "\"object_ids\": ";
    WriteSizes(out, plan.assignment.object_ids);
    out << ", \"object_sizes\": ";
    WriteSizes(out, plan.assignment.object_sizes);
    // The objects stacked in one arena, so the plan can be drawn.
    out << ", \"offsets\": ";
    WriteSizes(out, StackObjects(plan.assignment, flags.options.alignment).offsets);
    out << ", \"total\": " << plan.total << ", \"lower_bound\": " << plan.lower_bound
        << ", \"optimal\": " << OptimalJson(plan.optimal);
    return Status();
  }
  OffsetsPlan plan;
  MACE_MEMORY_RETURN_IF_ERROR(PlanOffsets(file.records, flags.strategy, flags.options, &plan));
  out << "\"offsets\": ";
  WriteSizes(out, plan.assignment.offsets);
  out << ", \"total\": " << plan.assignment.total_size << ", \"lower_bound\": " << plan.lower_bound
      << ", \"optimal\": " << OptimalJson(plan.optimal);
  return Status();
}

Status RunPlan(const Flags& flags) {
  RecordsFile file;
  MACE_MEMORY_RETURN_IF_ERROR(ReadRecordsCsv(flags.csv_path, &file));
  std::ostringstream body;
  const auto start = std::chrono::steady_clock::now();
  MACE_MEMORY_RETURN_IF_ERROR(Plan(flags, file, body));
  const std::chrono::duration<double, std::milli> elapsed =
      std::chrono::steady_clock::now() - start;
  char time_ms[32];
  std::snprintf(time_ms, sizeof(time_ms), "%.3f", elapsed.count());
  std::cout << "{\"strategy\": " << JsonString(StrategyName(flags.strategy))
            << ", \"mode\": " << JsonString(flags.objects_mode ? "objects" : "offsets") << ", "
            << body.str() << ", \"time_ms\": " << time_ms << "}" << std::endl;
  return Status();
}

Status RunTrace(const Flags& flags) {
  std::string text;
  MACE_MEMORY_RETURN_IF_ERROR(ReadTextFile(flags.trace_path, &text));
  ArenaTraceResult result;
  MACE_MEMORY_RETURN_IF_ERROR(
      RunArenaTrace(text, flags.trace_path, flags.arena_alignment, &result));
  std::cout << "{\"offsets\": {";
  for (size_t i = 0; i < result.offsets.size(); ++i) {
    std::cout << (i > 0 ? ", " : "") << JsonString(result.offsets[i].first) << ": "
              << result.offsets[i].second;
  }
  std::cout << "}, \"high_water_mark\": " << result.high_water_mark << "}" << std::endl;
  return Status();
}

// A stream read of a FIFO would wait for a writer forever; only regular
// files are read.
Status CheckInputFile(const std::string& path) {
  RegularFile file;
  const MaceStatus opened = RegularFile::Open(path, "", &file);
  return opened.ok() ? Status() : Status::Error(opened.information());
}

int Main(int argc, char** argv) {
  Flags flags;
  Status status = ParseFlags(argc, argv, &flags);
  if (status.ok() && flags.help) {
    std::cout << kUsage;
    return 0;
  }
  const std::string& input = flags.trace_path.empty() ? flags.csv_path : flags.trace_path;
  if (status.ok()) status = CheckInputFile(input);
  if (status.ok()) status = flags.trace_path.empty() ? RunPlan(flags) : RunTrace(flags);
  if (status.ok()) return 0;
  std::cerr << "mace_plan: error: " << status.message() << " (see --help)\n";
  return 1;
}

}  // namespace
}  // namespace memory
}  // namespace mace

int main(int argc, char** argv) {
  try {
    return mace::memory::Main(argc, argv);
  } catch (const std::exception& e) {
    // Only an allocation failure on absurd input can get here.
    std::cerr << "mace_plan: error: " << e.what() << "\n";
    return 1;
  }
}
