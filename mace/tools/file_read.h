// Whole-file reads for mace_run's inputs. Every path comes from a flag, so a
// missing, unreadable, non-regular or oversized file must become one message
// naming the path, never a stream exception.
#ifndef MACE_TOOLS_FILE_READ_H_
#define MACE_TOOLS_FILE_READ_H_

#include <cstdint>
#include <string>

namespace mace {
namespace tools {

// The size of the regular file at `path` after opening it for reading. Fails
// with `error` set when it is missing, unreadable, a directory or any other
// non-regular file.
bool RegularFileSize(const std::string& path, int64_t* size, std::string* error);

// Reads all of `path`. Fails as RegularFileSize does, and also when the file
// holds more than `max_bytes` or its size changes while it is read.
bool ReadFileBytes(const std::string& path, int64_t max_bytes, std::string* bytes,
                   std::string* error);

// Reads the first `max_bytes` of `path`, or all of it when it is shorter, so
// that a header can be checked before a large file is read.
bool ReadFileHead(const std::string& path, int64_t max_bytes, std::string* bytes,
                  std::string* error);

}  // namespace tools
}  // namespace mace

#endif  // MACE_TOOLS_FILE_READ_H_
