#include "output/json_float.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>

#include "output/output_fixtures_for_tests.h"

namespace auris::output {
namespace {

TEST(OutputJsonFloat, MatchesPythonJsonDumps) {
  const auto floats = test::read_output_fixture("primitives.json").at("json_floats");
  ASSERT_GT(floats.size(), 500u);
  for (const auto& f : floats) {
    const double x = std::bit_cast<double>(f.at("bits").get<std::uint64_t>());
    EXPECT_EQ(json_float(x), f.at("json").get<std::string>()) << f.at("bits");
  }
}

}  // namespace
}  // namespace auris::output
