// The compute types and the cache-design ablations, end to end on jfk with tiny.en:
//  - float16, bfloat16, int8 and int8_bfloat16 transcribe jfk with the same words as float32 (WER at most 0.05: one
//    word in 22); float16's decode step reads half of float32's cross-attention bytes; and word timestamps through int8's int8 cross-attention cache put 90% of the word
//    boundaries within 0.1 s of fp32's;
//  - the two ablations change the work done, never the tokens, and the counters show the work: the
//    recompute ablation projects the window's 1500 cross K/V rows again at every decode step.
#include <gtest/gtest.h>

#include <cmath>

#include "auris/audio.h"
#include "api/engine_access.h"
#include "auris/error.h"
#include "auris/text.h"
#include "auris/transcribe.h"
#include "kernels/cpu/cpu_path.h"
#include "test_support.h"

#if AURIS_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace auris {
namespace {

class ComputeTypes : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = test::cached_model("tiny.en");
    if (path_.empty()) GTEST_SKIP() << "model tiny.en not cached: run scripts/fetch_models.sh";
    const std::string data = test::shared_data_dir();
    if (data.empty()) GTEST_SKIP() << "../shared/data not found";
    samples_ = load_audio(data + "/audio/jfk.flac");
  }
  Transcript transcript(ComputeType type, bool words = false) {
    Transcriber t(Model::load(path_, type));
    TranscribeOptions options;
    options.word_timestamps = words;
    return t.transcribe(samples_, 16000, options);
  }
  std::string text(ComputeType type) { return transcript(type).text; }
  std::string path_;
  std::vector<float> samples_;
};

TEST_F(ComputeTypes, ReducedPrecisionKeepsTheWords) {
  const std::string fp32 = text(ComputeType::kFloat32);
  ASSERT_NE(normalize_english(fp32).find("ask not what your country can do for you"), std::string::npos) << fp32;
  for (ComputeType type : {ComputeType::kFloat16, ComputeType::kBfloat16, ComputeType::kInt8, ComputeType::kInt8Bfloat16}) {
    const std::string reduced = text(type);
    const double wer = word_error_rate({fp32}, {reduced}, WerNormalization::kEnglish).rate;
    EXPECT_LE(wer, 0.05) << compute_type_name(type) << ": " << reduced;
  }
}

// float16 on the CPU is float32 with an fp16 cross-attention cache: the same decoder bytes (tiny.en's
// checkpoint is fp16, which float32 already streams as fp16 rows), half the cache's.
TEST_F(ComputeTypes, Float16HalvesTheCrossAttentionBytesOfAStep) {
  const ModelInfo fp32 = Model::load(path_, ComputeType::kFloat32)->info();
  const ModelInfo fp16 = Model::load(path_, ComputeType::kFloat16)->info();
  EXPECT_EQ(fp16.decode_weight_bytes, fp32.decode_weight_bytes);
  EXPECT_EQ(2 * fp16.cross_kv_cache_bytes, fp32.cross_kv_cache_bytes);
  EXPECT_EQ(fp16.compute_type, ComputeType::kFloat16);
}

TEST_F(ComputeTypes, ReducedPrecisionWordTimestamps) {
  const Transcript fp32 = transcript(ComputeType::kFloat32, true);
  const Transcript int8 = transcript(ComputeType::kInt8, true);
  std::vector<Word> a, b;
  for (const Segment& s : fp32.segments) a.insert(a.end(), s.words.begin(), s.words.end());
  for (const Segment& s : int8.segments) b.insert(b.end(), s.words.begin(), s.words.end());
  ASSERT_FALSE(a.empty());
  ASSERT_EQ(a.size(), b.size()) << int8.text;
  // A boundary next to a pause may move (DTW picks another path through a flat stretch); the rest
  // stay put.
  int close = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].word, b[i].word);
    close += std::fabs(a[i].start - b[i].start) <= 0.1;
    close += std::fabs(a[i].end - b[i].end) <= 0.1;
  }
  EXPECT_GE(close, static_cast<int>(2 * a.size() * 9 / 10)) << "of " << 2 * a.size() << " word boundaries within 0.1 s";
}

