// Opens and reads the files the APIs are given by path (a model graph, a
// weights file, a tool's inputs). A path comes from the app or its user, so
// it may name anything: a FIFO whose open or read would wait forever for a
// writer, a device that never ends (/dev/zero), a directory, a socket, a
// symbolic link loop. Only regular files are read, each read is bounded by
// the file's size, and every refusal is a MaceStatus naming the path.
#ifndef MACE_UTILS_FILE_READ_H_
#define MACE_UTILS_FILE_READ_H_

#include <cstdint>
#include <string>

#include "mace/public/mace.h"

namespace mace {

// The most bytes one read of a whole file or of its head returns (2 GiB - 1,
// the most a serialized graph may have). Larger callers' limits are lowered
// to it.
constexpr int64_t kMaxFileReadBytes = (int64_t{1} << 31) - 1;

// What fstat says of an open file: the file (device and inode), its
// contents' state (size, and modification and status-change times in
// nanoseconds) and its link count.
struct FileIdentity {
  uint64_t device = 0;
  uint64_t inode = 0;
  int64_t size = 0;
  int64_t mtime_ns = 0;
  int64_t ctime_ns = 0;
  uint64_t links = 0;
};

// True when `now` may hold other bytes than `then`: another file, size or
// modification time, or another status-change time with the same link
// count (a write whose writer set the modification time back, as `cp -p`
// does). A status change that came with a link count change is the file
// being renamed over or deleted, which leaves its bytes as they were.
bool ContentsMayDiffer(const FileIdentity& then, const FileIdentity& now);

// A regular file open for reading, closed on destruction. Move-only.
class RegularFile {
 public:
  RegularFile() = default;
  ~RegularFile();
  RegularFile(RegularFile&& other) noexcept;
  RegularFile& operator=(RegularFile&& other) noexcept;
  RegularFile(const RegularFile&) = delete;
  RegularFile& operator=(const RegularFile&) = delete;

  // Opens `path` with O_RDONLY | O_CLOEXEC | O_NONBLOCK (a FIFO then opens
  // at once instead of waiting for a writer) and refuses, before any read,
  // anything fstat does not call a regular file. Symbolic links are
  // followed up to the kernel's limit. `what` ("the model graph", "weights
  // file"; "" for none) comes before the quoted path in every message.
  // MACE_INVALID_ARGS for a missing, unreadable or non-regular file.
  static MaceStatus Open(const std::string& path, const std::string& what, RegularFile* file);

  bool is_open() const { return fd_ >= 0; }
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  // "the model graph '/a/m.pb'", or "'/a/m.pb'" without a `what`.
  const std::string& name() const { return name_; }
  // The file as Open found it; its size is what the reads below expect.
  const FileIdentity& identity() const { return identity_; }
  int64_t size() const { return identity_.size; }

  // Reads `size` bytes at `offset` into `out`; a file that ends sooner
  // (it shrank since Open) is an error naming it.
  MaceStatus ReadAt(int64_t offset, int64_t size, void* out) const;
  // Reads the whole file: MACE_INVALID_ARGS when it holds more than
  // `max_bytes` (at most kMaxFileReadBytes), or when its size changes while
  // it is read.
  MaceStatus ReadAll(int64_t max_bytes, std::string* bytes) const;
  // Reads the first `max_bytes` (at most kMaxFileReadBytes), or the whole
  // file when it is shorter.
  MaceStatus ReadHead(int64_t max_bytes, std::string* bytes) const;
  // One fstat: true when the open file's bytes may no longer be what Open
  // found (it was written, truncated or extended; ContentsMayDiffer), or
  // fstat fails.
  bool Changed() const;

 private:
  void Close();

  int fd_ = -1;
  std::string path_;
  std::string name_;
  FileIdentity identity_;
};

// Opens `path` as RegularFile::Open does and reads all of it (ReadAll).
MaceStatus ReadRegularFile(const std::string& path, const std::string& what, int64_t max_bytes,
                           std::string* bytes);

}  // namespace mace

#endif  // MACE_UTILS_FILE_READ_H_
