// Every kind of path an app may hand the APIs: each non-regular file is
// refused at open, before a read could block or run without end, and each
// message names the path. SetUp arms alarm(): a regression that blocks (a
// FIFO opened without O_NONBLOCK) kills the test instead of hanging it.
#include "mace/utils/file_read.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace mace {
namespace {

class FileReadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    alarm(60);
    dir_ = ::testing::TempDir() + "/file_read_test_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    mkdir(dir_.c_str(), 0700);
  }
  void TearDown() override { alarm(0); }

  std::string Write(const std::string& name, const std::string& bytes) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    return path;
  }

  static void ExpectError(const MaceStatus& status, const std::string& message) {
    EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << status.information();
    EXPECT_EQ(status.information(), message);
  }

  std::string dir_;
};

TEST_F(FileReadTest, ReadsARegularFileWholeOrItsHead) {
  const std::string path = Write("ten", "0123456789");
  std::string bytes;
  ASSERT_TRUE(ReadRegularFile(path, "the model graph", 10, &bytes).ok());
  EXPECT_EQ(bytes, "0123456789");
  RegularFile file;
  ASSERT_TRUE(RegularFile::Open(path, "", &file).ok());
  EXPECT_EQ(file.size(), 10);
  EXPECT_EQ(file.name(), "'" + path + "'");
  ASSERT_TRUE(file.ReadHead(4, &bytes).ok());
  EXPECT_EQ(bytes, "0123");
  ASSERT_TRUE(file.ReadHead(100, &bytes).ok());
  EXPECT_EQ(bytes, "0123456789");
  ExpectError(ReadRegularFile(path, "the model graph", 9, &bytes),
              "the model graph '" + path + "' holds 10 bytes, more than the 9 it may have");
  const std::string empty = Write("empty", "");
  ASSERT_TRUE(ReadRegularFile(empty, "", 10, &bytes).ok());
  EXPECT_EQ(bytes, "");
}

TEST_F(FileReadTest, RefusesAFifoWithoutWaitingForAWriter) {
  const std::string fifo = dir_ + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string bytes;
  ExpectError(ReadRegularFile(fifo, "the model graph", 1 << 20, &bytes),
              "the model graph '" + fifo + "' is a FIFO, not a regular file");
}

TEST_F(FileReadTest, RefusesDevicesThatNeverEnd) {
  std::string bytes;
  ExpectError(ReadRegularFile("/dev/zero", "", 1 << 20, &bytes),
              "'/dev/zero' is a character device, not a regular file");
  ExpectError(ReadRegularFile("/dev/null", "weights file", 1 << 20, &bytes),
              "weights file '/dev/null' is a character device, not a regular file");
  EXPECT_TRUE(bytes.empty());
}

TEST_F(FileReadTest, RefusesADirectory) {
  std::string bytes;
  ExpectError(ReadRegularFile(dir_, "", 1 << 20, &bytes),
              "'" + dir_ + "' is a directory, not a file");
}

TEST_F(FileReadTest, RefusesASocket) {
  // A socket's path must fit sun_path (108 bytes); the test directory may not.
  std::string path = dir_ + "/socket";
  sockaddr_un address{};
  if (path.size() >= sizeof(address.sun_path)) {
    path = "/tmp/mace_file_read_test_" + std::to_string(getpid());
  }
  std::remove(path.c_str());
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  address.sun_family = AF_UNIX;
  std::snprintf(address.sun_path, sizeof(address.sun_path), "%s", path.c_str());
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  std::string bytes;
  ExpectError(ReadRegularFile(path, "", 1 << 20, &bytes),
              "'" + path + "' is a socket, not a regular file");
  close(fd);
  std::remove(path.c_str());
}

TEST_F(FileReadTest, FollowsSymbolicLinksAndNamesLoopsAndDanglingOnes) {
  const std::string target = Write("target", "abc");
  const std::string link = dir_ + "/link";
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  std::string bytes;
  ASSERT_TRUE(ReadRegularFile(link, "", 10, &bytes).ok());
  EXPECT_EQ(bytes, "abc");

  const std::string a = dir_ + "/a", b = dir_ + "/b";
  ASSERT_EQ(symlink(b.c_str(), a.c_str()), 0);
  ASSERT_EQ(symlink(a.c_str(), b.c_str()), 0);
  ExpectError(ReadRegularFile(a, "the model graph", 10, &bytes),
              "cannot open the model graph '" + a +
                  "': too many levels of symbolic links (a symbolic link loop, or a chain "
                  "longer than the kernel follows)");

  const std::string dangling = dir_ + "/dangling";
  const std::string missing = dir_ + "/missing";
  ASSERT_EQ(symlink(missing.c_str(), dangling.c_str()), 0);
  ExpectError(
      ReadRegularFile(dangling, "", 10, &bytes),
      "cannot open '" + dangling + "': a symbolic link to '" + missing + "', which does not exist");
  ExpectError(ReadRegularFile(missing, "", 10, &bytes),
              "cannot open '" + missing + "': No such file or directory");
}

