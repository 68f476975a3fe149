// Windows decoded together give what each gives alone: greedy, beam search and word timestamps (the
// alignment pass), every slot's thread posting to the one coordinator. Runs under ThreadSanitizer in
// scripts/test.sh, where a race between the slots and the coordinator fails it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/model_impl.h"
#include "auris/audio.h"
#include "auris/transcribe.h"
#include "batch/window_batch.h"
#include "test_support.h"
#include "transcribe/seek_loop.h"

namespace auris {
namespace {

TEST(WindowBatchConcurrency, WindowsDecodedTogetherGetWhatEachGetsAlone) {
  AURIS_REQUIRE_SHARED_DATA(data);
  AURIS_REQUIRE_MODEL(path, "tiny.en");
  const auto model = Model::load(path);
  const ModelImpl& m = model_impl(*model);
  std::vector<std::vector<float>> clips = {load_audio(data + "/audio/jfk.flac")};
  for (const char* name : {"presentpictureofnsw_02_mann_0532", "swag_06_tompkins_0883"})
    clips.push_back(load_audio(data + "/audio/hifitts-6097/audio/" + std::string(name) + ".wav"));
  // Each clip with other options: greedy, beam search, greedy with words (each slot costs an encoder
  // pass alone and one together, slow under TSan: three).
  std::vector<TranscribeOptions> options(clips.size());
  options[0].decoding.beam_size.reset();
  options[1].decoding.beam_size = 3;
  options[2].decoding.beam_size.reset();
  options[2].word_timestamps = true;
  auto fingerprint = [](const Transcript& t) {
    std::string out = t.text;
    for (const Segment& s : t.segments) {
      for (int token : s.tokens) out += "," + std::to_string(token);
      for (const Word& w : s.words) out += "|" + w.word + "@" + std::to_string(w.start);
    }
    return out;
  };
  std::vector<std::string> alone;
  for (size_t i = 0; i < clips.size(); ++i) {
    Transcriber t(model);
    alone.push_back(fingerprint(t.transcribe(clips[i], 16000, options[i])));
  }
  WindowBatch batch(m.weights, 3);
  std::vector<std::string> together(clips.size());
  batch.run(static_cast<int>(clips.size()), [&](WindowEngine& engine, int job) {
    InMemoryMel mel(clips[job], m.weights.dims.n_mels);
    WindowHolder windows(engine);
    together[job] = fingerprint(transcribe_mel(windows, m.tokenizer, m.weights.dims, mel, options[job]));
  });
  for (size_t i = 0; i < clips.size(); ++i) EXPECT_EQ(together[i], alone[i]) << "clip " << i;
  EXPECT_LT(batch.counters().decode_steps, 45) << "the clips' steps shared decoder passes";
}

}  // namespace
}  // namespace auris