TEST_F(ComputeTypes, NamesParseAndBadNamesAreRefused) {
  for (ComputeType type : {ComputeType::kFloat32, ComputeType::kBfloat16, ComputeType::kInt8, ComputeType::kFloat16,
                           ComputeType::kInt8Bfloat16})
    EXPECT_EQ(parse_compute_type(compute_type_name(type)), type);
  EXPECT_NE(test::error_of([] { parse_compute_type("float64"); }).find("choose float32, float16, bfloat16, int8 or int8_bfloat16"),
            std::string::npos);
}

// int8_bfloat16 is int8 (the same weights and cross-attention cache) with the encoder's self-attention
// in bf16 products where the CPU has AVX-512 BF16: there, the same words (its tokens its own);
// elsewhere int8's tokens exactly.
TEST_F(ComputeTypes, Int8Bfloat16IsInt8WithTheEncodersAttentionInBf16) {
  const ModelInfo int8 = Model::load(path_, ComputeType::kInt8)->info();
  const ModelInfo mixed = Model::load(path_, ComputeType::kInt8Bfloat16)->info();
  EXPECT_EQ(mixed.decode_weight_bytes, int8.decode_weight_bytes);
  EXPECT_EQ(mixed.cross_kv_cache_bytes, int8.cross_kv_cache_bytes);
  EXPECT_EQ(mixed.compute_type, ComputeType::kInt8Bfloat16);
  const Transcript a = transcript(ComputeType::kInt8), b = transcript(ComputeType::kInt8Bfloat16);
  const bool bf16 = cpu_path() == CpuPath::kAvx512 && __builtin_cpu_supports("avx512bf16");
  if (!bf16) {
    ASSERT_EQ(a.segments.size(), b.segments.size());
    for (size_t i = 0; i < a.segments.size(); ++i) EXPECT_EQ(a.segments[i].tokens, b.segments[i].tokens);
  } else {
    EXPECT_LE(word_error_rate({a.text}, {b.text}, WerNormalization::kEnglish).rate, 0.05) << b.text;
  }
}

TEST_F(ComputeTypes, AblationsChangeTheWorkNotTheTokens) {
  const auto model = Model::load(path_);
  Transcriber t(model);
  DecodingOptions greedy;
  const DecodingResult fast = t.decode(samples_, 16000, greedy);
  for (int ablation = 0; ablation < 2; ++ablation) {
    Transcriber slow(model);
    EngineAblations a;
    (ablation == 0 ? a.recompute_cross_kv_each_step : a.attend_full_self_cache) = true;
    set_engine_ablations(slow, a);
    const EngineCounters before = engine_counters(slow);
    const DecodingResult r = slow.decode(samples_, 16000, greedy);
    EXPECT_EQ(r.tokens, fast.tokens) << "ablation " << ablation;
    const EngineCounters c = engine_counters(slow);
    const long long projected = c.cross_kv_rows - before.cross_kv_rows;
    if (ablation == 0)
      EXPECT_EQ(projected, 1500 * (1 + c.decode_steps)) << "once per window, then again at every step";
    else
      EXPECT_EQ(projected, 1500) << "the full-cache ablation still projects cross K/V once";
  }
}

}  // namespace
}  // namespace auris

namespace auris {
namespace {

// --device cuda where CUDA cannot run (a build without the toolkit, or no GPU) fails at load with
// what to do; the GPU refuses the CPU's compute type (int8).
TEST(Devices, UnavailableDeviceAndMismatchedComputeTypesSayWhatToDo) {
  const std::string path = test::cached_model("tiny.en");
  if (path.empty()) GTEST_SKIP() << "model tiny.en not cached: run scripts/fetch_models.sh";
  EXPECT_EQ(parse_device("cuda"), Device::kCuda);
  EXPECT_NE(test::error_of([] { parse_device("tpu"); }).find("cpu or cuda"), std::string::npos);
  EXPECT_NE(test::error_of([&] { Model::load(path, ComputeType::kInt8, Device::kCuda); }).find("CPU only"),
            std::string::npos);
  EXPECT_NE(test::error_of([&] { Model::load(path, ComputeType::kInt8Bfloat16, Device::kCuda); }).find("CPU only"),
            std::string::npos);
#if AURIS_HAVE_CUDA
  const bool gpu = [] {
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
  }();
#else
  const bool gpu = false;
#endif
  if (!gpu) {
    EXPECT_NE(test::error_of([&] { Model::load(path, ComputeType::kFloat32, Device::kCuda); }).find("use device \"cpu\""),
              std::string::npos);
  }
}

}  // namespace
}  // namespace auris
