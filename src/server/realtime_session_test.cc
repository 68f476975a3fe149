// RealtimeSession with tiny.en, without a socket: the events OpenAI's realtime transcription
// sessions send, in their order, for a committed buffer and for server_vad turns; the transcript
// against the offline one; and every bad client event answered with an error event while the
// session goes on. The WebSocket around it is tested end to end in tests/server/test_realtime.py.
#include "server/realtime_session.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <set>
#include <stdexcept>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "auris/audio.h"
#include "auris/error.h"
#include "auris/text.h"
#include "server/realtime_events_for_tests.h"
#include "test_support.h"
#include "vad/vad_fixtures_for_tests.h"

namespace auris::server {
namespace {

using nlohmann::json;
constexpr int kRate = 16000;
const char* const kJfk =
    "And so, my fellow Americans, ask not what your country can do for you, ask what you can do for your country.";

// The events a session sent, in order.
class Events {
 public:
  RealtimeSession::Send sink() {
    return [this](std::string event) {
      std::lock_guard lock(mutex_);
      events_.push_back(json::parse(event));
      changed_.notify_all();
    };
  }
  // Waits until `count` events of `type` have been sent; returns every event so far.
  std::vector<json> wait_for(const std::string& type, size_t count = 1) {
    std::unique_lock lock(mutex_);
    const bool arrived = changed_.wait_for(lock, std::chrono::seconds(120), [&] { return count_of(type) >= count; });
    EXPECT_TRUE(arrived) << "no " << type;
    return events_;
  }
  std::vector<json> all() {
    std::lock_guard lock(mutex_);
    return events_;
  }

 private:
  size_t count_of(const std::string& type) const {
    size_t n = 0;
    for (const json& e : events_) n += e.at("type") == type;
    return n;
  }
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<json> events_;
};

class RealtimeSessionTest : public test::TinyEnSuite {
 protected:
  void SetUp() override {
    TinyEnSuite::SetUp();
    if (IsSkipped()) return;
    environment_.find_model = [](const std::string& name) {
      // A host that breaks find_model's contract (auris::Error for a name not served).
      if (name == "broken-host") throw std::runtime_error("the host's model table is gone");
      if (!name.empty() && name != "whisper-1" && name != "tiny.en") throw Error("the model '" + name + "' is not served here");
      return std::make_pair(std::string("tiny.en"), model_);
    };
    environment_.vad_model = test::vad_model_file(data_);
    environment_.threads = 1;
  }

  // A session.update for 16-kHz audio/pcm with the given turn detection, decoded greedily (for
  // the tests' time; the default is 5 beams).
  static std::string update(const json& turn_detection) {
    return json{{"type", "session.update"},
                {"session",
                 {{"type", "transcription"},
                  {"audio",
                   {{"input",
                     {{"format", {{"type", "audio/pcm"}, {"rate", kRate}}},
                      {"transcription", {{"beam_size", 1}}},
                      {"turn_detection", turn_detection}}}}}}}}
        .dump();
  }

