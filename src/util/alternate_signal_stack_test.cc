// The alternate signal stack: given where the thread has none, kept where it has one. In child
// processes, since a thread's signal stack outlives the test.
#include "util/alternate_signal_stack.h"

#include <gtest/gtest.h>

#include <csignal>
#include <vector>

#include "test_support.h"

namespace auris {
namespace {

TEST(AlternateSignalStack, IsGivenWhereTheThreadHasNone) {
  test::expect_child_exits_cleanly([] {
    stack_t none = {};
    none.ss_flags = SS_DISABLE;
    if (sigaltstack(&none, nullptr) != 0) return 1;
    ensure_alternate_signal_stack();
    stack_t now = {};
    if (sigaltstack(nullptr, &now) != 0 || (now.ss_flags & SS_DISABLE)) return 2;
    return now.ss_size >= static_cast<size_t>(MINSIGSTKSZ) ? 0 : 3;
  });
}

TEST(AlternateSignalStack, KeepsTheOneTheThreadHas) {
  test::expect_child_exits_cleanly([] {
    static std::vector<char> theirs(1 << 15);
    stack_t given = {};
    given.ss_sp = theirs.data();
    given.ss_size = theirs.size();
    if (sigaltstack(&given, nullptr) != 0) return 1;
    ensure_alternate_signal_stack();
    stack_t now = {};
    if (sigaltstack(nullptr, &now) != 0) return 2;
    return now.ss_sp == theirs.data() && now.ss_size == theirs.size() ? 0 : 3;
  });
}

}  // namespace
}  // namespace auris
