// Reads tensor lifetimes from CSV for tools/mace_plan. Three forms, told
// apart by the header line:
//   size,first,last            1D, inclusive op indices
//   width,height,first,last    2D images, inclusive op indices
//   id,lower,upper,size        MiniMalloc's benchmarks, half-open [lower,
//                              upper), so last = upper - 1
#ifndef MACE_CORE_MEMORY_RECORDS_CSV_H_
#define MACE_CORE_MEMORY_RECORDS_CSV_H_

#include <string>
#include <vector>

#include "mace/core/memory/status.h"
#include "mace/core/memory/usage_record.h"

namespace mace {
namespace memory {

enum class RecordsFormat { kSizeFirstLast, kImage, kMiniMalloc };

struct RecordsFile {
  RecordsFormat format = RecordsFormat::kSizeFirstLast;
  std::vector<UsageRecord> records;             // 1D forms
  std::vector<ImageUsageRecord> image_records;  // 2D form
  std::vector<std::string> ids;                 // MiniMalloc ids, else empty
  bool is_image() const { return format == RecordsFormat::kImage; }
};

// `file_name` only labels error messages ("model.csv:7: ...").
Status ParseRecordsCsv(const std::string& text, const std::string& file_name, RecordsFile* out);
Status ReadRecordsCsv(const std::string& path, RecordsFile* out);

// Shared by the CSV and arena-trace readers: the whole file, or an error
// naming it.
Status ReadTextFile(const std::string& path, std::string* text);

// `text` made safe to quote in a one-line error message: at most 40
// characters, anything unprintable shown as '?'.
std::string Quote(const std::string& text);

// Parses a non-negative decimal integer no larger than `max`.
bool ParseUnsigned(const std::string& field, size_t max, size_t* value);

}  // namespace memory
}  // namespace mace

#endif  // MACE_CORE_MEMORY_RECORDS_CSV_H_