  RealtimeEnvironment environment_;
};

std::vector<json> of_type(const std::vector<json>& events, const std::string& type) {
  std::vector<json> out;
  for (const json& e : events)
    if (e.at("type") == type) out.push_back(e);
  return out;
}

TEST_F(RealtimeSessionTest, ACommittedBufferIsTranscribedAsDeltasThenCompleted) {
  Events events;
  RealtimeSession session(environment_, events.sink());
  session.receive(update(nullptr));
  for (const std::string& e : test::append_events(load_audio(data_ + "/audio/jfk.flac"), kRate / 10)) session.receive(e);
  session.receive(R"({"type": "input_audio_buffer.commit", "event_id": "c1"})");
  const std::vector<json> all = events.wait_for("conversation.item.input_audio_transcription.completed");

  ASSERT_GE(all.size(), 5u);
  EXPECT_EQ(all[0].at("type"), "session.created");
  EXPECT_EQ(all[0].at("session").at("audio").at("input").at("transcription").at("model"), "tiny.en");
  EXPECT_EQ(all[0].at("session").at("audio").at("input").at("transcription").at("beam_size"), 5);
  EXPECT_EQ(all[1].at("type"), "session.updated");
  EXPECT_TRUE(all[1].at("session").at("audio").at("input").at("turn_detection").is_null());
  const std::vector<json> deltas = of_type(all, "conversation.item.input_audio_transcription.delta");
  ASSERT_FALSE(deltas.empty());
  const json completed = all.back();
  const json committed = all[all.size() - 2];
  EXPECT_EQ(committed.at("type"), "input_audio_buffer.committed");
  const std::string item = completed.at("item_id");
  EXPECT_EQ(committed.at("item_id"), item);
  std::string joined;
  for (const json& d : deltas) {
    EXPECT_EQ(d.at("item_id"), item);
    joined += d.at("delta").get<std::string>();
  }
  EXPECT_EQ(joined, completed.at("transcript"));
  EXPECT_EQ(normalize_english(completed.at("transcript").get<std::string>()), normalize_english(kJfk));
  EXPECT_NEAR(completed.at("usage").at("seconds").get<double>(), 11.0, 0.1);
  std::set<std::string> ids;
  for (const json& e : all) EXPECT_TRUE(ids.insert(e.at("event_id")).second) << "event ids are unique";
}

TEST_F(RealtimeSessionTest, ServerVadMakesAnItemOfEachTurn) {
  // jfk (its pauses end turns too), 4 s of silence, then its first 3 s again.
  std::vector<float> audio = load_audio(data_ + "/audio/jfk.flac");
  const double first_end = audio.size() / double(kRate);
  audio.insert(audio.end(), 4 * kRate, 0.0f);
  const std::vector<float> again = load_audio(data_ + "/audio/jfk.flac");
  audio.insert(audio.end(), again.begin(), again.begin() + 3 * kRate);
  audio.insert(audio.end(), kRate, 0.0f);

  Events events;
  RealtimeSession session(environment_, events.sink());
  session.receive(update({{"type", "server_vad"}}));  // OpenAI's defaults: 500 ms of silence ends a turn
  for (const std::string& e : test::append_events(audio, kRate / 10)) session.receive(e);
  session.finish();
  const std::vector<json> all = events.all();

  // Each item: speech_started, its deltas, speech_stopped, committed, completed, in that order.
  std::string open, previous;
  std::vector<std::string> transcripts;
  for (const json& e : all) {
    const std::string type = e.at("type");
    if (type == "input_audio_buffer.speech_started") {
      EXPECT_EQ(open, "") << "a turn starts while another is open";
      open = e.at("item_id");
      const double start = e.at("audio_start_ms").get<double>() / 1000;
      EXPECT_FALSE(start > first_end + 0.5 && start < first_end + 3.5) << "a turn started in the silence, at " << start;
    } else if (type == "conversation.item.input_audio_transcription.delta") {
      EXPECT_EQ(e.at("item_id"), open);
    } else if (type == "input_audio_buffer.speech_stopped") {
      EXPECT_EQ(e.at("item_id"), open);
    } else if (type == "input_audio_buffer.committed") {
      EXPECT_EQ(e.at("item_id"), open);
      EXPECT_EQ(e.at("previous_item_id"), previous.empty() ? json(nullptr) : json(previous));
    } else if (type == "conversation.item.input_audio_transcription.completed") {
      EXPECT_EQ(e.at("item_id"), open);
      previous = open;
      open.clear();
      transcripts.push_back(e.at("transcript"));
    }
  }
  EXPECT_EQ(open, "");
  ASSERT_GE(transcripts.size(), 2u);
  std::string text;
  for (const std::string& t : transcripts) text += " " + t;
  // Short turns decoded live with tiny.en: close to the reference, not word for word (one word
  // wrong in 27 would be 0.037).
  EXPECT_LE(word_error_rate({std::string(kJfk) + " And so my fellow Americans"}, {text}).rate, 0.08) << text;
}

TEST_F(RealtimeSessionTest, BadEventsGetErrorsAndTheSessionGoesOn) {
  Events events;
  RealtimeSession session(environment_, events.sink());
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"not json", "invalid_json"},
      {"[1, 2]", "invalid_json"},
      {R"({"event_id": "e"})", "missing_type"},
      {R"({"type": "response.create"})", "unsupported_event"},
      {R"({"type": "input_audio_buffer.append"})", "missing_audio"},
      {R"({"type": "input_audio_buffer.append", "audio": "%%% not base64"})", "invalid_audio"},
      {R"({"type": "input_audio_buffer.commit"})", "input_audio_buffer_commit_empty"},
      {R"({"type": "session.update", "session": {"type": "realtime"}})", "invalid_value"},
      {R"({"type": "session.update", "session": {"audio": {"input": {"transcription": {"model": "large-v3"}}}}})", "model_not_found"},
      {R"({"type": "session.update", "session": {"audio": {"input": {"transcription": {"model": "broken-host"}}}}})", "server_error"},
      {R"({"type": "session.update", "session": {"audio": {"input": {"transcription": {"language": "klingon"}}}}})", "invalid_value"},
      {R"({"type": "session.update", "session": {"audio": {"input": {"transcription": {"beam_size": 0}}}}})", "invalid_value"},
      {R"({"type": "session.update", "session": {"audio": {"input": {"turn_detection": {"type": "semantic_vad"}}}}})", "invalid_value"},
      {R"({"type": "session.update", "session": {"audio": {"input": {"format": {"type": "audio/opus"}}}}})", "invalid_value"},
      {R"({"type": "session.update", "session": {"audio": {"input": {"format": {"type": "audio/pcm", "rate": 192000}}}}})", "invalid_value"},
      {R"({"type": "session.update", "session": {"include": ["item.input_audio_transcription.logprobs"]}})", "invalid_value"},
      {R"({"type": "transcription_session.update", "session": {"input_audio_format": "opus"}})", "invalid_value"},
      // Nested deeper than the stack could print it back in an error message (a message may be 16 MiB).
      {R"({"type": "session.update", "session": {"include": [)" + std::string(1000000, '[') + std::string(1000000, ']') + "]}}",
       "invalid_json"},
      // A megabyte-long string left open: the message quotes it cut short.
      {R"({"type": ")" + std::string(1000000, 'a'), "invalid_json"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& [event, code] = cases[i];
    session.receive(event);
    // One at a time: the commit's error comes from the worker, the others at once.
    const std::vector<json> errors = of_type(events.wait_for("error", i + 1), "error");
    ASSERT_FALSE(errors.empty());
    EXPECT_EQ(errors.back().at("error").at("code"), code) << event.substr(0, 200);
    EXPECT_EQ(errors.back().at("error").at("type"), code == "server_error" ? "server_error" : "invalid_request_error");
    const std::string message = errors.back().at("error").at("message").get<std::string>();
    EXPECT_FALSE(message.empty());
    EXPECT_LT(message.size(), 1000u) << message.substr(0, 1000);
  }

