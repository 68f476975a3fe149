#include "server/realtime_session.h"

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
#include "tokenizer/languages.h"

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

// A client event the session cannot take: an error event, the session goes on.
struct EventError {
  std::string code, param, message;
};

struct TurnDetection {
  double threshold = 0.5;
  int prefix_padding_ms = 300;
  int silence_duration_ms = 500;
};

struct Config {
  std::string model_name;
  std::shared_ptr<const Model> model;
  std::optional<std::string> language;
  std::string prompt;
  int beam_size = 5;  // auris's field, as the HTTP API's beam_size; 1 decodes greedily
  RealtimeAudioFormat format;
  std::optional<TurnDetection> turn_detection = TurnDetection{};
  bool tentative = false;  // include "auris.tentative": the words not yet agreed on, as events
  bool beta = false;       // the last update was the beta API's transcription_session.update
};

const json* member(const json& object, const char* key) {
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

std::string string_field(const json& object, const char* key, const std::string& param) {
  const json& value = object.at(key);
  if (!value.is_string()) throw EventError{"invalid_type", param, "'" + param + "' must be a string"};
  return value.get<std::string>();
}

double number_field(const json& object, const char* key, const std::string& param, double low, double high) {
  const json& value = object.at(key);
  if (!value.is_number() || !(value.get<double>() >= low && value.get<double>() <= high))
    throw EventError{"invalid_value", param,
                     "'" + param + "' must be a number from " + json(low).dump() + " to " + json(high).dump()};
  return value.get<double>();
}

void apply_transcription(const json& t, const std::string& where, const RealtimeEnvironment& env, Config& c) {
  if (t.is_null()) return;
  if (!t.is_object()) throw EventError{"invalid_type", where, "'" + where + "' must be an object"};
  if (const json* m = member(t, "model"); m && !m->is_null()) {
    const std::string name = string_field(t, "model", where + ".model");
    try {
      std::tie(c.model_name, c.model) = env.find_model(name);
    } catch (const Error& e) {
      throw EventError{"model_not_found", where + ".model", e.what()};
    }
  }
  if (const json* l = member(t, "language")) {
    const std::string language = l->is_null() ? "" : string_field(t, "language", where + ".language");
    if (language.empty()) {
      c.language.reset();
    } else {
      const std::optional<std::string> code = to_language_code(language);
      if (!code)
        throw EventError{"invalid_value", where + ".language",
                         "'" + language + "' is not a language Whisper knows (ISO-639-1 codes: en, de, ...)"};
      c.language = *code;
    }
  }
  if (const json* p = member(t, "prompt")) c.prompt = p->is_null() ? "" : string_field(t, "prompt", where + ".prompt");
  if (const json* b = member(t, "beam_size"); b && !b->is_null()) {
    if (!b->is_number_integer() || b->get<int64_t>() < 1 || b->get<int64_t>() > 16)
      throw EventError{"invalid_value", where + ".beam_size", "'" + where + ".beam_size' must be an integer from 1 (greedy) to 16"};
    c.beam_size = b->get<int>();
  }
}

void apply_turn_detection(const json& t, const std::string& where, Config& c) {
  if (t.is_null()) {
    c.turn_detection.reset();
    return;
  }
  if (!t.is_object()) throw EventError{"invalid_type", where, "'" + where + "' must be an object or null"};
  const std::string type = member(t, "type") ? string_field(t, "type", where + ".type") : "server_vad";
  if (type != "server_vad")
    throw EventError{"invalid_value", where + ".type",
                     "turn detection '" + type + "' is not supported: use server_vad, or null to commit by input_audio_buffer.commit"};
  TurnDetection d = c.turn_detection.value_or(TurnDetection{});
  if (member(t, "threshold")) d.threshold = number_field(t, "threshold", where + ".threshold", 0.01, 1.0);
  if (member(t, "prefix_padding_ms"))
    d.prefix_padding_ms = static_cast<int>(number_field(t, "prefix_padding_ms", where + ".prefix_padding_ms", 0, 10000));
  if (member(t, "silence_duration_ms"))
    d.silence_duration_ms = static_cast<int>(number_field(t, "silence_duration_ms", where + ".silence_duration_ms", 32, 30000));
  c.turn_detection = d;
}

void apply_include(const json& include, Config& c) {
  if (include.is_null()) return;
  if (!include.is_array()) throw EventError{"invalid_type", "session.include", "'session.include' must be an array"};
  c.tentative = false;
  for (const json& item : include) {
    if (item == "auris.tentative") {
      c.tentative = true;
    } else {
      throw EventError{"invalid_value", "session.include",
                       "include " + item.dump() + " is not supported; auris knows \"auris.tentative\" (the words not yet agreed on)"};
    }
  }
}

// The GA API's session.update: {"type": "transcription", "audio": {"input": {...}}, "include": [...]}.
void apply_session(const json& s, const RealtimeEnvironment& env, Config& c) {
  if (const json* type = member(s, "type"); type && *type != "transcription")
    throw EventError{"invalid_value", "session.type",
                     "auris serves transcription sessions: set session.type to \"transcription\", not " + type->dump()};
  if (const json* audio = member(s, "audio"); audio && audio->is_object()) {
    if (const json* input = member(*audio, "input"); input && input->is_object()) {
      if (const json* f = member(*input, "format"); f && !f->is_null()) {
        if (!f->is_object()) throw EventError{"invalid_type", "session.audio.input.format", "the format must be an object"};
        const std::string type = member(*f, "type") ? string_field(*f, "type", "session.audio.input.format.type") : "audio/pcm";
        if (type == "audio/pcm") {
          c.format = {RealtimeAudioFormat::Encoding::kPcm16, 24000};
          if (member(*f, "rate"))
            c.format.rate = static_cast<int>(number_field(*f, "rate", "session.audio.input.format.rate", 8000, 48000));
        } else if (type == "audio/pcmu") {
          c.format = {RealtimeAudioFormat::Encoding::kMuLaw, 8000};
        } else if (type == "audio/pcma") {
          c.format = {RealtimeAudioFormat::Encoding::kALaw, 8000};
        } else {
          throw EventError{"invalid_value", "session.audio.input.format.type",
                           "audio format '" + type + "' is not supported: use audio/pcm, audio/pcmu or audio/pcma"};
        }
      }
      if (const json* t = member(*input, "transcription")) apply_transcription(*t, "session.audio.input.transcription", env, c);
      if (const json* t = member(*input, "turn_detection")) apply_turn_detection(*t, "session.audio.input.turn_detection", c);
    }
  }
  if (const json* include = member(s, "include")) apply_include(*include, c);
}

// The beta API's transcription_session.update.
void apply_beta_session(const json& s, const RealtimeEnvironment& env, Config& c) {
  if (member(s, "input_audio_format")) {
    const std::string format = string_field(s, "input_audio_format", "session.input_audio_format");
    if (format == "pcm16") c.format = {RealtimeAudioFormat::Encoding::kPcm16, 24000};
    else if (format == "g711_ulaw") c.format = {RealtimeAudioFormat::Encoding::kMuLaw, 8000};
    else if (format == "g711_alaw") c.format = {RealtimeAudioFormat::Encoding::kALaw, 8000};
    else
      throw EventError{"invalid_value", "session.input_audio_format",
                       "input_audio_format '" + format + "' is not supported: use pcm16, g711_ulaw or g711_alaw"};
  }
  if (const json* t = member(s, "input_audio_transcription"))
    apply_transcription(*t, "session.input_audio_transcription", env, c);
  if (const json* t = member(s, "turn_detection")) apply_turn_detection(*t, "session.turn_detection", c);
  if (const json* include = member(s, "include")) apply_include(*include, c);
}

json turn_detection_json(const Config& c) {
  if (!c.turn_detection) return nullptr;
  return {{"type", "server_vad"},
          {"threshold", c.turn_detection->threshold},
          {"prefix_padding_ms", c.turn_detection->prefix_padding_ms},
          {"silence_duration_ms", c.turn_detection->silence_duration_ms}};
}

json transcription_json(const Config& c) {
  return {{"model", c.model_name},
          {"language", c.language ? json(*c.language) : json(nullptr)},
          {"prompt", c.prompt},
          {"beam_size", c.beam_size}};
}

json include_json(const Config& c) { return c.tentative ? json::array({"auris.tentative"}) : json::array(); }

json session_json(const Config& c, const std::string& id) {
  if (c.beta) {
    static const char* kBetaFormats[] = {"pcm16", "g711_ulaw", "g711_alaw"};
    return {{"id", id},
            {"object", "realtime.transcription_session"},
            {"input_audio_format", kBetaFormats[static_cast<int>(c.format.encoding)]},
            {"input_audio_transcription", transcription_json(c)},
            {"turn_detection", turn_detection_json(c)},
            {"include", include_json(c)}};
  }
  static const char* kFormats[] = {"audio/pcm", "audio/pcmu", "audio/pcma"};
  json format = {{"type", kFormats[static_cast<int>(c.format.encoding)]}};
  if (c.format.encoding == RealtimeAudioFormat::Encoding::kPcm16) format["rate"] = c.format.rate;
  return {{"type", "transcription"},
          {"id", id},
          {"object", "realtime.transcription_session"},
          {"audio",
           {{"input",
             {{"format", format},
              {"transcription", transcription_json(c)},
              {"turn_detection", turn_detection_json(c)},
              {"noise_reduction", nullptr}}}}},
          {"include", include_json(c)}};
}

}  // namespace

