// A realtime transcription session's configuration (docs/SERVER.md): what session.update sets, in
// OpenAI's GA shape (session.audio.input...) or the beta's (transcription_session.update), checked
// field by field, and the session object the server sends back in session.created/updated.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "auris/model.h"
#include "server/realtime_audio.h"
#include "server/realtime_session.h"

namespace auris::server {

// A client event the session cannot take: an error event, the session goes on.
struct RealtimeEventError {
  std::string code, param, message;
};

struct TurnDetection {
  double threshold = 0.5;
  int prefix_padding_ms = 300;
  int silence_duration_ms = 500;
};

struct RealtimeConfig {
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

// object[key], or null where the object has no such member.
const nlohmann::json* json_member(const nlohmann::json& object, const char* key);

// A session.update's session, GA or beta, onto c; throws RealtimeEventError naming the field at fault.
void apply_session(const nlohmann::json& session, const RealtimeEnvironment& env, RealtimeConfig& c);
void apply_beta_session(const nlohmann::json& session, const RealtimeEnvironment& env, RealtimeConfig& c);

// The session object of session.created and session.updated, in the shape of c's last update.
nlohmann::json session_json(const RealtimeConfig& c, const std::string& id);

}  // namespace auris::server