  // The session still works, with its settings as before the refused updates.
  session.receive(update(nullptr));
  for (const std::string& e : test::append_events(load_audio(data_ + "/audio/jfk.flac"), kRate)) session.receive(e);
  session.receive(R"({"type": "input_audio_buffer.commit"})");
  const std::vector<json> all = events.wait_for("conversation.item.input_audio_transcription.completed");
  EXPECT_EQ(normalize_english(all.back().at("transcript").get<std::string>()), normalize_english(kJfk));
}

TEST_F(RealtimeSessionTest, AudioFasterThanItIsDecodedIsRefusedPastTheBacklog) {
  environment_.max_backlog_seconds = 2;
  Events events;
  RealtimeSession session(environment_, events.sink());
  session.receive(update(nullptr));
  const std::vector<float> audio = load_audio(data_ + "/audio/jfk.flac");
  for (const std::string& e : test::append_events(audio, audio.size())) session.receive(e);  // 11 s at once
  const std::vector<json> errors = of_type(events.wait_for("error"), "error");
  EXPECT_EQ(errors.front().at("error").at("code"), "input_audio_buffer_full");
  // The chunk alone is over the limit: the message says so, not "0 s wait already".
  EXPECT_NE(errors.front().at("error").at("message").get<std::string>().find("this chunk holds 11 s"), std::string::npos)
      << errors.front().dump();
}

TEST_F(RealtimeSessionTest, FinishCompletesTheItemUnderWay) {
  Events events;
  RealtimeSession session(environment_, events.sink());
  session.receive(update(nullptr));
  for (const std::string& e : test::append_events(load_audio(data_ + "/audio/jfk.flac"), kRate / 2)) session.receive(e);
  session.finish();
  const std::vector<json> completed = of_type(events.all(), "conversation.item.input_audio_transcription.completed");
  ASSERT_EQ(completed.size(), 1u);
  EXPECT_EQ(normalize_english(completed[0].at("transcript").get<std::string>()), normalize_english(kJfk));
}

}  // namespace
}  // namespace auris::server
