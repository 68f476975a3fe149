#include "model/hub_listing.h"

#include <algorithm>
#include <cctype>

#include "auris/error.h"
#include "util/bounded_json.h"

namespace auris {

namespace {

constexpr size_t kMaxListingValues = 200000;  // whisper.cpp's repository lists about 100 files

// A digest as the listing gives it, in lowercase hex without the "sha256:" some Hub-compatible
// servers put before it; "" where it is not `length` hex digits.
std::string digest_of(const nlohmann::json& oid, size_t length) {
  if (!oid.is_string()) return "";
  std::string text = oid.get<std::string>();
  if (text.starts_with("sha256:")) text.erase(0, 7);
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  const bool hex =
      std::all_of(text.begin(), text.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
  return hex && text.size() == length ? text : "";
}

long long size_of(const nlohmann::json& entry, const std::string& path) {
  const auto size = entry.find("size");
  if (size == entry.end() || !size->is_number_integer() || size->get<long long>() < 0)
    throw Error("the hub's listing gives no size for " + path);
  return size->get<long long>();
}

HubFile file_of(const nlohmann::json& entry, const std::string& path) {
  HubFile file;
  file.size = size_of(entry, path);
  if (const auto lfs = entry.find("lfs"); lfs != entry.end() && lfs->is_object()) {
    const auto oid = lfs->find("oid");
    file.check = HubFile::Check::kSha256;
    file.digest = oid == lfs->end() ? "" : digest_of(*oid, 64);
    if (file.digest.empty()) throw Error("the hub's listing gives no SHA-256 for " + path + ", stored in LFS");
    if (lfs->contains("size")) file.size = size_of(*lfs, path);
    return file;
  }
  if (entry.contains("xetHash")) {
    file.check = HubFile::Check::kSize;
    return file;
  }
  const auto oid = entry.find("oid");
  file.check = HubFile::Check::kGitBlob;
  file.digest = oid == entry.end() ? "" : digest_of(*oid, 40);
  if (file.digest.empty()) throw Error("the hub's listing gives no Git blob id for " + path);
  return file;
}

}  // namespace

std::string hub_listing_url(const std::string& endpoint, const std::string& repo) {
  return endpoint + "/api/models/" + repo + "/tree/main";
}

std::map<std::string, HubFile> parse_hub_listing(std::string_view json) {
  nlohmann::json listing;
  try {
    listing = parse_bounded_json(json, kMaxListingValues);
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("the hub's file listing is not JSON: ") + e.what());
  }
  if (!listing.is_array()) throw Error("the hub's file listing is not a JSON array of files");
  std::map<std::string, HubFile> files;
  for (const nlohmann::json& entry : listing) {
    if (!entry.is_object()) throw Error("the hub's file listing holds something that is not a file entry");
    const auto type = entry.find("type");
    const auto path = entry.find("path");
    if (type == entry.end() || path == entry.end() || !type->is_string() || !path->is_string())
      throw Error("the hub's file listing holds an entry without a type and a path");
    if (*type != "file") continue;  // directories
    files[path->get<std::string>()] = file_of(entry, path->get<std::string>());
  }
  return files;
}

}  // namespace auris
