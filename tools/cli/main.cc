#include <cstdio>

int main() {
  std::fprintf(stderr, "auris: not built yet\n");
  return 1;
}
