// Known answers from the tools people check downloads with: `sha256sum` and `git hash-object`.
#include "util/content_digest.h"

#include <gtest/gtest.h>

#include <string>

namespace auris {
namespace {

std::string digest_of(ContentDigest digest, const std::string& content, size_t piece) {
  for (size_t i = 0; i < content.size(); i += piece) digest.update(content.data() + i, std::min(piece, content.size() - i));
  return digest.hex();
}

TEST(ContentDigest, Sha256MatchesSha256sum) {
  // printf 'vad weights' | sha256sum
  EXPECT_EQ(digest_of(ContentDigest::sha256(), "vad weights", 3),
            "5c80c97b573921129844efefafa35c821dcc2d118fe48ac2ccd8321b98c57de7");
  EXPECT_EQ(digest_of(ContentDigest::sha256(), "", 1), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(ContentDigest, GitBlobMatchesGitHashObject) {
  // printf 'vad weights' | git hash-object --stdin; printf '{}' | git hash-object --stdin
  EXPECT_EQ(digest_of(ContentDigest::git_blob(11), "vad weights", 4), "ea6fcbc4c3745b8e7f1a13c933b5f6c3202e451b");
  EXPECT_EQ(digest_of(ContentDigest::git_blob(2), "{}", 1), "9e26dfeeb6e641a33dae4961196235bdb965b21b");
  EXPECT_EQ(digest_of(ContentDigest::git_blob(0), "", 1), "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
}

}  // namespace
}  // namespace auris
