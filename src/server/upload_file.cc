#include "server/upload_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "auris/error.h"

namespace auris::server {

UploadDirectory::UploadDirectory() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/auris-serve-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (!mkdtemp(buffer.data()))  // mode 0700
    throw Error("cannot create a directory for uploads under " + pattern.substr(0, pattern.rfind('/')) + ": " +
                std::strerror(errno) + " (set TMPDIR to a writable directory)");
  path_ = buffer.data();
}

UploadDirectory::~UploadDirectory() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

UploadFile::UploadFile(const UploadDirectory& directory) {
  std::string pattern = directory.path() + "/upload-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  fd_ = mkostemp(buffer.data(), O_CLOEXEC);  // mode 0600
  if (fd_ < 0) throw Error("cannot create an upload file in " + directory.path() + ": " + std::strerror(errno));
  path_ = buffer.data();
}

UploadFile::~UploadFile() {
  if (fd_ >= 0) ::close(fd_);
  ::unlink(path_.c_str());
}

bool UploadFile::write(const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd_, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
    size_ += static_cast<size_t>(n);
  }
  return true;
}

bool UploadFile::finish() {
  const bool ok = ::close(fd_) == 0;
  fd_ = -1;
  return ok;
}

}  // namespace auris::server
