// The C API's thread rules (include/auris/auris.h): threads share one auris_model and transcribe with
// it at once, each call independent, and each thread has its own auris_last_error(). scripts/test.sh
// runs this file under ThreadSanitizer too (the *_concurrency_test.cc files).
#include <gtest/gtest.h>

#include <future>
#include <string>
#include <thread>
#include <vector>

#include "auris/audio.h"
#include "auris/auris.h"
#include "test_support.h"

namespace auris {
namespace {

// The text of a greedy, single-threaded transcription ("" and a test failure if it fails).
std::string transcribe(const auris_model* model, const std::vector<float>& samples) {
  auris_transcribe_options options;
  auris_transcribe_options_init(&options);
  options.beam_size = 0;  // greedy: one encoder pass and a few steps, bearable under TSan
  options.threads = 1;
  auris_result* result = nullptr;
  const auris_status status = auris_transcribe_pcm(model, samples.data(), samples.size(), 16000, &options, &result);
  EXPECT_EQ(status, AURIS_OK) << auris_last_error();
  const std::string text = result ? auris_result_text(result) : "";
  auris_result_free(result);
  return text;
}

TEST(CApiConcurrency, ThreadsShareAModelAndKeepTheirOwnErrors) {
  AURIS_REQUIRE_SHARED_DATA(data);
  AURIS_REQUIRE_MODEL(path, "tiny.en");
  auris_status status = AURIS_INTERNAL_ERROR;
  auris_model* model = auris_model_load(path.c_str(), nullptr, nullptr, &status);
  ASSERT_NE(model, nullptr) << auris_last_error();
  const std::vector<float> jfk = load_audio(data + "/audio/jfk.flac");

  std::promise<void> failed;
  std::string text_a;
  std::thread a([&] {
    auris_transcribe_options options;
    auris_transcribe_options_init(&options);
    options.language = "klingon";
    auris_result* result = nullptr;
    EXPECT_EQ(auris_transcribe_pcm(model, jfk.data(), jfk.size(), 16000, &options, &result), AURIS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(auris_last_error()).find("klingon"), std::string::npos) << auris_last_error();
    failed.set_value();
    text_a = transcribe(model, jfk);  // at the same time as b's
  });
  std::string text_b;
  std::thread b([&] {
    failed.get_future().wait();
    EXPECT_STREQ(auris_last_error(), "") << "b sees a's message";
    text_b = transcribe(model, jfk);
  });
  a.join();
  b.join();
  EXPECT_NE(text_a.find("ask not what your country can do for you"), std::string::npos) << text_a;
  EXPECT_EQ(text_a, text_b);
  auris_model_free(model);
}

}  // namespace
}  // namespace auris
