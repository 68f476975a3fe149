#include "tokenizer/byte_unicode.h"

#include <gtest/gtest.h>

#include "auris/error.h"

namespace auris {
namespace {

TEST(ByteUnicode, SpaceAndNewlineMapToVisibleSymbols) {
  EXPECT_EQ(bytes_to_gpt2_unicode(" the"), "\xC4\xA0the");  // Ġthe
  EXPECT_EQ(gpt2_unicode_to_bytes("\xC4\xA0the"), " the");
  EXPECT_EQ(gpt2_unicode_to_bytes("\xC4\x8A"), "\n");  // Ċ
}

TEST(ByteUnicode, EveryByteRoundTrips) {
  for (int b = 0; b < 256; ++b) {
    std::string s(1, static_cast<char>(b));
    EXPECT_EQ(gpt2_unicode_to_bytes(bytes_to_gpt2_unicode(s)), s) << b;
  }
}

TEST(ByteUnicode, RejectsForeignSymbols) { EXPECT_THROW(gpt2_unicode_to_bytes("\xE4\xBD\xA0"), Error); }

}  // namespace
}  // namespace auris
