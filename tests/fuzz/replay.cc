// The driver the fuzz targets (src/**/*_fuzz.cc) link outside libFuzzer: it runs each file named on
// the command line through LLVMFuzzerTestOneInput once, then its first half, and 16 copies with one
// byte changed each at positions spread over the file. The targets stay compiled in every build, and
// ctest replays their seeds under ASan + UBSan (tests/fuzz/replay_seeds.sh); scripts/fuzz.sh runs
// them under libFuzzer for a real search.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) __attribute__((weak));

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "replay: cannot read %s\n", argv[i]);
      return 2;
    }
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size() / 2);
    for (size_t k = 0; k < 16 && !bytes.empty(); ++k) {
      std::vector<uint8_t> changed = bytes;
      // Positions from the start, where the headers are, to the end; the values flip every bit.
      const size_t at = k < 8 ? k * 7 % bytes.size() : (bytes.size() - 1) * (k - 7) / 9;
      changed[at] = static_cast<uint8_t>(~changed[at]);
      LLVMFuzzerTestOneInput(changed.data(), changed.size());
    }
    std::printf("replay: %s and 17 variants\n", argv[i]);
  }
  return 0;
}
