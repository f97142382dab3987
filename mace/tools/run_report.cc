#include "mace/tools/run_report.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <numeric>
#include <utility>

namespace mace {
namespace tools {
namespace {

const std::vector<std::pair<std::string, MemoryStrategy>>& StrategyNames() {
  static const std::vector<std::pair<std::string, MemoryStrategy>> kNames = {
      {"naive", MemoryStrategy::NAIVE},
      {"equality", MemoryStrategy::EQUALITY},
      {"greedy_in_order", MemoryStrategy::GREEDY_IN_ORDER},
      {"greedy_by_breadth", MemoryStrategy::GREEDY_BY_BREADTH},
      {"greedy_by_size", MemoryStrategy::GREEDY_BY_SIZE},
      {"greedy_best", MemoryStrategy::GREEDY_BEST},
      {"mincostflow", MemoryStrategy::MINCOSTFLOW},
      {"optimal", MemoryStrategy::OPTIMAL},
  };
  return kNames;
}

double MiB(int64_t bytes) { return bytes / 1048576.0; }

}  // namespace

void LatencyStats::AddOpStats(const RunMetadata& metadata) {
  if (ops.empty()) {
    for (const OperatorStats& op : metadata.op_stats) {
      std::string shapes;
      for (const auto& shape : op.output_shape) shapes += ShapeText(shape);
      ops.push_back({op.operator_name, op.type, shapes, op.macs, {}});
    }
  }
  for (size_t i = 0; i < ops.size() && i < metadata.op_stats.size(); ++i) {
    const OperatorStats& op = metadata.op_stats[i];
    ops[i].ms.push_back((op.end_micros - op.start_micros) / 1000.0);
    if (op.device_micros >= 0) ops[i].device_ms.push_back(op.device_micros / 1000.0);
  }
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    text += (i ? "," : "") + std::to_string(shape[i]);
  }
  return text + "]";
}

bool ParseMemoryStrategy(const std::string& name, MemoryStrategy* strategy) {
  // The API spells the strategies GREEDY_BY_SIZE, the tools greedy_by_size;
  // both work, as in the planner's own ParseStrategy.
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const auto& [text, value] : StrategyNames()) {
    if (text == lower) {
      *strategy = value;
      return true;
    }
  }
  return false;
}

std::string MemoryStrategyName(MemoryStrategy strategy) {
  for (const auto& [text, value] : StrategyNames()) {
    if (value == strategy) return text;
  }
  return "unknown";
}

std::vector<MemoryStrategy> AllMemoryStrategies() {
  std::vector<MemoryStrategy> all;
  for (const auto& entry : StrategyNames()) all.push_back(entry.second);
  return all;
}

std::vector<float> ValuesAsFloat(const MaceTensor& tensor) {
  const int64_t count = tensor.size();
  std::vector<float> values(count > 0 ? count : 0);
  const void* raw = tensor.raw_data().get();
  if (raw == nullptr) return {};
  for (int64_t i = 0; i < count; ++i) {
    switch (tensor.data_type()) {
      case TensorDataType::FLOAT32: values[i] = static_cast<const float*>(raw)[i]; break;
      case TensorDataType::INT32:
        values[i] = static_cast<float>(static_cast<const int32_t*>(raw)[i]);
        break;
      case TensorDataType::INT64:
        values[i] = static_cast<float>(static_cast<const int64_t*>(raw)[i]);
        break;
      case TensorDataType::UINT8:
      case TensorDataType::BOOL: values[i] = static_cast<const uint8_t*>(raw)[i]; break;
    }
  }
  return values;
}

void PrintOutputs(const std::map<std::string, MaceTensor>& outputs) {
  for (const auto& [name, tensor] : outputs) {
    const std::vector<float> values = ValuesAsFloat(tensor);
    const float* data = values.data();
    const int64_t count = static_cast<int64_t>(values.size());
    std::printf("output %s %s:", name.c_str(), ShapeText(tensor.shape()).c_str());
    for (int64_t i = 0; i < std::min<int64_t>(count, 8); ++i) std::printf(" %.6g", data[i]);
    std::printf(count > 8 ? " ...\n" : "\n");
    if (count > 1) {
      std::vector<int64_t> order(count);
      std::iota(order.begin(), order.end(), 0);
      const int64_t top = std::min<int64_t>(5, count);
      std::partial_sort(order.begin(), order.begin() + top, order.end(),
                        [data](int64_t a, int64_t b) { return data[a] > data[b]; });
      std::printf("  top-%lld:", static_cast<long long>(top));
      for (int64_t i = 0; i < top; ++i) {
        std::printf(" %lld (%.4g)", static_cast<long long>(order[i]), data[order[i]]);
      }
      std::printf("\n");
    }
  }
}

