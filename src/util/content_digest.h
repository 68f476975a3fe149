// Digests of downloaded files, computed as the bytes arrive, in the two forms the Hugging Face Hub
// lists a file by: the SHA-256 of its content (files stored in Git LFS: every model weight file), and
// its Git blob id (the SHA-1 of "blob SIZE\0" and the content: small files such as config.json).
// OpenSSL's libcrypto does the hashing.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace auris {

class ContentDigest {
 public:
  static ContentDigest sha256();
  // Git's id of a blob of `size` bytes; update() must then be given exactly that many.
  static ContentDigest git_blob(long long size);

  ContentDigest(ContentDigest&&) noexcept;
  ContentDigest& operator=(ContentDigest&&) noexcept;
  ~ContentDigest();

  void update(const void* data, size_t size);
  // The digest in lowercase hex. Ends the digest: call once.
  std::string hex();

  struct State;  // OpenSSL's context, opaque here
  explicit ContentDigest(std::unique_ptr<State> state);

 private:
  std::unique_ptr<State> state_;
};

}  // namespace auris