struct RealtimeSession::State {
  // What the transport's thread queues for the worker, in the order the client sent it.
  struct Command {
    enum class Kind { kAudio, kCommit, kClear, kConfigure, kFinish } kind;
    std::vector<float> audio;
    Config config;
    std::string client_event_id;
  };

  RealtimeEnvironment env;
  Send send;
  std::string session_id;

  // The transport's thread.
  Config received;  // the configuration as of the last update received
  std::unique_ptr<RealtimeAudioDecoder> decoder;

  std::mutex mutex;
  std::condition_variable changed;
  std::deque<Command> queue;
  double queued_seconds = 0;
  bool stopping = false;  // drop what is queued
  bool finished = false;  // the worker has sent its last event
  std::atomic<int64_t> next_event{0};

  // The worker's.
  Config config;
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

  void emit_error(const EventError& e, const std::string& client_event_id) {
    emit({{"type", "error"},
          {"error",
           {{"type", "invalid_request_error"},
            {"code", e.code},
            {"message", e.message},
            {"param", e.param.empty() ? json(nullptr) : json(e.param)},
            {"event_id", client_event_id.empty() ? json(nullptr) : json(client_event_id)}}}});
  }

  void enqueue(Command command) {
    std::lock_guard lock(mutex);
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
        event = json::parse(message);
      } catch (const json::exception&) {
        throw EventError{"invalid_json", "", "the event is not valid JSON: send one JSON object per message"};
      }
      if (!event.is_object()) throw EventError{"invalid_json", "", "the event must be a JSON object"};
      if (const json* id = member(event, "event_id"); id && id->is_string()) client_event_id = id->get<std::string>();
      const json* type_field = member(event, "type");
      if (!type_field || !type_field->is_string()) throw EventError{"missing_type", "type", "the event has no 'type'"};
      const std::string type = type_field->get<std::string>();
      if (type == "input_audio_buffer.append") {
        append(event);
      } else if (type == "input_audio_buffer.commit") {
        enqueue({Command::Kind::kCommit, {}, {}, client_event_id});
      } else if (type == "input_audio_buffer.clear") {
        enqueue({Command::Kind::kClear, {}, {}, client_event_id});
      } else if (type == "session.update" || type == "transcription_session.update") {
        const json* session = member(event, "session");
        if (!session || !session->is_object()) throw EventError{"missing_session", "session", "the update has no 'session' object"};
        Config next = received;
        next.beta = type == "transcription_session.update";
        if (next.beta) apply_beta_session(*session, env, next);
        else apply_session(*session, env, next);
        if (next.turn_detection) {
          try {
            validate(vad_options(next));
          } catch (const Error& e) {
            throw EventError{"vad_unavailable", "session.audio.input.turn_detection", std::string("server_vad: ") + e.what()};
          }
        }
        if (next.format != received.format) decoder = std::make_unique<RealtimeAudioDecoder>(next.format);
        received = next;
        enqueue({Command::Kind::kConfigure, {}, next, client_event_id});
      } else {
        throw EventError{"unsupported_event", "type",
                         "'" + type + "' is not supported: auris serves transcription sessions (session.update, "
                         "input_audio_buffer.append, input_audio_buffer.commit, input_audio_buffer.clear)"};
      }
    } catch (const EventError& e) {
      emit_error(e, client_event_id);
    }
  }

  void append(const json& event) {
    const json* audio = member(event, "audio");
    if (!audio || !audio->is_string())
      throw EventError{"missing_audio", "audio", "input_audio_buffer.append needs 'audio': base64 of the audio"};
    std::vector<float> samples;
    try {
      samples = decoder->decode_base64(audio->get_ref<const std::string&>());
    } catch (const Error& e) {
      throw EventError{"invalid_audio", "audio", std::string(e.what()) + ": send base64 of the session's audio format"};
    }
    {
      std::lock_guard lock(mutex);
      const double seconds = static_cast<double>(samples.size()) / kEngineRate;
      if (queued_seconds + seconds > env.max_backlog_seconds)
        throw EventError{"input_audio_buffer_full", "audio",
                         "the audio arrives faster than it is transcribed: " + std::to_string(static_cast<int>(queued_seconds)) +
                             " s wait already; this chunk was dropped. Send audio at real time"};
    }
    if (!samples.empty()) enqueue({Command::Kind::kAudio, std::move(samples), {}, ""});
  }

  VadParameters vad_options(const Config& c) const {
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
