#include "server/realtime_session_config.h"

#include <tuple>

#include "auris/error.h"
#include "tokenizer/languages.h"

namespace auris::server {

using nlohmann::json;

const json* json_member(const json& object, const char* key) {
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

namespace {

std::string string_field(const json& object, const char* key, const std::string& param) {
  const json& value = object.at(key);
  if (!value.is_string()) throw RealtimeEventError{"invalid_type", param, "'" + param + "' must be a string"};
  return value.get<std::string>();
}

double number_field(const json& object, const char* key, const std::string& param, double low, double high) {
  const json& value = object.at(key);
  if (!value.is_number() || !(value.get<double>() >= low && value.get<double>() <= high))
    throw RealtimeEventError{"invalid_value", param,
                             "'" + param + "' must be a number from " + json(low).dump() + " to " + json(high).dump()};
  return value.get<double>();
}

void apply_transcription(const json& t, const std::string& where, const RealtimeEnvironment& env, RealtimeConfig& c) {
  if (t.is_null()) return;
  if (!t.is_object()) throw RealtimeEventError{"invalid_type", where, "'" + where + "' must be an object"};
  if (const json* m = json_member(t, "model"); m && !m->is_null()) {
    const std::string name = string_field(t, "model", where + ".model");
    try {
      std::tie(c.model_name, c.model) = env.find_model(name);
    } catch (const Error& e) {
      throw RealtimeEventError{"model_not_found", where + ".model", e.what()};
    }
  }
  if (const json* l = json_member(t, "language")) {
    const std::string language = l->is_null() ? "" : string_field(t, "language", where + ".language");
    if (language.empty()) {
      c.language.reset();
    } else {
      const std::optional<std::string> code = to_language_code(language);
      if (!code)
        throw RealtimeEventError{"invalid_value", where + ".language",
                                 "'" + language + "' is not a language Whisper knows (ISO-639-1 codes: en, de, ...)"};
      c.language = *code;
    }
  }
  if (const json* p = json_member(t, "prompt")) {
    c.prompt = p->is_null() ? "" : string_field(t, "prompt", where + ".prompt");
    // As an HTTP form field's limit: a prompt fills at most half of the 448-token context anyway.
    if (c.prompt.size() > 65536)
      throw RealtimeEventError{"invalid_value", where + ".prompt", "'" + where + ".prompt' is longer than 64 KiB"};
  }
  if (const json* b = json_member(t, "beam_size"); b && !b->is_null()) {
    if (!b->is_number_integer() || b->get<int64_t>() < 1 || b->get<int64_t>() > 16)
      throw RealtimeEventError{"invalid_value", where + ".beam_size", "'" + where + ".beam_size' must be an integer from 1 (greedy) to 16"};
    c.beam_size = b->get<int>();
  }
}

void apply_turn_detection(const json& t, const std::string& where, RealtimeConfig& c) {
  if (t.is_null()) {
    c.turn_detection.reset();
    return;
  }
  if (!t.is_object()) throw RealtimeEventError{"invalid_type", where, "'" + where + "' must be an object or null"};
  const std::string type = json_member(t, "type") ? string_field(t, "type", where + ".type") : "server_vad";
  if (type != "server_vad")
    throw RealtimeEventError{"invalid_value", where + ".type",
                             "turn detection '" + type + "' is not supported: use server_vad, or null to commit by input_audio_buffer.commit"};
  TurnDetection d = c.turn_detection.value_or(TurnDetection{});
  if (json_member(t, "threshold")) d.threshold = number_field(t, "threshold", where + ".threshold", 0.01, 1.0);
  if (json_member(t, "prefix_padding_ms"))
    d.prefix_padding_ms = static_cast<int>(number_field(t, "prefix_padding_ms", where + ".prefix_padding_ms", 0, 10000));
  if (json_member(t, "silence_duration_ms"))
    d.silence_duration_ms = static_cast<int>(number_field(t, "silence_duration_ms", where + ".silence_duration_ms", 32, 30000));
  c.turn_detection = d;
}

void apply_include(const json& include, RealtimeConfig& c) {
  if (include.is_null()) return;
  if (!include.is_array()) throw RealtimeEventError{"invalid_type", "session.include", "'session.include' must be an array"};
  c.tentative = false;
  for (const json& item : include) {
    if (item == "auris.tentative") {
      c.tentative = true;
    } else {
      throw RealtimeEventError{"invalid_value", "session.include",
                               "include " + item.dump() + " is not supported; auris knows \"auris.tentative\" (the words not yet agreed on)"};
    }
  }
}

}  // namespace

// The GA API's session.update: {"type": "transcription", "audio": {"input": {...}}, "include": [...]}.
void apply_session(const json& s, const RealtimeEnvironment& env, RealtimeConfig& c) {
  if (const json* type = json_member(s, "type"); type && *type != "transcription")
    throw RealtimeEventError{"invalid_value", "session.type",
                             "auris serves transcription sessions: set session.type to \"transcription\", not " + type->dump()};
  if (const json* audio = json_member(s, "audio"); audio && audio->is_object()) {
    if (const json* input = json_member(*audio, "input"); input && input->is_object()) {
      if (const json* f = json_member(*input, "format"); f && !f->is_null()) {
        if (!f->is_object()) throw RealtimeEventError{"invalid_type", "session.audio.input.format", "the format must be an object"};
        const std::string type = json_member(*f, "type") ? string_field(*f, "type", "session.audio.input.format.type") : "audio/pcm";
        if (type == "audio/pcm") {
          c.format = {RealtimeAudioFormat::Encoding::kPcm16, 24000};
          if (json_member(*f, "rate"))
            c.format.rate = static_cast<int>(number_field(*f, "rate", "session.audio.input.format.rate", 8000, 48000));
        } else if (type == "audio/pcmu") {
          c.format = {RealtimeAudioFormat::Encoding::kMuLaw, 8000};
        } else if (type == "audio/pcma") {
          c.format = {RealtimeAudioFormat::Encoding::kALaw, 8000};
        } else {
          throw RealtimeEventError{"invalid_value", "session.audio.input.format.type",
                                   "audio format '" + type + "' is not supported: use audio/pcm, audio/pcmu or audio/pcma"};
        }
      }
      if (const json* t = json_member(*input, "transcription")) apply_transcription(*t, "session.audio.input.transcription", env, c);
      if (const json* t = json_member(*input, "turn_detection")) apply_turn_detection(*t, "session.audio.input.turn_detection", c);
    }
  }
  if (const json* include = json_member(s, "include")) apply_include(*include, c);
}

// The beta API's transcription_session.update.
void apply_beta_session(const json& s, const RealtimeEnvironment& env, RealtimeConfig& c) {
  if (json_member(s, "input_audio_format")) {
    const std::string format = string_field(s, "input_audio_format", "session.input_audio_format");
    if (format == "pcm16") c.format = {RealtimeAudioFormat::Encoding::kPcm16, 24000};
    else if (format == "g711_ulaw") c.format = {RealtimeAudioFormat::Encoding::kMuLaw, 8000};
    else if (format == "g711_alaw") c.format = {RealtimeAudioFormat::Encoding::kALaw, 8000};
    else
      throw RealtimeEventError{"invalid_value", "session.input_audio_format",
                               "input_audio_format '" + format + "' is not supported: use pcm16, g711_ulaw or g711_alaw"};
  }
  if (const json* t = json_member(s, "input_audio_transcription"))
    apply_transcription(*t, "session.input_audio_transcription", env, c);
  if (const json* t = json_member(s, "turn_detection")) apply_turn_detection(*t, "session.turn_detection", c);
  if (const json* include = json_member(s, "include")) apply_include(*include, c);
}

namespace {

json turn_detection_json(const RealtimeConfig& c) {
  if (!c.turn_detection) return nullptr;
  return {{"type", "server_vad"},
          {"threshold", c.turn_detection->threshold},
          {"prefix_padding_ms", c.turn_detection->prefix_padding_ms},
          {"silence_duration_ms", c.turn_detection->silence_duration_ms}};
}

json transcription_json(const RealtimeConfig& c) {
  return {{"model", c.model_name},
          {"language", c.language ? json(*c.language) : json(nullptr)},
          {"prompt", c.prompt},
          {"beam_size", c.beam_size}};
}

json include_json(const RealtimeConfig& c) { return c.tentative ? json::array({"auris.tentative"}) : json::array(); }

}  // namespace

json session_json(const RealtimeConfig& c, const std::string& id) {
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


}  // namespace auris::server
