// The form fields of OpenAI's transcription request: defaults as the CLI's, every value checked with
// a 400 naming the field.
#include "server/transcription_form.h"

#include <gtest/gtest.h>

#include "server/http_error.h"

namespace auris::server {
namespace {

TranscriptionForm parse(const FormFields& fields, bool translate = false, bool multilingual = true) {
  return parse_transcription_form(fields, translate, multilingual, "vad.bin");
}

// The status and field of the HttpError that parsing throws.
std::pair<int, std::string> refusal(const FormFields& fields, bool multilingual = true) {
  try {
    parse(fields, false, multilingual);
  } catch (const HttpError& e) {
    EXPECT_FALSE(std::string(e.what()).empty());
    return {e.status(), e.param()};
  }
  return {0, ""};
}

TEST(TranscriptionForm, DefaultsAreTheCommandLinesBeamFiveWithOpenaisFallbackSchedule) {
  const TranscriptionForm form = parse({{"model", {"tiny.en"}}});
  EXPECT_EQ(form.model, "tiny.en");
  EXPECT_EQ(form.format, ResponseFormat::kJson);
  EXPECT_FALSE(form.stream);
  EXPECT_EQ(form.options.decoding.task, "transcribe");
  EXPECT_FALSE(form.options.decoding.language);
  EXPECT_EQ(form.options.decoding.beam_size, 5);
  EXPECT_EQ(form.options.temperatures, (std::vector<double>{0.0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0}));
  EXPECT_FALSE(form.options.word_timestamps);
  EXPECT_FALSE(form.options.vad);
  EXPECT_FALSE(form.options.initial_prompt);
  EXPECT_FALSE(form.options.hotwords);
}

TEST(TranscriptionForm, ReadsEveryField) {
  const TranscriptionForm form = parse({{"response_format", {"verbose_json"}},
                                        {"language", {"de"}},
                                        {"prompt", {"Glossary: Kubernetes"}},
                                        {"hotwords", {"Kubernetes, kubectl"}},
                                        {"temperature", {"0.5"}},
                                        {"timestamp_granularities[]", {"segment", "word"}},
                                        {"beam_size", {"1"}},
                                        {"vad_filter", {"true"}},
                                        {"vad_threshold", {"0.6"}},
                                        {"vad_min_silence_duration_ms", {"500"}}},
                                       /*translate=*/true);
  EXPECT_EQ(form.format, ResponseFormat::kVerboseJson);
  EXPECT_EQ(form.options.decoding.task, "translate");
  EXPECT_EQ(form.options.decoding.language, "de");
  EXPECT_EQ(form.options.initial_prompt, TextOrTokens("Glossary: Kubernetes"));
  EXPECT_EQ(form.options.hotwords, "Kubernetes, kubectl");
  EXPECT_EQ(form.options.temperatures, (std::vector<double>{0.5, 0.7, 0.8999999999999999}));
  EXPECT_TRUE(form.options.word_timestamps);
  EXPECT_FALSE(form.options.decoding.beam_size) << "beam_size 1 is greedy, as in faster-whisper";
  ASSERT_TRUE(form.options.vad);
  EXPECT_EQ(form.options.vad->model, "vad.bin");
  EXPECT_DOUBLE_EQ(form.options.vad->threshold, 0.6);
  EXPECT_EQ(form.options.vad->min_silence_duration_ms, 500);
  EXPECT_DOUBLE_EQ(form.options.vad->max_speech_duration_s, 30.0) << "the batched pipeline's chunks";
  EXPECT_EQ(parse({{"language", {"English"}}}).options.decoding.language, "en") << "names as openai takes them";
  EXPECT_TRUE(parse({{"stream", {"true"}}, {"response_format", {"text"}}}).stream);
}

// OpenAI's chunking_strategy picks the speech with the VAD: "auto" with the batched pipeline's
// defaults, a server_vad object with a realtime session's turn detection fields, as the openai
// client sends it (one field each) or as one JSON text. keywords[] are hotwords.
TEST(TranscriptionForm, ChunkingStrategyAndKeywordsAreOpenais) {
  const TranscriptionForm automatic = parse({{"chunking_strategy", {"auto"}}});
  ASSERT_TRUE(automatic.options.vad);
  EXPECT_EQ(automatic.options.vad->model, "vad.bin");
  EXPECT_EQ(automatic.options.vad->min_silence_duration_ms, parse({{"vad_filter", {"true"}}}).options.vad->min_silence_duration_ms);
  for (const FormFields& fields : {FormFields{{"chunking_strategy[type]", {"server_vad"}},
                                              {"chunking_strategy[threshold]", {"0.4"}},
                                              {"chunking_strategy[prefix_padding_ms]", {"300"}},
                                              {"chunking_strategy[silence_duration_ms]", {"700"}}},
                                   FormFields{{"chunking_strategy", {R"({"type": "server_vad", "threshold": 0.4,
                                              "prefix_padding_ms": 300, "silence_duration_ms": 700})"}}}}) {
    const TranscriptionForm form = parse(fields);
    ASSERT_TRUE(form.options.vad);
    EXPECT_DOUBLE_EQ(form.options.vad->threshold, 0.4);
    EXPECT_EQ(form.options.vad->speech_pad_ms, 300);
    EXPECT_EQ(form.options.vad->min_silence_duration_ms, 700);
    EXPECT_DOUBLE_EQ(form.options.vad->max_speech_duration_s, 30.0);
  }
  EXPECT_FALSE(parse({}).options.vad);
  EXPECT_EQ(parse({{"keywords[]", {"Kubernetes", "kubectl"}}}).options.hotwords, "Kubernetes, kubectl");

  using R = std::pair<int, std::string>;
  EXPECT_EQ(refusal({{"chunking_strategy", {"manual"}}}), R(400, "chunking_strategy"));
  EXPECT_EQ(refusal({{"chunking_strategy", {R"({"type": "semantic_vad"})"}}}), R(400, "chunking_strategy"));
  EXPECT_EQ(refusal({{"chunking_strategy[type]", {"server_vad"}}, {"chunking_strategy[threshold]", {"1.5"}}}),
            R(400, "chunking_strategy"));
  EXPECT_EQ(refusal({{"chunking_strategy[type]", {"server_vad"}}, {"chunking_strategy[eagerness]", {"high"}}}),
            R(400, "chunking_strategy"));
  EXPECT_EQ(refusal({{"chunking_strategy", {"auto"}}, {"vad_filter", {"true"}}}), R(400, "chunking_strategy"));
  EXPECT_EQ(refusal({{"keywords[]", {"a"}}, {"hotwords", {"b"}}}), R(400, "keywords[]"));
  EXPECT_EQ(refusal({{"keywords[]", {"\xff"}}}), R(400, "keywords[]"));
  // What a fuzzer sent: an empty object, names half in brackets, both forms at once, a NUL, and
  // fractions of a millisecond.
  EXPECT_EQ(refusal({{"chunking_strategy", {"{}"}}}), R(400, "chunking_strategy"));
  for (const char* name : {"chunking_strategy[type", "chunking_strategy[]", "chunking_strategy[[type]]"})
    EXPECT_EQ(refusal({{name, {"server_vad"}}}), R(400, "chunking_strategy")) << name;
  EXPECT_EQ(refusal({{"chunking_strategy", {"auto"}}, {"chunking_strategy[type]", {"server_vad"}}}), R(400, "chunking_strategy"));
  EXPECT_EQ(refusal({{"chunking_strategy", {std::string("auto\0junk", 9)}}}), R(400, "chunking_strategy"));
  // Nested as deep as a field's 64 KiB allow: printing it back in a message would recurse that deep.
  try {
    parse({{"chunking_strategy", {R"({"type": )" + std::string(32000, '[') + std::string(32000, ']') + "}"}}});
    ADD_FAILURE() << "parsed";
  } catch (const HttpError& e) {
    EXPECT_EQ(R(e.status(), e.param()), R(400, "chunking_strategy"));
    EXPECT_NE(std::string(e.what()).find("nested deeper than 64 levels"), std::string::npos) << e.what();
  }
  EXPECT_EQ(refusal({{"chunking_strategy[type]", {"server_vad"}}, {"chunking_strategy[prefix_padding_ms]", {"300.5"}}}),
            R(400, "chunking_strategy"));
  EXPECT_EQ(parse({{"keywords", {"Kubernetes"}}, {"keywords[]", {" ", "kubectl"}}}).options.hotwords, "kubectl, Kubernetes")
      << "keywords[] first, then keywords; blank ones skipped";
}

TEST(TranscriptionForm, EveryBadValueIsA400NamingItsField) {
  using R = std::pair<int, std::string>;
  EXPECT_EQ(refusal({{"response_format", {"docx"}}}), R(400, "response_format"));
  EXPECT_EQ(refusal({{"language", {"xx"}}}), R(400, "language"));
  EXPECT_EQ(refusal({{"language", {"de"}}}, /*multilingual=*/false), R(400, "language"));
  EXPECT_EQ(refusal({{"temperature", {"-1"}}}), R(400, "temperature"));
  EXPECT_EQ(refusal({{"temperature", {"1.5"}}}), R(400, "temperature"));
  EXPECT_EQ(refusal({{"temperature", {"warm"}}}), R(400, "temperature"));
  EXPECT_EQ(refusal({{"temperature", {"nan"}}}), R(400, "temperature"));
  EXPECT_EQ(refusal({{"beam_size", {"0"}}}), R(400, "beam_size"));
  EXPECT_EQ(refusal({{"beam_size", {"2.5"}}}), R(400, "beam_size"));
  EXPECT_EQ(refusal({{"beam_size", {"1000000"}}}), R(400, "beam_size"));
  EXPECT_EQ(refusal({{"timestamp_granularities[]", {"letter"}}}), R(400, "timestamp_granularities[]"));
  EXPECT_EQ(refusal({{"stream", {"maybe"}}}), R(400, "stream"));
  EXPECT_EQ(refusal({{"stream", {"true"}}, {"response_format", {"srt"}}}), R(400, "stream"));
  EXPECT_EQ(refusal({{"vad_filter", {"true"}}, {"vad_threshold", {"2"}}}), R(400, "vad_threshold"));
  EXPECT_EQ(refusal({{"vad_filter", {"true"}}, {"vad_speech_pad_ms", {"-5"}}}), R(400, "vad_speech_pad_ms"));
  EXPECT_EQ(refusal({{"vad_filter", {"true"}}, {"vad_threshold", {"0.3"}}, {"vad_neg_threshold", {"0.4"}}}),
            R(400, "vad_neg_threshold"));
  try {
    parse({{"temperature", {"-1"}}});
  } catch (const HttpError& e) {
    EXPECT_EQ(std::string(e.what()), "temperature: -1 is out of range: it must be 0 to 1");
    EXPECT_EQ(e.type(), "invalid_request_error");
    EXPECT_EQ(error_json(e),
              R"({"error":{"code":"invalid_value","message":"temperature: -1 is out of range: it must be 0 to 1",)"
              R"("param":"temperature","type":"invalid_request_error"}})");
  }
}

}  // namespace
}  // namespace auris::server
