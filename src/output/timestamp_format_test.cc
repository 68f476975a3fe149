#include "output/timestamp_format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>

#include "auris/error.h"
#include "output/output_fixtures_for_tests.h"

namespace auris::output {
namespace {

double from_hex(const nlohmann::json& value) { return std::strtod(value.get<std::string>().c_str(), nullptr); }

TEST(OutputTimestampFormat, MatchesOpenaiFormatTimestamp) {
  const auto cases = test::read_output_fixture("primitives.json").at("timestamps");
  ASSERT_GT(cases.size(), 100u);
  for (const auto& c : cases) {
    EXPECT_EQ(format_timestamp(from_hex(c["seconds"]), c["always_include_hours"].get<bool>(),
                               c["decimal_marker"].get<std::string>()),
              c["text"].get<std::string>())
        << c["seconds"];
  }
}

TEST(OutputTimestampFormat, RoundMatchesPythonRoundOfMilliseconds) {
  const auto fixture = test::read_output_fixture("primitives.json");  // the loop must not outlive it
  for (const auto& c : fixture.at("tsv_milliseconds"))
    EXPECT_EQ(python_round(1000 * from_hex(c["seconds"])), c["milliseconds"].get<long long>()) << c["seconds"];
}

TEST(OutputTimestampFormat, RoundsHalvesToEven) {
  EXPECT_EQ(python_round(0.5), 0);
  EXPECT_EQ(python_round(1.5), 2);
  EXPECT_EQ(python_round(2.5), 2);
  EXPECT_EQ(python_round(-0.5), 0);
  EXPECT_EQ(python_round(-1.5), -2);
  EXPECT_EQ(python_round(2.5000000001), 3);
}

TEST(OutputTimestampFormat, RejectsNegativeAndNonFiniteTimes) {
  EXPECT_THROW(format_timestamp(-0.001), Error);
  EXPECT_THROW(format_timestamp(std::nan("")), Error);
  EXPECT_THROW(format_timestamp(std::numeric_limits<double>::infinity()), Error);
  EXPECT_THROW(format_timestamp(1e300), Error);
}

}  // namespace
}  // namespace auris::output
