// RealtimeSession's two threads (ThreadSanitizer runs this): client events parsed and queued on the
// caller's thread while the worker decodes and sends; the send callback called from both; a session
// destroyed while its worker decodes. Its protocol is tested in realtime_session_test.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <set>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "auris/audio.h"
#include "server/realtime_events_for_tests.h"
#include "server/realtime_session.h"
#include "test_support.h"

namespace auris::server {
namespace {

using nlohmann::json;

TEST(RealtimeSessionConcurrency, EventsQueueWhileTheWorkerDecodesAndADecodingSessionCanGo) {
  const std::string path = test::cached_model("tiny.en");
  const std::string data = test::shared_data_dir();
  if (path.empty() || data.empty()) GTEST_SKIP() << "needs tiny.en (scripts/fetch_models.sh) and ../shared/data";
  const std::shared_ptr<const Model> model = Model::load(path);
  std::vector<float> audio = load_audio(data + "/audio/jfk.flac");
  audio.resize(2 * 16000);  // "And so my fellow": short, for ThreadSanitizer's pace

  RealtimeEnvironment environment;
  environment.find_model = [&](const std::string&) { return std::make_pair(std::string("tiny.en"), model); };
  environment.threads = 1;
  std::mutex mutex;
  std::vector<json> events;
  std::atomic<int> completed{0};
  auto send = [&](std::string event) {
    json e = json::parse(event);
    completed += e.at("type") == "conversation.item.input_audio_transcription.completed";
    std::lock_guard lock(mutex);
    events.push_back(std::move(e));
  };
  {
    RealtimeSession session(environment, send);
    session.receive(R"({"type": "session.update", "session": {"audio": {"input": {"format": {"type": "audio/pcm", "rate": 16000},
        "transcription": {"beam_size": 1}, "turn_detection": null}}}})");
    for (const std::string& event : test::append_events(audio, 1600)) {
      session.receive(event);
      session.receive("not json");  // an error sent from this thread while the worker sends
    }
    session.receive(R"({"type": "input_audio_buffer.commit"})");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(10);
    while (completed == 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_EQ(completed, 1);
    // More audio, and the session goes while its worker decodes it.
    for (const std::string& e : test::append_events(audio, 4000)) session.receive(e);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::lock_guard lock(mutex);
  std::set<std::string> ids;
  for (const json& e : events) EXPECT_TRUE(ids.insert(e.at("event_id")).second) << "event ids are unique across threads";
}

}  // namespace
}  // namespace auris::server
