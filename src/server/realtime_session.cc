#include "server/realtime_session.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>
#include <vector>

#include "auris/error.h"
#include "auris/stream.h"
#include "server/realtime_audio.h"
#include "server/realtime_session_config.h"
#include "util/bounded_json.h"
#include "util/shown_text.h"

namespace auris::server {
namespace {

using nlohmann::json;

constexpr double kEngineRate = 16000.0;
// Audio is pushed in pieces of this much, so that each utterance the VAD closes is reported before
// the next one's audio comes.
constexpr size_t kPieceSamples = 1600;
// The most queued audio one decode takes: the audio that arrived during a decode is decoded at once
// by the next (as `auris stream` does), so the steps stretch to the decode time instead of the queue
// growing; this bounds the buffer of a session far behind.
constexpr size_t kMaxDrainSamples = 10 * 16000;
// A client event holds a few dozen values; a message of 16 MiB could hold 8 million (270 MB parsed).
constexpr size_t kMaxEventValues = 4096;
// Commits, clears and session updates waiting for the worker.
constexpr long kMaxQueuedCommands = 32;

}  // namespace

struct RealtimeSession::State {
  // What the transport's thread queues for the worker, in the order the client sent it.
  struct Command {
    enum class Kind { kAudio, kCommit, kClear, kConfigure, kFinish } kind;
    std::vector<float> audio;
    RealtimeConfig config;
    std::string client_event_id;
  };

  RealtimeEnvironment env;
  Send send;
  std::string session_id;

  // The transport's thread.
  RealtimeConfig received;  // the configuration as of the last update received
  std::unique_ptr<RealtimeAudioDecoder> decoder;

  std::mutex mutex;
  std::condition_variable changed;
  std::deque<Command> queue;
  double queued_seconds = 0;
  bool stopping = false;  // drop what is queued
  bool finished = false;  // the worker has sent its last event
  std::atomic<int64_t> next_event{0};

  // The worker's.
  RealtimeConfig config;
  std::unique_ptr<StreamingTranscriber> stream;
  double stream_offset = 0;      // session seconds at the stream's first sample
  double session_seconds = 0;    // audio received, in session seconds
  int64_t next_item = 0;
  std::string item_id;           // the item being spoken ("" between items)
  std::string previous_item_id;
  std::string transcript;        // its text so far
  bool item_heard = false;       // the VAD heard it start (speech_started was sent)
  double item_audio = 0;         // session seconds of audio since the last item ended
  double item_last_word_end = 0;
  std::thread worker;

  State(RealtimeEnvironment e, Send s) : env(std::move(e)), send(std::move(s)) {
    static std::atomic<int64_t> sessions{0};
    session_id = "sess_auris_" + std::to_string(++sessions);
    std::tie(received.model_name, received.model) = env.find_model("");
    // Without the VAD model, the session starts without turn detection (session.created says so)
    // rather than not at all; asking for server_vad then gets an error saying how to get it.
    try {
      validate(vad_options(received));
    } catch (const Error&) {
      received.turn_detection.reset();
    }
    decoder = std::make_unique<RealtimeAudioDecoder>(received.format);
    config = received;
    start_stream();
    emit({{"type", "session.created"}, {"session", session_json(config, session_id)}});
    worker = std::thread([this] { work(); });
  }

  void emit(json event) {
    event["event_id"] = "event_" + std::to_string(++next_event);
    send(event.dump(-1, ' ', false, json::error_handler_t::replace));
  }

  void emit_error(const RealtimeEventError& e, const std::string& client_event_id) {
    emit({{"type", "error"},
          {"error",
           {{"type", e.code == "server_error" ? "server_error" : "invalid_request_error"},
            {"code", e.code},
            {"message", e.message},
            {"param", e.param.empty() ? json(nullptr) : json(e.param)},
            {"event_id", client_event_id.empty() ? json(nullptr) : json(client_event_id)}}}});
  }

