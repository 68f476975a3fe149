// The alternate signal stack: given where the thread has none, kept where it has one. In child
// processes, since a thread's signal stack outlives the test.
#include "util/alternate_signal_stack.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <vector>

namespace auris {
namespace {

template <typename Body>
void expect_child_succeeds(Body body) {
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) ::_exit(body());
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(AlternateSignalStack, IsGivenWhereTheThreadHasNone) {
  expect_child_succeeds([] {
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
  expect_child_succeeds([] {
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
