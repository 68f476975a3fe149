// What the Hugging Face Hub says a repository's files are: GET /api/models/REPO/tree/main, a JSON
// array of {"type", "path", "size", "oid", "lfs": {"oid", "size"}?, "xetHash"?}. The downloader checks
// every file it fetches against it, as huggingface_hub does, so that a truncated or corrupted
// transfer, or a mirror serving other bytes, never lands in the model cache.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace auris {

struct HubFile {
  enum class Check {
    kSha256,   // stored in Git LFS: `digest` is the SHA-256 of the content
    kGitBlob,  // stored in Git: `digest` is its Git blob id
    kSize,     // stored in Xet without LFS metadata: only the size can be checked
  };
  long long size = 0;
  Check check = Check::kSha256;
  std::string digest;  // lowercase hex
};

// The listing's URL for a repository (owner/name) on the hub endpoint.
std::string hub_listing_url(const std::string& endpoint, const std::string& repo);

// The files of a listing, by path. Throws auris::Error naming what is wrong where it is not one.
std::map<std::string, HubFile> parse_hub_listing(std::string_view json);

// The files of a repository's Whisper model that auris reads: a CTranslate2 conversion (model.bin,
// config.json, its vocabulary) or a Hugging Face Transformers checkpoint (config.json, the
// safetensors, one file or shards with their index, vocab.json and merges.txt), with the tokenizer
// and preprocessor files beside them. Throws auris::Error naming the repository where it holds
// neither.
std::vector<std::string> whisper_model_files(const std::string& repo, const std::map<std::string, HubFile>& files);

}  // namespace auris