  void enqueue(Command command) {
    std::lock_guard lock(mutex);
    // Audio is bounded by its seconds (append); the other commands by their count, each holding a
    // configuration and some rebuilding the stream.
    if (command.kind != Command::Kind::kAudio && command.kind != Command::Kind::kFinish &&
        std::count_if(queue.begin(), queue.end(), [](const Command& c) { return c.kind != Command::Kind::kAudio; }) >=
            kMaxQueuedCommands)
      throw RealtimeEventError{"too_many_commands", "",
                               std::to_string(kMaxQueuedCommands) + " commands wait already; this one was dropped. "
                               "Wait for the answers to the ones sent"};
    if (command.kind == Command::Kind::kAudio) queued_seconds += static_cast<double>(command.audio.size()) / kEngineRate;
    queue.push_back(std::move(command));
    changed.notify_all();
  }

  // --- the transport's thread

  void receive(std::string_view message) {
    std::string client_event_id;
    try {
      json event;
      try {
        event = parse_bounded_json(message, kMaxEventValues);
      } catch (const json::exception& e) {
        throw RealtimeEventError{"invalid_json", "", "the event is not valid JSON (" + shown(e.what()) +
                                                         "): send one JSON object per message"};
      }
      if (!event.is_object()) throw RealtimeEventError{"invalid_json", "", "the event must be a JSON object"};
      if (const json* id = json_member(event, "event_id"); id && id->is_string()) client_event_id = id->get<std::string>();
      const json* type_field = json_member(event, "type");
      if (!type_field || !type_field->is_string()) throw RealtimeEventError{"missing_type", "type", "the event has no 'type'"};
      const std::string type = type_field->get<std::string>();
      if (type == "input_audio_buffer.append") {
        append(event);
      } else if (type == "input_audio_buffer.commit") {
        enqueue({Command::Kind::kCommit, {}, {}, client_event_id});
      } else if (type == "input_audio_buffer.clear") {
        enqueue({Command::Kind::kClear, {}, {}, client_event_id});
      } else if (type == "session.update" || type == "transcription_session.update") {
        const json* session = json_member(event, "session");
        if (!session || !session->is_object()) throw RealtimeEventError{"missing_session", "session", "the update has no 'session' object"};
        RealtimeConfig next = received;
        next.beta = type == "transcription_session.update";
        if (next.beta) apply_beta_session(*session, env, next);
        else apply_session(*session, env, next);
        if (next.turn_detection) {
          try {
            validate(vad_options(next));
          } catch (const Error& e) {
            throw RealtimeEventError{"vad_unavailable", "session.audio.input.turn_detection", std::string("server_vad: ") + e.what()};
          }
        }
        if (next.format != received.format) decoder = std::make_unique<RealtimeAudioDecoder>(next.format);
        received = next;
        enqueue({Command::Kind::kConfigure, {}, next, client_event_id});
      } else {
        throw RealtimeEventError{"unsupported_event", "type",
                                 "'" + type + "' is not supported: auris serves transcription sessions (session.update, "
                                 "input_audio_buffer.append, input_audio_buffer.commit, input_audio_buffer.clear)"};
      }
    } catch (const RealtimeEventError& e) {
      emit_error(e, client_event_id);
    } catch (const std::exception& e) {
      // Not the client's fault (memory, the host's find_model): the event fails, the session and the
      // transport's thread go on.
      emit_error({"server_error", "", std::string("the event could not be handled: ") + e.what()}, client_event_id);
    }
  }

