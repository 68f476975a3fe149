#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "model/bpe_merges.h"
#include "model/model_json.h"
#include "model/model_loader.h"
#include "model/model_test_util.h"
#include "test_support.h"
#include "util/mapped_file.h"

namespace fs = std::filesystem;

namespace auris {
namespace {

// The side files carry what Transformers needs, with the ids openai/whisper-tiny's own files have.
TEST(HuggingFaceWriter, ConfigMatchesRealWhisperTinyFields) {
  AURIS_REQUIRE_SHARED_DATA(data);
  const std::string real = data + "/tokenizer/hf-whisper-tiny";
  ModelData m = test::synthetic_model(51865);
  ModelDims& d = m.dims;
  d.n_audio_state = d.n_text_state = 384;
  d.n_audio_head = d.n_text_head = 6;
  d.n_audio_layer = d.n_text_layer = 4;
  d.alignment_heads = {{2, 2}, {3, 0}, {3, 2}, {3, 3}, {3, 4}, {3, 5}};
  WeightMap weights;
  for (const WeightSpec& spec : expected_weights(d)) weights.put(spec.name, Tensor(spec.shape));
  m.weights = weights;
  const std::string dir = test::temp_dir();
  write_huggingface(m, dir, true);

  const nlohmann::json mine = read_json_file(dir + "/config.json"), theirs = read_json_file(real + "/config.json");
  for (const char* key : {"d_model", "encoder_layers", "encoder_attention_heads", "encoder_ffn_dim", "decoder_layers",
                          "decoder_attention_heads", "decoder_ffn_dim", "num_mel_bins", "vocab_size", "max_source_positions",
                          "max_target_positions", "bos_token_id", "eos_token_id", "pad_token_id", "decoder_start_token_id",
                          "model_type", "architectures", "activation_function", "scale_embedding"})
    EXPECT_EQ(mine[key], theirs[key]) << key;
  const nlohmann::json gen = read_json_file(dir + "/generation_config.json"),
                       real_gen = read_json_file(real + "/generation_config.json");
  for (const char* key : {"alignment_heads", "no_timestamps_token_id", "task_to_id", "decoder_start_token_id", "eos_token_id",
                          "is_multilingual", "begin_suppress_tokens"})
    EXPECT_EQ(gen[key], real_gen[key]) << key;
  const nlohmann::json vocab = read_json_file(dir + "/vocab.json");
  EXPECT_EQ(vocab["<|endoftext|>"], 50257);
  EXPECT_EQ(vocab["\xc4\x80"], 0);  // byte 0 in GPT-2 unicode form ("Ā"), id 0 in the synthetic vocabulary
  EXPECT_EQ(vocab["!"], 33);
}

// Merges recovered from the multilingual vocabulary equal the merges.txt Hugging Face ships.
TEST(HuggingFaceWriter, DerivedMergesMatchRealMergesFile) {
  AURIS_REQUIRE_SHARED_DATA(data);
  AURIS_REQUIRE_MODEL(base, "base");
  const ModelData m = load_ctranslate2(base);
  const std::string dir = test::temp_dir();
  write_huggingface(m, dir, true);
  const std::string mine = read_text_file(dir + "/merges.txt");
  const std::string theirs = read_text_file(data + "/tokenizer/hf-whisper-tiny/merges.txt");
  EXPECT_EQ(mine.substr(0, 40), theirs.substr(0, 40));
  EXPECT_TRUE(mine == theirs || mine + "\n" == theirs || mine == theirs + "\n") << mine.size() << " vs " << theirs.size();
}

TEST(BpeMerges, RecoversMergesFromRanks) {
  // Bytes, then "ab" (a+b), "abc" (ab+c), "cab" (c+ab) by rank.
  std::vector<std::string> vocab = {"a", "b", "c", "ab", "abc", "cab"};
  const auto merges = derive_bpe_merges(vocab);
  ASSERT_EQ(merges.size(), 3u);
  EXPECT_EQ(merges[0], (std::pair<std::string, std::string>{"a", "b"}));
  EXPECT_EQ(merges[1], (std::pair<std::string, std::string>{"ab", "c"}));
  EXPECT_EQ(merges[2], (std::pair<std::string, std::string>{"c", "ab"}));
}

}  // namespace
}  // namespace auris
