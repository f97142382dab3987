#include "mace/tools/file_read.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

namespace mace {
namespace tools {
namespace {

// Closes the descriptor on every return path.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

std::string Quoted(const std::string& path) { return "'" + path + "'"; }

bool OpenRegular(const std::string& path, FileDescriptor* file, int64_t* size, std::string* error) {
  if (file->get() < 0) {
    *error = "cannot open " + Quoted(path) + ": " + std::strerror(errno);
    return false;
  }
  struct stat info;
  if (fstat(file->get(), &info) != 0) {
    *error = "cannot stat " + Quoted(path) + ": " + std::strerror(errno);
    return false;
  }
  if (S_ISDIR(info.st_mode)) {
    *error = Quoted(path) + " is a directory, not a file";
    return false;
  }
  if (!S_ISREG(info.st_mode)) {
    *error = Quoted(path) + " is not a regular file";
    return false;
  }
  *size = info.st_size;
  return true;
}

// Sizes `bytes` for `size` bytes of `path`; a file may be larger than the
// memory this process is allowed.
bool Allocate(const std::string& path, int64_t size, std::string* bytes, std::string* error) {
  try {
    bytes->resize(static_cast<size_t>(size));
  } catch (const std::bad_alloc&) {
    *error = "cannot allocate " + std::to_string(size) + " bytes to read " + Quoted(path);
    return false;
  }
  return true;
}

// Fills all of `bytes` from `fd`; a short file means it shrank after fstat.
bool ReadFully(const std::string& path, int fd, std::string* bytes, std::string* error) {
  size_t done = 0;
  while (done < bytes->size()) {
    const ssize_t got = read(fd, &(*bytes)[done], bytes->size() - done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      *error = "cannot read " + Quoted(path) + ": " + std::strerror(errno);
      return false;
    }
    if (got == 0) {
      *error = Quoted(path) + " changed size while it was read";
      return false;
    }
    done += static_cast<size_t>(got);
  }
  return true;
}

}  // namespace

bool RegularFileSize(const std::string& path, int64_t* size, std::string* error) {
  // O_NONBLOCK: opening a FIFO for reading must not wait for a writer.
  FileDescriptor file(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  return OpenRegular(path, &file, size, error);
}

bool ReadFileBytes(const std::string& path, int64_t max_bytes, std::string* bytes,
                   std::string* error) {
  FileDescriptor file(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  int64_t size = 0;
  if (!OpenRegular(path, &file, &size, error)) return false;
  if (size > max_bytes) {
    *error = Quoted(path) + " holds " + std::to_string(size) + " bytes, more than the " +
             std::to_string(max_bytes) + " it may have";
    return false;
  }
  if (!Allocate(path, size, bytes, error) || !ReadFully(path, file.get(), bytes, error)) {
    return false;
  }
  char extra;
  if (read(file.get(), &extra, 1) != 0) {
    *error = Quoted(path) + " changed size while it was read";
    return false;
  }
  return true;
}

bool ReadFileHead(const std::string& path, int64_t max_bytes, std::string* bytes,
                  std::string* error) {
  FileDescriptor file(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  int64_t size = 0;
  if (!OpenRegular(path, &file, &size, error)) return false;
  return Allocate(path, std::min(size, max_bytes), bytes, error) &&
         ReadFully(path, file.get(), bytes, error);
}

}  // namespace tools
}  // namespace mace
