#include "mace/utils/file_read.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

#include "mace/utils/status.h"

namespace mace {
namespace {

MaceStatus Invalid(const std::string& message) {
  return MaceStatus(MaceStatus::MACE_INVALID_ARGS, message);
}

int64_t Nanoseconds(const struct timespec& time) {
  return static_cast<int64_t>(time.tv_sec) * 1000000000 + time.tv_nsec;
}

FileIdentity IdentityOf(const struct stat& info) {
  FileIdentity identity;
  identity.device = static_cast<uint64_t>(info.st_dev);
  identity.inode = static_cast<uint64_t>(info.st_ino);
  identity.size = static_cast<int64_t>(info.st_size);
  identity.mtime_ns = Nanoseconds(info.st_mtim);
  identity.ctime_ns = Nanoseconds(info.st_ctim);
  identity.links = static_cast<uint64_t>(info.st_nlink);
  return identity;
}

// What a non-regular file is, for the message that refuses it.
const char* KindOf(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "a file of another kind";
}

// Why open() failed, in the words an app developer needs: the kernel's
// ELOOP and a dangling link's ENOENT say little on their own.
std::string OpenError(const std::string& path, int error) {
  if (error == ELOOP) {
    return "too many levels of symbolic links (a symbolic link loop, or a chain longer than the "
           "kernel follows)";
  }
  struct stat link;
  if (error == ENOENT && lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
    char target[4096];
    const ssize_t length = readlink(path.c_str(), target, sizeof(target) - 1);
    const std::string to = length > 0 ? StrCat(" '", std::string(target, length), "'") : "";
    return StrCat("a symbolic link to", to, ", which does not exist");
  }
  return std::strerror(error);
}

}  // namespace

bool ContentsMayDiffer(const FileIdentity& then, const FileIdentity& now) {
  if (then.device != now.device || then.inode != now.inode || then.size != now.size ||
      then.mtime_ns != now.mtime_ns) {
    return true;
  }
  return then.ctime_ns != now.ctime_ns && then.links == now.links;
}

RegularFile::~RegularFile() { Close(); }

RegularFile::RegularFile(RegularFile&& other) noexcept { *this = std::move(other); }

RegularFile& RegularFile::operator=(RegularFile&& other) noexcept {
  if (this != &other) {
    Close();
    fd_ = other.fd_;
    other.fd_ = -1;
    path_ = std::move(other.path_);
    name_ = std::move(other.name_);
    identity_ = other.identity_;
  }
  return *this;
}

void RegularFile::Close() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

MaceStatus RegularFile::Open(const std::string& path, const std::string& what, RegularFile* file) {
  MACE_CHECK_ARG(file != nullptr, "RegularFile::Open needs a file");
  file->Close();
  const std::string name = StrCat(what, what.empty() ? "" : " ", "'", path, "'");
  int fd;
  do {
    fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    const int error = errno;
    // A socket cannot be opened at all (ENXIO); say what it is instead.
    struct stat info;
    MACE_CHECK_ARG(error != ENXIO || stat(path.c_str(), &info) != 0 || !S_ISSOCK(info.st_mode),
                   name, " is a socket, not a regular file");
    return Invalid(StrCat("cannot open ", name, ": ", OpenError(path, error)));
  }
  RegularFile opened;
  opened.fd_ = fd;
  opened.path_ = path;
  opened.name_ = name;
  struct stat info;
  if (fstat(fd, &info) != 0) {
    return Invalid(StrCat("cannot stat ", name, ": ", std::strerror(errno)));
  }
  MACE_CHECK_ARG(!S_ISDIR(info.st_mode), name, " is a directory, not a file");
  MACE_CHECK_ARG(S_ISREG(info.st_mode), name, " is ", KindOf(info.st_mode), ", not a regular file");
  opened.identity_ = IdentityOf(info);
  *file = std::move(opened);
  return MaceStatus();
}

MaceStatus RegularFile::ReadAt(int64_t offset, int64_t size, void* out) const {
  MACE_CHECK_ARG(is_open(), "reading a file that is not open");
  auto* bytes = static_cast<unsigned char*>(out);
  int64_t done = 0;
  while (done < size) {
    const size_t chunk = static_cast<size_t>(std::min<int64_t>(size - done, int64_t{1} << 30));
    const ssize_t got = pread(fd_, bytes + done, chunk, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      return Invalid(StrCat("cannot read ", name_, ": ", std::strerror(errno)));
    }
    MACE_CHECK_ARG(got > 0, name_, " ended after ", offset + done, " of the ", offset + size,
                   " bytes it had when it was opened: it changed while it was read");
    done += got;
  }
  return MaceStatus();
}

MaceStatus RegularFile::ReadAll(int64_t max_bytes, std::string* bytes) const {
  MACE_CHECK_ARG(bytes != nullptr, "ReadAll needs a string");
  const int64_t limit = std::min(max_bytes, kMaxFileReadBytes);
  MACE_CHECK_ARG(size() <= limit, name_, " holds ", size(), " bytes, more than the ", limit,
                 " it may have");
  try {
    bytes->resize(static_cast<size_t>(size()));
  } catch (const std::bad_alloc&) {
    return MaceStatus(MaceStatus::MACE_OUT_OF_RESOURCES,
                      StrCat("cannot allocate ", size(), " bytes to read ", name_));
  }
  MACE_RETURN_IF_ERROR(ReadAt(0, size(), &(*bytes)[0]));
  // One byte past the end: a file that grew since Open was not read whole.
  char extra;
  ssize_t got;
  do {
    got = pread(fd_, &extra, 1, static_cast<off_t>(size()));
  } while (got < 0 && errno == EINTR);
  MACE_CHECK_ARG(got == 0, name_, " grew past the ", size(),
                 " bytes it had when it was opened: it changed while it was read");
  return MaceStatus();
}

MaceStatus RegularFile::ReadHead(int64_t max_bytes, std::string* bytes) const {
  MACE_CHECK_ARG(bytes != nullptr, "ReadHead needs a string");
  const int64_t count = std::max<int64_t>(0, std::min({max_bytes, kMaxFileReadBytes, size()}));
  bytes->resize(static_cast<size_t>(count));
  return ReadAt(0, count, &(*bytes)[0]);
}

bool RegularFile::Changed() const {
  struct stat info;
  return !is_open() || fstat(fd_, &info) != 0 || ContentsMayDiffer(identity_, IdentityOf(info));
}

MaceStatus ReadRegularFile(const std::string& path, const std::string& what, int64_t max_bytes,
                           std::string* bytes) {
  RegularFile file;
  MACE_RETURN_IF_ERROR(RegularFile::Open(path, what, &file));
  return file.ReadAll(max_bytes, bytes);
}

}  // namespace mace
