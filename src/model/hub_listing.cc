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

std::vector<std::string> whisper_model_files(const std::string& repo, const std::map<std::string, HubFile>& files) {
  const auto has = [&](const std::string& name) { return files.count(name) > 0; };
  std::vector<std::string> chosen;
  const auto take_if_there = [&](std::initializer_list<const char*> names) {
    for (const char* name : names)
      if (has(name)) chosen.push_back(name);
  };
  if (has("model.bin") && has("config.json") && (has("vocabulary.json") || has("vocabulary.txt"))) {
    take_if_there({"config.json", "model.bin", "vocabulary.json", "vocabulary.txt", "tokenizer.json",
                   "preprocessor_config.json"});
    return chosen;
  }
  const bool one_file = has("model.safetensors"), shards = has("model.safetensors.index.json");
  if ((one_file || shards) && has("config.json") && has("vocab.json") && has("merges.txt")) {
    take_if_there({"config.json", "generation_config.json", "vocab.json", "merges.txt", "tokenizer.json",
                   "tokenizer_config.json", "added_tokens.json", "special_tokens_map.json", "normalizer.json",
                   "preprocessor_config.json"});
    if (one_file) {
      chosen.push_back("model.safetensors");
    } else {
      chosen.push_back("model.safetensors.index.json");
      for (const auto& [path, file] : files)  // model-00001-of-00002.safetensors, ...
        if (path.starts_with("model-") && path.ends_with(".safetensors")) chosen.push_back(path);
    }
    return chosen;
  }
  throw Error("the hub's repository " + repo + " holds no Whisper model auris reads: a CTranslate2 conversion "
              "(model.bin, config.json, vocabulary.json or .txt) or a Hugging Face checkpoint (config.json, "
              "model.safetensors, vocab.json, merges.txt)");
}

}  // namespace auris
