// Uploads on disk: one private directory per server (mode 0700 under $TMPDIR), one file per upload
// (mode 0600) removed when its request ends, however it ends, and the directory when the server does.
// The audio decoder reads the file, so an upload is never held in memory.
#pragma once

#include <cstddef>
#include <string>

namespace auris::server {

class UploadDirectory {
 public:
  // Throws auris::Error when no directory can be made.
  UploadDirectory();
  ~UploadDirectory();
  UploadDirectory(const UploadDirectory&) = delete;
  UploadDirectory& operator=(const UploadDirectory&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

class UploadFile {
 public:
  // Throws auris::Error when the file cannot be created.
  explicit UploadFile(const UploadDirectory& directory);
  ~UploadFile();
  UploadFile(const UploadFile&) = delete;
  UploadFile& operator=(const UploadFile&) = delete;

  // Appends; false when the disk refuses (full).
  bool write(const char* data, size_t size);
  // Flushes and closes the file for the decoder to read; false when that fails.
  bool finish();
  const std::string& path() const { return path_; }
  size_t size() const { return size_; }

 private:
  std::string path_;
  int fd_ = -1;
  size_t size_ = 0;
};

}  // namespace auris::server
