#include "util/huge_pages.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

namespace auris {
namespace {

// The kernel's THP mode, the bracketed word of /sys/kernel/mm/transparent_hugepage/enabled.
std::string huge_page_mode() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(f, line);
  const size_t open = line.find('['), close = line.find(']');
  return open == std::string::npos || close == std::string::npos ? "" : line.substr(open + 1, close - open - 1);
}

// kB of huge pages backing the mapping of /proc/self/smaps that holds address p.
long huge_kb_of_mapping(const void* p) {
  std::ifstream f("/proc/self/smaps");
  const auto at = reinterpret_cast<uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(f, line);) {
    uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = begin <= at && at < end;
    } else if (inside && line.rfind("AnonHugePages:", 0) == 0) {
      return std::stol(line.substr(14));
    }
  }
  return -1;
}

TEST(HugePages, ResizeGivesZerosOfTheSizeAsked) {
  std::vector<float> v;
  resize_on_huge_pages(v, 3u << 20);
  ASSERT_EQ(v.size(), 3u << 20);
  for (size_t i = 0; i < v.size(); i += 4099) EXPECT_EQ(v[i], 0.0f) << i;
  v[5] = 1.0f;
  resize_on_huge_pages(v, 10);  // shrinking keeps what is there
  EXPECT_EQ(v.size(), 10u);
  EXPECT_EQ(v[5], 1.0f);
}

TEST(HugePages, LargeBufferIsBackedByHugePagesWhereTheKernelOffersThem) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's allocator maps memory its own way";
#endif
  const std::string mode = huge_page_mode();
  if (mode != "always" && mode != "madvise")
    GTEST_SKIP() << "transparent huge pages are '" << mode << "' in this kernel: nothing to request";
  std::vector<float> v;
  resize_on_huge_pages(v, 16u << 20);  // 64 MB
  // The advised part is a mapping of its own, from the first 2-MB boundary: look 2 MB in.
  EXPECT_GE(huge_kb_of_mapping(v.data() + (512u << 10)), 2048) << "not one huge page behind a 64-MB buffer";
}

}  // namespace
}  // namespace auris