TEST_F(FileReadTest, CapsEveryReadWhateverTheCallerAllows) {
  // A sparse file one byte past the cap: refused from its size, unread.
  const std::string path = Write("large", "");
  ASSERT_EQ(truncate(path.c_str(), kMaxFileReadBytes + 1), 0);
  std::string bytes;
  ExpectError(ReadRegularFile(path, "", INT64_MAX, &bytes),
              "'" + path + "' holds 2147483648 bytes, more than the 2147483647 it may have");
  EXPECT_TRUE(bytes.empty());
  std::remove(path.c_str());
}

TEST_F(FileReadTest, ReportsAFileThatChangesWhileOpen) {
  const std::string path = Write("changing", "0123456789");
  // Set the file's times in the past, so that a write now changes them
  // whatever the granularity of the file system's clock.
  const struct timespec past[2] = {{1000000000, 0}, {1000000000, 0}};
  ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), past, 0), 0);
  RegularFile file;
  ASSERT_TRUE(RegularFile::Open(path, "", &file).ok());
  EXPECT_FALSE(file.Changed());

  // Same size, other bytes.
  {
    std::fstream rewrite(path, std::ios::binary | std::ios::in | std::ios::out);
    rewrite << "abcdefghij";
  }
  EXPECT_TRUE(file.Changed());

  // Rewritten and its modification time set back, as `cp -p` does: the
  // status-change time still moves.
  RegularFile reset;
  ASSERT_TRUE(RegularFile::Open(path, "", &reset).ok());
  {
    std::fstream rewrite(path, std::ios::binary | std::ios::in | std::ios::out);
    rewrite << "ABCDEFGHIJ";
  }
  const struct timespec times[2] = {
      {0, UTIME_OMIT},
      {reset.identity().mtime_ns / 1000000000, reset.identity().mtime_ns % 1000000000}};
  ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
  EXPECT_TRUE(reset.Changed());

  // Grown since Open: ReadAll stops rather than return part of it.
  RegularFile grown;
  ASSERT_TRUE(RegularFile::Open(path, "", &grown).ok());
  std::ofstream(path, std::ios::binary | std::ios::app) << "more";
  std::string bytes;
  ExpectError(grown.ReadAll(100, &bytes), "'" + path +
                                              "' grew past the 10 bytes it had when it was "
                                              "opened: it changed while it was read");
  EXPECT_TRUE(grown.Changed());

  // Shrunk since Open: a short read is an error, not fewer bytes.
  RegularFile shrunk;
  ASSERT_TRUE(RegularFile::Open(path, "", &shrunk).ok());
  ASSERT_EQ(truncate(path.c_str(), 5), 0);
  ExpectError(shrunk.ReadAll(100, &bytes), "'" + path +
                                               "' ended after 5 of the 14 bytes it had when it "
                                               "was opened: it changed while it was read");
  EXPECT_TRUE(shrunk.Changed());
}

TEST_F(FileReadTest, AFileRenamedOverOrDeletedKeepsItsBytes) {
  const std::string path = Write("kept", "0123456789");
  const struct timespec past[2] = {{1000000000, 0}, {1000000000, 0}};
  ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), past, 0), 0);
  RegularFile file;
  ASSERT_TRUE(RegularFile::Open(path, "", &file).ok());
  const std::string replacement = Write("replacement", "abcdefghij");
  ASSERT_EQ(std::rename(replacement.c_str(), path.c_str()), 0);
  EXPECT_FALSE(file.Changed());
  RegularFile second;
  ASSERT_TRUE(RegularFile::Open(path, "", &second).ok());
  ASSERT_EQ(std::remove(path.c_str()), 0);
  EXPECT_FALSE(second.Changed());
  std::string bytes;
  ASSERT_TRUE(file.ReadAll(10, &bytes).ok());
  EXPECT_EQ(bytes, "0123456789");
}

TEST(ContentsMayDifferTest, StatusChangesCountUnlessTheLinkCountMoved) {
  FileIdentity then;
  then.device = 1, then.inode = 2, then.size = 3, then.mtime_ns = 4, then.ctime_ns = 5;
  then.links = 1;
  FileIdentity now = then;
  EXPECT_FALSE(ContentsMayDiffer(then, now));
  now.ctime_ns = 6;
  EXPECT_TRUE(ContentsMayDiffer(then, now));
  now.links = 0;
  EXPECT_FALSE(ContentsMayDiffer(then, now));
  now.mtime_ns = 7;
  EXPECT_TRUE(ContentsMayDiffer(then, now));
  now = then, now.size = 4;
  EXPECT_TRUE(ContentsMayDiffer(then, now));
  now = then, now.inode = 9;
  EXPECT_TRUE(ContentsMayDiffer(then, now));
}

}  // namespace
}  // namespace mace