  void append(const json& event) {
    const json* audio = json_member(event, "audio");
    if (!audio || !audio->is_string())
      throw RealtimeEventError{"missing_audio", "audio", "input_audio_buffer.append needs 'audio': base64 of the audio"};
    std::vector<float> samples;
    try {
      samples = decoder->decode_base64(audio->get_ref<const std::string&>());
    } catch (const Error& e) {
      throw RealtimeEventError{"invalid_audio", "audio", std::string(e.what()) + ": send base64 of the session's audio format"};
    }
    {
      std::lock_guard lock(mutex);
      const double seconds = static_cast<double>(samples.size()) / kEngineRate;
      if (seconds > env.max_backlog_seconds)
        throw RealtimeEventError{"input_audio_buffer_full", "audio",
                                 "this chunk holds " + std::to_string(static_cast<int>(seconds)) + " s of audio, more than the " +
                                     std::to_string(static_cast<int>(env.max_backlog_seconds)) +
                                     " s a session queues; it was dropped. Send the audio in pieces as it is spoken"};
      if (queued_seconds + seconds > env.max_backlog_seconds)
        throw RealtimeEventError{"input_audio_buffer_full", "audio",
                                 "the audio arrives faster than it is transcribed: " + std::to_string(static_cast<int>(queued_seconds)) +
                                     " s wait already; this chunk was dropped. Send audio at real time"};
    }
    if (!samples.empty()) enqueue({Command::Kind::kAudio, std::move(samples), {}, ""});
  }

  VadParameters vad_options(const RealtimeConfig& c) const {
    VadParameters vad;
    vad.model = env.vad_model;
    vad.threshold = c.turn_detection->threshold;
    vad.min_silence_duration_ms = c.turn_detection->silence_duration_ms;
    vad.speech_pad_ms = c.turn_detection->prefix_padding_ms;
    return vad;
  }

  // --- the worker

  void start_stream() {
    StreamOptions o;
    o.transcribe.decoding.language = config.language;
    if (config.beam_size > 1) o.transcribe.decoding.beam_size = config.beam_size;
    if (!config.prompt.empty()) o.transcribe.initial_prompt = config.prompt;
    if (config.turn_detection) o.vad = vad_options(config);
    stream = std::make_unique<StreamingTranscriber>(config.model, o);
    stream->set_threads(env.threads);
    stream_offset = session_seconds;
  }

  void work() {
    while (true) {
      std::unique_lock lock(mutex);
      changed.wait(lock, [&] { return stopping || !queue.empty(); });
      if (stopping) break;
      Command command = std::move(queue.front());
      queue.pop_front();
      if (command.kind == Command::Kind::kAudio) {
        // With the audio queued after it.
        while (!queue.empty() && queue.front().kind == Command::Kind::kAudio &&
               command.audio.size() + queue.front().audio.size() <= kMaxDrainSamples) {
          command.audio.insert(command.audio.end(), queue.front().audio.begin(), queue.front().audio.end());
          queue.pop_front();
        }
        queued_seconds -= static_cast<double>(command.audio.size()) / kEngineRate;
      }
      lock.unlock();
      try {
        if (!run(command)) break;
      } catch (const std::exception& e) {
        emit_error({"server_error", "", std::string("the transcription failed: ") + e.what()}, command.client_event_id);
        if (command.kind == Command::Kind::kFinish) break;  // the last command, failed or not
      }
    }
    std::lock_guard lock(mutex);
    finished = true;
    changed.notify_all();
  }

  // False after the last command (kFinish).
  bool run(Command& command) {
    switch (command.kind) {
      case Command::Kind::kAudio:
        feed(command.audio);
        return true;
      case Command::Kind::kCommit:
        if (item_audio <= 0) {
          emit_error({"input_audio_buffer_commit_empty", "", "there is no audio to commit: append audio first"}, command.client_event_id);
          return true;
        }
        report(stream->finish(), /*end_item=*/true);
        return true;
      case Command::Kind::kClear:
        // Not-yet-committed audio is dropped; words already sent as deltas stay in their item.
        if (!item_id.empty()) close_item();
        start_stream();
        item_audio = 0;
        emit({{"type", "input_audio_buffer.cleared"}});
        return true;
      case Command::Kind::kConfigure:
        // The item under way is completed under the old settings; the next one starts with the new.
        if (item_audio > 0) report(stream->finish(), /*end_item=*/true);
        config = std::move(command.config);
        start_stream();
        emit({{"type", config.beta ? "transcription_session.updated" : "session.updated"}, {"session", session_json(config, session_id)}});
        return true;
      case Command::Kind::kFinish: {
        const StreamUpdate last = stream->finish();
        // With turn detection, silence after the last turn makes no item.
        if (!item_id.empty() || !last.committed.empty() || (!config.turn_detection && item_audio > 0)) report(last, /*end_item=*/true);
        return false;
      }
    }
    return true;
  }