void PrintLatency(const LatencyStats& stats) {
  std::printf("init: %.3f ms (median of %zu)\n", Median(stats.init_ms), stats.init_ms.size());
  if (!stats.init_cpu_ms.empty()) {
    std::printf("init cpu: %.3f ms (process CPU time, all threads)\n", Median(stats.init_cpu_ms));
  }
  if (!stats.init_sys_ms.empty()) {
    std::printf("init kernel: %.3f ms system CPU time, %.0f page faults\n",
                Median(stats.init_sys_ms), Median(stats.init_faults));
  }
  std::printf("first run: %.3f ms\n", Median(stats.first_run_ms));
  if (stats.run_ms.empty()) return;
  std::printf("runs: %zu  min %.3f ms  median %.3f ms  max %.3f ms\n", stats.run_ms.size(),
              *std::min_element(stats.run_ms.begin(), stats.run_ms.end()), Median(stats.run_ms),
              *std::max_element(stats.run_ms.begin(), stats.run_ms.end()));
}

void PrintOpTable(const LatencyStats& stats) {
  double total = 0;
  bool device = false;
  for (const OpTiming& op : stats.ops) {
    total += Median(op.ms);
    device = device || !op.device_ms.empty();
  }
  // Runtimes that time their kernels on the device (the GPU, with
  // profiling events) add a column; host time includes waiting for them.
  std::printf("\n%4s  %-22s %-32s %10s %7s %12s %s output shape\n", "#", "type", "name",
              "median ms", "share", "MACs", device ? " device ms " : "");
  double device_total = 0;
  for (size_t i = 0; i < stats.ops.size(); ++i) {
    const OpTiming& op = stats.ops[i];
    const double ms = Median(op.ms);
    char device_column[32] = "";
    if (device && op.device_ms.empty()) {
      std::snprintf(device_column, sizeof(device_column), "%10s ", "-");
    } else if (device) {
      device_total += Median(op.device_ms);
      std::snprintf(device_column, sizeof(device_column), "%10.4f ", Median(op.device_ms));
    }
    std::printf("%4zu  %-22s %-32s %10.4f %6.2f%% %12lld %s %s\n", i, op.type.c_str(),
                op.name.substr(0, 32).c_str(), ms, total > 0 ? 100 * ms / total : 0.0,
                static_cast<long long>(op.macs), device_column, op.output_shape.c_str());
  }
  std::printf("sum of op medians: %.3f ms\n", total);
  if (device) std::printf("sum of device medians: %.3f ms\n", device_total);
}

