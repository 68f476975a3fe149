#include "model/model_registry.h"

#include <gtest/gtest.h>

#include <set>

#include "auris/error.h"

namespace auris {
namespace {

TEST(ModelRegistry, LooksUpOfficialModels) {
  const RegistryModel tiny_en = registry_model("tiny.en");
  EXPECT_EQ(tiny_en.hf_repo, "openai/whisper-tiny.en");
  EXPECT_EQ(tiny_en.ct2_repo, "Systran/faster-whisper-tiny.en");
  EXPECT_EQ(tiny_en.ggml_repo, "ggerganov/whisper.cpp");
  EXPECT_EQ(tiny_en.ggml_file, "ggml-tiny.en.bin");
  EXPECT_EQ(hub_file_url(tiny_en.ggml_repo, tiny_en.ggml_file),
            "https://huggingface.co/ggerganov/whisper.cpp/resolve/main/ggml-tiny.en.bin");

  EXPECT_EQ(registry_model("large-v1").hf_repo, "openai/whisper-large");
  EXPECT_EQ(registry_model("large").name, "large-v3");
  EXPECT_EQ(registry_model("turbo").name, "large-v3-turbo");
  EXPECT_EQ(registry_model("turbo").ct2_repo, "mobiuslabsgmbh/faster-whisper-large-v3-turbo");
  EXPECT_EQ(registry_model("large-v3-turbo").hf_repo, "openai/whisper-large-v3-turbo");
  EXPECT_EQ(registry_model("large-v3-turbo").n_text_layer, 4);
  EXPECT_EQ(registry_model("distil-large-v3").ct2_repo, "Systran/faster-distil-whisper-large-v3");
  EXPECT_EQ(registry_model("distil-large-v3").ggml_file, "ggml-distil-large-v3.bin");
  EXPECT_EQ(registry_model("distil-small.en").hf_repo, "distil-whisper/distil-small.en");
  EXPECT_EQ(registry_model("large-v3").n_mels, 128);
  EXPECT_FALSE(find_registry_model("huge").has_value());
  try {
    registry_model("huge");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("tiny.en"), std::string::npos);
  }
}

TEST(ModelRegistry, EntriesAreConsistent) {
  std::set<std::string> names;
  for (const RegistryModel& m : registry_models()) {
    EXPECT_TRUE(names.insert(m.name).second) << m.name;
    EXPECT_FALSE(m.hf_repo.empty()) << m.name;
    EXPECT_FALSE(m.ct2_repo.empty()) << m.name;
    EXPECT_EQ(m.n_vocab == 51864, m.name.ends_with(".en")) << m.name;
    for (const auto& [layer, head] : m.alignment_heads) {
      EXPECT_LT(layer, m.n_text_layer) << m.name;
      EXPECT_LT(head, m.n_state / 64) << m.name;
    }
  }
}

TEST(ModelRegistry, DefaultAlignmentHeads) {
  ModelDims d;
  d.n_mels = 80;
  d.n_vocab = 51864;
  d.n_audio_state = d.n_text_state = 384;
  d.n_audio_layer = d.n_text_layer = 4;
  d.n_audio_head = d.n_text_head = 6;
  EXPECT_EQ(default_alignment_heads(d), registry_model("tiny.en").alignment_heads);
  // large-v1 and large-v2 share their dims: openai's default rule (last half of the layers, all heads).
  d.n_vocab = 51865;
  d.n_audio_state = d.n_text_state = 1280;
  d.n_audio_layer = d.n_text_layer = 32;
  d.n_text_head = 20;
  const auto heads = default_alignment_heads(d);
  EXPECT_EQ(heads.size(), 16u * 20u);
  EXPECT_EQ(heads.front(), (std::pair<int, int>{16, 0}));
}

}  // namespace
}  // namespace auris
