#include "util/content_digest.h"

#include <openssl/evp.h>

#include <string>

#include "auris/error.h"

namespace auris {

struct ContentDigest::State {
  EVP_MD_CTX* context = nullptr;
  ~State() { EVP_MD_CTX_free(context); }
};

namespace {

std::unique_ptr<ContentDigest::State> start(const EVP_MD* kind) {
  auto state = std::make_unique<ContentDigest::State>();
  state->context = EVP_MD_CTX_new();
  if (!state->context || EVP_DigestInit_ex(state->context, kind, nullptr) != 1)
    throw Error("cannot start a digest (OpenSSL's libcrypto failed)");
  return state;
}

}  // namespace

ContentDigest::ContentDigest(std::unique_ptr<State> state) : state_(std::move(state)) {}
ContentDigest::ContentDigest(ContentDigest&&) noexcept = default;
ContentDigest& ContentDigest::operator=(ContentDigest&&) noexcept = default;
ContentDigest::~ContentDigest() = default;

ContentDigest ContentDigest::sha256() { return ContentDigest(start(EVP_sha256())); }

ContentDigest ContentDigest::git_blob(long long size) {
  ContentDigest digest(start(EVP_sha1()));
  const std::string header = "blob " + std::to_string(size);
  digest.update(header.c_str(), header.size() + 1);  // with its terminating NUL, as Git hashes it
  return digest;
}

void ContentDigest::update(const void* data, size_t size) {
  if (EVP_DigestUpdate(state_->context, data, size) != 1) throw Error("digest update failed (OpenSSL's libcrypto)");
}

std::string ContentDigest::hex() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(state_->context, digest, &length) != 1) throw Error("digest failed (OpenSSL's libcrypto)");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text;
  for (unsigned int i = 0; i < length; ++i) {
    text += kHex[digest[i] >> 4];
    text += kHex[digest[i] & 15];
  }
  return text;
}

}  // namespace auris
