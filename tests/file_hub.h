// A local stand-in for the Hugging Face Hub, served through file:// URLs (libcurl handles them like
// HTTP): ROOT/REPO/resolve/main/FILE, and the listing the downloader checks each file against,
// ROOT/api/models/REPO/tree/main. Files named *.bin or *.safetensors are listed as the Hub lists LFS
// files (their SHA-256), the others by their Git blob id.
#pragma once

#include <string>

namespace auris::test {

class FileHub {
 public:
  explicit FileHub(std::string root) : root_(std::move(root)) {}
  // The value for AURIS_HUB_ENDPOINT.
  std::string endpoint() const { return "file://" + root_; }
  // Publishes `content` as repo's file, listed as it is.
  void publish_text(const std::string& repo, const std::string& file, const std::string& content);
  // Publishes a copy of the file at `source` as repo's file.
  void publish_file(const std::string& repo, const std::string& file, const std::string& source);
  // Where repo's file is served from: writing there afterwards makes it differ from its listing.
  std::string served_path(const std::string& repo, const std::string& file) const;
  std::string listing_path(const std::string& repo) const;

 private:
  void list(const std::string& repo, const std::string& file);
  std::string root_;
};

}  // namespace auris::test
