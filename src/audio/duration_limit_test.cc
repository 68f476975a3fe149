// The duration limit counts the samples each pass reads, from the first, whatever the pass's block sizes.
#include "audio/duration_limit.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace auris {
namespace {

// Every sample of one pass, read in blocks of `block`.
size_t read_all(SampleSource& source, size_t block) {
  const std::unique_ptr<SamplePass> pass = source.open();
  std::vector<float> out;
  while (pass->read(out, block) > 0) {
  }
  return out.size();
}

TEST(DurationLimit, PassesUpToTheLimitAndRefusesPastIt) {
  const std::vector<float> two_seconds(32000, 0.25f);
  DurationLimitedSource enough(std::make_unique<MemorySampleSource>(two_seconds, "the clip"), 2.0);
  EXPECT_EQ(read_all(enough, 1000), 32000u);
  EXPECT_EQ(read_all(enough, 32000), 32000u) << "each pass counts from its own start";
  EXPECT_EQ(enough.name(), "the clip");

  DurationLimitedSource short_limit(std::make_unique<MemorySampleSource>(two_seconds, "the clip"), 1.5);
  for (const size_t block : {size_t{1000}, size_t{1 << 16}}) {
    try {
      read_all(short_limit, block);
      ADD_FAILURE() << "read past the limit in blocks of " << block;
    } catch (const AudioTooLong& e) {
      EXPECT_NE(std::string(e.what()).find("the clip is longer than 0.025 minutes"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace auris