  // Pushes the audio, then decodes once (if a step's worth is new); an utterance the VAD closes
  // meanwhile is reported at once.
  void feed(const std::vector<float>& audio) {
    for (size_t at = 0; at < audio.size(); at += kPieceSamples) {
      const size_t n = std::min(kPieceSamples, audio.size() - at);
      stream->push(std::span<const float>(audio.data() + at, n));
      session_seconds += static_cast<double>(n) / kEngineRate;
      item_audio += static_cast<double>(n) / kEngineRate;
      const bool last = at + n == audio.size();
      if (stream->utterance_closed() || (last && stream->ready())) report(stream->update(), /*end_item=*/false);
    }
  }

  std::string open_item() {
    if (item_id.empty()) {
      item_id = "item_auris_" + std::to_string(++next_item);
      transcript.clear();
      item_last_word_end = stream_offset;
    }
    return item_id;
  }

  void report(const StreamUpdate& update, bool end_item) {
    if (update.speech_started) {
      if (!item_id.empty() && config.turn_detection) close_item();
      emit({{"type", "input_audio_buffer.speech_started"},
            {"audio_start_ms", std::llround((stream_offset + *update.speech_started) * 1000)},
            {"item_id", open_item()}});
      item_heard = true;
    }
    if (!update.committed.empty()) {
      open_item();
      std::string delta;
      for (const Word& w : update.committed) delta += w.word;
      if (transcript.empty()) delta.erase(0, delta.find_first_not_of(' '));
      transcript += delta;
      item_last_word_end = stream_offset + update.committed.back().end;
      emit({{"type", "conversation.item.input_audio_transcription.delta"}, {"item_id", item_id}, {"content_index", 0}, {"delta", delta}});
    }
    if (config.tentative && !update.utterance_ended && (!update.tentative.empty() || !item_id.empty())) {
      std::string text;
      for (const Word& w : update.tentative) text += w.word;
      emit({{"type", "auris.transcription.tentative"}, {"item_id", open_item()}, {"text", text}});
    }
    if (update.utterance_ended && (end_item || config.turn_detection)) {
      open_item();
      if (item_heard)
        emit({{"type", "input_audio_buffer.speech_stopped"}, {"audio_end_ms", std::llround(item_last_word_end * 1000)}, {"item_id", item_id}});
      close_item();
    }
  }

  void close_item() {
    emit({{"type", "input_audio_buffer.committed"},
          {"item_id", item_id},
          {"previous_item_id", previous_item_id.empty() ? json(nullptr) : json(previous_item_id)}});
    emit({{"type", "conversation.item.input_audio_transcription.completed"},
          {"item_id", item_id},
          {"content_index", 0},
          {"transcript", transcript},
          {"usage", {{"type", "duration"}, {"seconds", item_audio}}}});
    previous_item_id = item_id;
    item_id.clear();
    transcript.clear();
    item_heard = false;
    item_audio = 0;
  }
};

RealtimeSession::RealtimeSession(RealtimeEnvironment environment, Send send)
    : state_(std::make_unique<State>(std::move(environment), std::move(send))) {}

RealtimeSession::~RealtimeSession() {
  {
    std::lock_guard lock(state_->mutex);
    state_->stopping = true;
    state_->changed.notify_all();
  }
  state_->worker.join();
}

void RealtimeSession::receive(std::string_view message) { state_->receive(message); }

void RealtimeSession::finish() {
  state_->enqueue({State::Command::Kind::kFinish, {}, {}, ""});
  std::unique_lock lock(state_->mutex);
  state_->changed.wait(lock, [&] { return state_->finished; });
}

}  // namespace auris::server
