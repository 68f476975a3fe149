// The CUDA engine end to end against the CPU engine on the same weights (tiny.en): fp32 greedy
// tokens equal on jfk and the Hi-Fi TTS clips, beam search too, each step's filters and choice in its
// graph (or, an ablation, on the host: the same tokens); fp16 and bf16 keep jfk's words, with the
// encoder's attention through cuBLAS, fused, or cuDNN's; the cross K/V is projected once per window
// and reused by every step, as the ops count it; the host waits for the device once a step; word
// timestamps within 0.02 s of the CPU's; batched windows, whose steps share one graph replay, keep
// each file's text; the fused decode step keeps the tokens. Skipped, with the reason, where no CUDA
// device is present.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "api/engine_access.h"
#include "api/model_impl.h"
#include "audio/mel_source.h"
#include "auris/audio.h"
#include "auris/batch.h"
#include "auris/text.h"
#include "auris/transcribe.h"
#include "batch/window_batch.h"
#include "decoding/decoding_task.h"
#include "kernels/cuda/cudnn_attention.h"
#include "kernels/cuda/device.h"
#include "test_support.h"

namespace auris {
namespace {

class CudaEngine : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda::probe_device().usable) GTEST_SKIP() << "no usable CUDA device: " << cuda::probe_device().reason;
    path_ = test::cached_model("tiny.en");
    if (path_.empty()) GTEST_SKIP() << "model tiny.en not cached: run scripts/fetch_models.sh";
    data_ = test::shared_data_dir();
    if (data_.empty()) GTEST_SKIP() << "../shared/data not found";
  }
  std::vector<std::string> clips() const {
    std::vector<std::string> hifitts;
    for (const auto& e : std::filesystem::directory_iterator(data_ + "/audio/hifitts-6097/audio"))
      if (e.path().extension() == ".wav") hifitts.push_back(e.path().string());
    std::sort(hifitts.begin(), hifitts.end());  // the same 12 clips on every machine
    if (hifitts.size() > 12) hifitts.resize(12);
    std::vector<std::string> files = {data_ + "/audio/jfk.flac"};
    files.insert(files.end(), hifitts.begin(), hifitts.end());
    return files;
  }
  // fp32 greedy and beam-5 tokens of every clip, the CUDA transcriber's against the CPU's.
  void expect_cpu_tokens(Transcriber& gpu, Transcriber& cpu, const std::string& what) {
    for (const std::string& clip : clips()) {
      const std::vector<float> samples = load_audio(clip);
      for (int beam : {0, 5}) {
        DecodingOptions options;
        if (beam) options.beam_size = beam;
        EXPECT_EQ(gpu.decode(samples, 16000, options).tokens, cpu.decode(samples, 16000, options).tokens)
            << clip << " beam " << beam << what;
      }
    }
  }
  std::string path_, data_;
};

TEST_F(CudaEngine, Float32TokensEqualTheCpuEngines) {
  Transcriber cpu(Model::load(path_, ComputeType::kFloat32, Device::kCpu));
  Transcriber gpu(Model::load(path_, ComputeType::kFloat32, Device::kCuda));
  expect_cpu_tokens(gpu, cpu, "");
  // Counted by the ops of the shared layer sequence as they run (a step's once per launch of its graph).
  const EngineCounters c = engine_counters(gpu);
  EXPECT_EQ(c.cross_kv_rows, 1500 * c.encoder_windows) << "one cross K/V projection per window";
  EXPECT_GT(c.decode_steps, 0);
  // One wait for the device per decode step (its proposals), none for a beam's cache reorder; every
  // step's filters and choice ran in its graph.
  EXPECT_EQ(c.step_host_waits, c.decode_steps);
  EXPECT_EQ(c.device_step_tails, c.decode_steps);
  // Every stage's device time, from CUDA events, one per call.
  EXPECT_EQ(c.encoder_device_ms.size(), static_cast<size_t>(c.encoder_windows));
  EXPECT_EQ(c.prefill_device_ms.size(), static_cast<size_t>(c.prefills));
  EXPECT_EQ(c.step_device_ms.size(), static_cast<size_t>(c.decode_steps));
  for (const auto* times : {&c.encoder_device_ms, &c.prefill_device_ms, &c.step_device_ms})
    for (float ms : *times) EXPECT_GT(ms, 0.0f);
  EXPECT_EQ(c.cross_query_rows, c.self_qkv_rows) << "every decoder pass projects Q for cross-attention, never K/V";
  EXPECT_GE(c.self_qkv_rows, 4 * c.decode_rows) << "tiny.en's 4 layers project every row of every step";
}

