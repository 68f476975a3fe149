#include "file_hub.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "util/content_digest.h"

namespace fs = std::filesystem;

namespace auris::test {

std::string FileHub::served_path(const std::string& repo, const std::string& file) const {
  return root_ + "/" + repo + "/resolve/main/" + file;
}

std::string FileHub::listing_path(const std::string& repo) const { return root_ + "/api/models/" + repo + "/tree/main"; }

void FileHub::publish_text(const std::string& repo, const std::string& file, const std::string& content) {
  fs::create_directories(fs::path(served_path(repo, file)).parent_path());
  // The path may be a link that publish_file made to a real model's file: never write through it.
  fs::remove(served_path(repo, file));
  std::ofstream(served_path(repo, file), std::ios::binary) << content;
  list(repo, file);
}

void FileHub::publish_file(const std::string& repo, const std::string& file, const std::string& source) {
  fs::create_directories(fs::path(served_path(repo, file)).parent_path());
  fs::remove(served_path(repo, file));
  // A copy, not a link: a test that then writes the served file must not write into its source (a
  // real model in the user's cache).
  fs::copy_file(source, served_path(repo, file));
  list(repo, file);
}

void FileHub::list(const std::string& repo, const std::string& file) {
  std::ifstream in(served_path(repo, file), std::ios::binary);
  const std::string content((std::istreambuf_iterator<char>(in)), {});
  const auto size = static_cast<long long>(content.size());
  const bool lfs = file.ends_with(".bin") || file.ends_with(".safetensors");
  ContentDigest blob = ContentDigest::git_blob(size);
  blob.update(content.data(), content.size());
  nlohmann::json entry = {{"type", "file"}, {"path", file}, {"size", size}, {"oid", blob.hex()}};
  if (lfs) {
    ContentDigest sha256 = ContentDigest::sha256();
    sha256.update(content.data(), content.size());
    entry["oid"] = "0123456789abcdef0123456789abcdef01234567";  // the pointer file's id, not the content's
    entry["lfs"] = {{"oid", sha256.hex()}, {"size", size}, {"pointerSize", 134}};
  }
  nlohmann::json listing = nlohmann::json::array();
  if (std::ifstream old(listing_path(repo)); old) listing = nlohmann::json::parse(old);
  for (auto it = listing.begin(); it != listing.end();) it = (*it)["path"] == file ? listing.erase(it) : it + 1;
  listing.push_back(entry);
  fs::create_directories(fs::path(listing_path(repo)).parent_path());
  std::ofstream(listing_path(repo)) << listing.dump(1);
}

}  // namespace auris::test