void PrintMemoryReport(const MemoryReport& report, const std::vector<std::string>& shown) {
  const double gap =
      report.lower_bound_bytes > 0
          ? 100.0 * (report.arena_bytes - report.lower_bound_bytes) / report.lower_bound_bytes
          : 0.0;
  std::printf("\nmemory plan (%s, planned in %.3f ms)\n", report.strategy.c_str(),
              report.plan_micros / 1000.0);
  std::printf("  CPU_BUFFER arena : %12lld bytes (%.3f MiB)\n",
              static_cast<long long>(report.arena_bytes), MiB(report.arena_bytes));
  std::printf("  persistent arena : %12lld bytes (%.3f MiB, packed weights)\n",
              static_cast<long long>(report.persistent_bytes), MiB(report.persistent_bytes));
  std::printf("  kernel scratch   : %12lld bytes\n", static_cast<long long>(report.scratch_bytes));
  std::printf("  weights          : %12lld bytes (%.3f MiB)\n",
              static_cast<long long>(report.weights_bytes), MiB(report.weights_bytes));
  std::printf("  kept by ops      : %12lld bytes (%.3f MiB, packed filters, tables)\n",
              static_cast<long long>(report.op_bytes), MiB(report.op_bytes));
  std::printf("  input copies     : %12lld bytes\n", static_cast<long long>(report.input_copy_bytes));
  const int64_t total = report.arena_bytes + report.persistent_bytes + report.scratch_bytes +
                        report.weights_bytes + report.op_bytes + report.input_copy_bytes;
  std::printf("  CPU total        : %12lld bytes (%.3f MiB)\n", static_cast<long long>(total),
              MiB(total));
  std::printf("  app's inputs     : %12lld bytes (read in place, not in the total)\n",
              static_cast<long long>(report.app_input_bytes));
  std::printf("  naive sum        : %12lld bytes\n", static_cast<long long>(report.naive_bytes));
  std::printf("  lower bound      : %12lld bytes (gap %.2f%%)\n",
              static_cast<long long>(report.lower_bound_bytes), gap);
  // One plan per memory type, each by the runtime that owns it.
  std::printf("  %-11s %-20s %-16s %14s %14s %14s %7s\n", "memory type", "runtime", "strategy",
              "planned bytes", "naive bytes", "lower bound", "blocks");
  std::vector<MemoryTypeReport> rows = report.memory_types;
  for (const std::string& name : shown) {
    const bool planned = std::any_of(rows.begin(), rows.end(), [&](const MemoryTypeReport& r) {
      return r.memory_type == name;
    });
    if (planned) continue;
    MemoryTypeReport empty;
    empty.memory_type = name;
    empty.runtime = "-";
    empty.strategy = "(no tensors)";
    rows.push_back(empty);
  }
  for (const MemoryTypeReport& type : rows) {
    std::printf("  %-11s %-20s %-16s %14lld %14lld %14lld %7d\n", type.memory_type.c_str(),
                type.runtime.substr(0, 20).c_str(), type.strategy.substr(0, 16).c_str(),
                static_cast<long long>(type.bytes), static_cast<long long>(type.naive_bytes),
                static_cast<long long>(type.lower_bound_bytes), type.blocks);
  }
  std::printf("  %-32s %-11s %12s %12s %9s  %s\n", "tensor", "memory", "offset/image", "bytes",
              "lifetime", "alias of");
  for (const TensorPlacement& t : report.tensors) {
    // Image tensors have no offset: they show which planned image holds them.
    const long long where = t.image >= 0 ? t.image : t.offset;
    std::printf("  %-32s %-11s %12lld %12lld %4d..%-4d %s\n", t.name.substr(0, 32).c_str(),
                t.memory_type.c_str(), where, static_cast<long long>(t.size), t.first_op,
                t.last_op, t.alias_of.c_str());
  }
}

void PrintStrategyTable(const std::vector<MemoryReport>& reports) {
  std::printf("\n%-40s %14s %14s %9s %14s %10s\n", "strategy", "arena bytes", "lower bound", "gap",
              "naive bytes", "plan ms");
  for (const MemoryReport& report : reports) {
    const double gap =
        report.lower_bound_bytes > 0
            ? 100.0 * (report.arena_bytes - report.lower_bound_bytes) / report.lower_bound_bytes
            : 0.0;
    std::printf("%-40s %14lld %14lld %8.2f%% %14lld %10.3f\n", report.strategy.c_str(),
                static_cast<long long>(report.arena_bytes),
                static_cast<long long>(report.lower_bound_bytes), gap,
                static_cast<long long>(report.naive_bytes), report.plan_micros / 1000.0);
  }
}

namespace {

// A CSV field: quoted when it holds a comma, a quote or a line break.
std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string JsonText(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", static_cast<unsigned char>(c));
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace

bool WriteMemoryPlan(const MemoryReport& report, const std::string& prefix, std::string* error) {
  std::string csv = "name,size,first,last\n";
  std::string offsets;
  for (const TensorPlacement& t : report.tensors) {
    if (t.memory_type != "CPU_BUFFER" || t.offset < 0 || !t.alias_of.empty()) continue;
    csv += CsvField(t.name) + "," + std::to_string(t.size) + "," + std::to_string(t.first_op) +
           "," + std::to_string(t.last_op) + "\n";
    offsets += (offsets.empty() ? "" : ", ") + std::to_string(t.offset);
  }
  const std::string json = "{\"strategy\": " + JsonText(report.strategy) +
                           ", \"mode\": \"offsets\", \"offsets\": [" + offsets +
                           "], \"total\": " + std::to_string(report.arena_bytes) +
                           ", \"lower_bound\": " + std::to_string(report.lower_bound_bytes) +
                           "}\n";
  const std::pair<std::string, const std::string*> files[] = {{prefix + ".csv", &csv},
                                                               {prefix + ".json", &json}};
  for (const auto& file : files) {
    std::FILE* out = std::fopen(file.first.c_str(), "w");
    bool ok = out != nullptr &&
              std::fwrite(file.second->data(), 1, file.second->size(), out) ==
                  file.second->size();
    if (out != nullptr) ok = std::fclose(out) == 0 && ok;
    if (!ok) {
      *error = "cannot write " + file.first;
      return false;
    }
  }
  return true;
}

}  // namespace tools
}  // namespace mace