// Batched transcription on CUDA decodes its windows together, every step one graph replay over the
// rows of every window: the same text as each file alone on CUDA in batched mode's options (batch
// size 1), and in fp32 as the CPU's batch; the steps carried several windows' rows, and each
// window's cross K/V was projected once.
TEST_F(CudaEngine, BatchedWindowsShareStepsAndKeepTheirTexts) {
  const std::vector<std::string> files = clips();
  auto texts_at = [&](Device device, int batch_size, EngineCounters* counters = nullptr) {
    std::vector<std::string> texts(files.size());
    BatchTranscriber batch(Model::load(path_, ComputeType::kFloat32, device), batch_size);
    batch.transcribe_files(files, TranscribeOptions{}, [&](size_t i, Transcript t) { texts[i] = t.text; },
                           [&](size_t i, const std::string& error) { ADD_FAILURE() << files[i] << ": " << error; });
    if (counters) *counters = engine_counters(batch);
    return texts;
  };
  EngineCounters c;
  const std::vector<std::string> alone = texts_at(Device::kCuda, 1), batched = texts_at(Device::kCuda, 4, &c);
  const std::vector<std::string> cpu = texts_at(Device::kCpu, 4);
  for (size_t i = 0; i < files.size(); ++i) {
    EXPECT_EQ(batched[i], alone[i]) << files[i];
    EXPECT_EQ(batched[i], cpu[i]) << files[i] << ": CUDA's batch against the CPU's";
  }
  EXPECT_FALSE(alone[0].empty());
  EXPECT_GT(c.decode_rows, c.decode_steps) << "steps carried the rows of several windows";
  EXPECT_GT(c.device_step_tails, 0) << "steps' filters and choice ran on the device (not those of sampling alone)";
  EXPECT_EQ(c.cross_kv_rows, 1500 * c.encoder_windows) << "one cross K/V projection per window";
}

// Windows decoded together whose decoders choose differently (greedy beside beam 5) in one batch:
// the steps' tails choose on the device where they can, the host where not, and every window's
// tokens equal its own decode alone on CUDA.
TEST_F(CudaEngine, MixedDecodersInOneBatchGetWhatEachGetsAlone) {
  const auto model = Model::load(path_, ComputeType::kFloat32, Device::kCuda);
  const ModelImpl& m = model_impl(*model);
  const std::vector<std::string> files = clips();
  const size_t jobs = std::min<size_t>(files.size(), 6);
  auto options_of = [](size_t job) {
    DecodingOptions o;
    if (job % 2) o.beam_size = 5;
    return o;
  };
  std::vector<std::vector<int>> alone(jobs), together(jobs);
  Transcriber single(model);
  for (size_t j = 0; j < jobs; ++j) alone[j] = single.decode(load_audio(files[j]), 16000, options_of(j)).tokens;
  const std::unique_ptr<WindowBatch> batch = make_window_batch(m, 3);
  batch->run(static_cast<int>(jobs), [&](WindowEngine& engine, int job) {
    InMemoryMel mel(load_audio(files[job]), m.weights.dims.n_mels);
    const LogMel window = mel.window(0, std::min(kChunkFrames, mel.content_frames()));
    engine.set_window(window);
    together[job] = DecodingTask(m.tokenizer, m.weights.dims, options_of(job)).run(engine).tokens;
  });
  for (size_t j = 0; j < jobs; ++j) EXPECT_EQ(together[j], alone[j]) << files[j] << (j % 2 ? ", beam 5" : ", greedy");
  const EngineCounters c = batch->counters();
  EXPECT_GT(c.device_step_tails, 0) << "some steps chose on the device";
  EXPECT_GT(c.decode_rows, c.decode_steps);
}

TEST_F(CudaEngine, WordTimestampsMatchTheCpuEngines) {
  TranscribeOptions options;
  options.word_timestamps = true;
  auto words_of = [&](Device device, const std::string& clip) {
    const Transcript t = Transcriber(Model::load(path_, ComputeType::kFloat32, device)).transcribe(load_audio(clip), 16000, options);
    std::vector<Word> words;
    for (const Segment& s : t.segments) words.insert(words.end(), s.words.begin(), s.words.end());
    return words;
  };
  for (const std::string& clip : {data_ + "/audio/jfk.flac", clips()[1]}) {
    const std::vector<Word> cpu = words_of(Device::kCpu, clip), gpu = words_of(Device::kCuda, clip);
    ASSERT_EQ(gpu.size(), cpu.size()) << clip;
    ASSERT_FALSE(cpu.empty()) << clip;
    for (size_t i = 0; i < cpu.size(); ++i) {
      EXPECT_EQ(gpu[i].word, cpu[i].word) << clip << " word " << i;
      EXPECT_NEAR(gpu[i].start, cpu[i].start, 0.02) << clip << " " << cpu[i].word;
      EXPECT_NEAR(gpu[i].end, cpu[i].end, 0.02) << clip << " " << cpu[i].word;
    }
  }
}

// jfk in fp16 and bf16, with the encoder's attention as `switches` say, within 5% WER of fp32's text.
void expect_half_precision_keeps_the_words(const std::string& path, const std::string& jfk, EngineAblations switches,
                                           const char* attention) {
  const std::vector<float> samples = load_audio(jfk);
  const std::string fp32 = Transcriber(Model::load(path, ComputeType::kFloat32, Device::kCuda)).transcribe(samples, 16000).text;
  for (ComputeType type : {ComputeType::kFloat16, ComputeType::kBfloat16}) {
    Transcriber transcriber(Model::load(path, type, Device::kCuda));
    set_engine_ablations(transcriber, switches);
    const std::string text = transcriber.transcribe(samples, 16000).text;
    EXPECT_LE(word_error_rate({fp32}, {text}, WerNormalization::kEnglish).rate, 0.05)
        << compute_type_name(type) << ", " << attention << " encoder attention: " << text;
  }
}

TEST_F(CudaEngine, HalfPrecisionKeepsTheWords) {
  EngineAblations fused;
  fused.fused_encoder_attention = true;
  expect_half_precision_keeps_the_words(path_, data_ + "/audio/jfk.flac", {}, "cuBLAS");
  expect_half_precision_keeps_the_words(path_, data_ + "/audio/jfk.flac", fused, "fused");
}

// cuDNN's fused attention in the encoder; skipped, with the reason, where cuDNN cannot be opened.
TEST_F(CudaEngine, CudnnEncoderAttentionKeepsTheWords) {
  if (const std::string reason = cuda::CudnnAttention::unavailable_reason(); !reason.empty()) GTEST_SKIP() << reason;
  EngineAblations cudnn;
  cudnn.cudnn_encoder_attention = true;
  expect_half_precision_keeps_the_words(path_, data_ + "/audio/jfk.flac", cudnn, "cuDNN");
}

// The fused decode step (its layer norms, residual adds and cache writes inside its gemv kernels),
// alone and with programmatic launch: fp32 tokens equal the CPU engine's, greedy and beam 5 (whose
// 5 rows still fit the gemv), on every clip; fp16 keeps jfk's words.
TEST_F(CudaEngine, FusedDecodeStepKeepsTheTokens) {
  Transcriber cpu(Model::load(path_, ComputeType::kFloat32, Device::kCpu));
  const auto model = Model::load(path_, ComputeType::kFloat32, Device::kCuda);
  for (bool overlapped : {false, true}) {
    Transcriber gpu(model);
    EngineAblations a;
    a.fused_decode_step = true;
    a.programmatic_launch = overlapped;
    set_engine_ablations(gpu, a);
    expect_cpu_tokens(gpu, cpu, overlapped ? ", fused step, programmatic launch" : ", fused step");
    const EngineCounters c = engine_counters(gpu);
    EXPECT_EQ(c.step_host_waits, c.decode_steps);
    EXPECT_EQ(c.cross_query_rows, c.self_qkv_rows) << "the fused gemvs count their rows as the unfused ones";
    EXPECT_GE(c.self_qkv_rows, 4 * c.decode_rows);
  }
  const std::vector<float> jfk = load_audio(data_ + "/audio/jfk.flac");
  const std::string fp32 = Transcriber(model).transcribe(jfk, 16000).text;
  Transcriber half(Model::load(path_, ComputeType::kFloat16, Device::kCuda));
  EngineAblations a;
  a.fused_decode_step = a.programmatic_launch = true;
  set_engine_ablations(half, a);
  const std::string text = half.transcribe(jfk, 16000).text;
  EXPECT_LE(word_error_rate({fp32}, {text}, WerNormalization::kEnglish).rate, 0.05) << text;
}

TEST_F(CudaEngine, AblationsChangeTheWorkNotTheTokens) {
  const auto model = Model::load(path_, ComputeType::kFloat32, Device::kCuda);
  const std::vector<float> samples = load_audio(data_ + "/audio/jfk.flac");
  for (int beam : {0, 5}) {
    DecodingOptions options;
    if (beam) options.beam_size = beam;
    Transcriber fast(model);
    const std::vector<int> tokens = fast.decode(samples, 16000, options).tokens;
    for (int ablation = 0; ablation < 3; ++ablation) {
      Transcriber slow(model);
      EngineAblations a;
      (ablation == 0 ? a.recompute_cross_kv_each_step : ablation == 1 ? a.attend_full_self_cache : a.host_step_tail) = true;
      set_engine_ablations(slow, a);
      EXPECT_EQ(slow.decode(samples, 16000, options).tokens, tokens) << "ablation " << ablation << ", beam " << beam;
      if (ablation == 2) {
        EXPECT_EQ(engine_counters(slow).device_step_tails, 0) << "the tail on the host";
      }
    }
  }
}

}  // namespace
}  // namespace auris
