// One realtime transcription session (`GET /v1/realtime`, docs/SERVER.md) in the shape of OpenAI's
// Realtime API: client events in (session.update, input_audio_buffer.append/commit/clear), server
// events out (session.created/updated, input_audio_buffer.speech_started/speech_stopped/committed/
// cleared, conversation.item.input_audio_transcription.delta/completed, error). The audio goes
// through a StreamingTranscriber (include/auris/stream.h), so an item's words arrive as deltas while
// it is spoken, each as soon as two decodes agree on it, and not only once it is committed.
// Transport-free: the WebSocket (websocket_connection.h) hands it each text message and sends what
// it emits. A worker thread decodes; the transport's thread only parses and queues.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "auris/model.h"

namespace auris::server {

struct RealtimeEnvironment {
  // The served model a session's `model` names ("" and whisper-1: the default); throws auris::Error
  // naming the served ones otherwise.
  std::function<std::pair<std::string, std::shared_ptr<const Model>>(const std::string& name)> find_model;
  std::string vad_model = "silero-vad";  // for server_vad turn detection
  int threads = 0;                       // CPU threads of the session's decodes (0: all cores)
  // Audio waiting to be decoded past which appends are refused (an error event each): a client
  // sending faster than real time on a loaded server.
  double max_backlog_seconds = 120;
};

class RealtimeSession {
 public:
  // Sends one server event (JSON text). Called from the transport's thread and from the worker;
  // must be thread-safe and must not block for long.
  using Send = std::function<void(std::string event)>;

  // Sends session.created. The session starts with the default model, 24-kHz audio/pcm, and
  // server_vad turn detection, as OpenAI's transcription sessions do.
  RealtimeSession(RealtimeEnvironment environment, Send send);
  // Stops at once: what is queued is dropped, a decode under way finishes first.
  ~RealtimeSession();
  RealtimeSession(const RealtimeSession&) = delete;
  RealtimeSession& operator=(const RealtimeSession&) = delete;

  // One client event, as received. A malformed or unsupported one gets an error event; the session
  // goes on.
  void receive(std::string_view message);
  // The server is stopping: decodes what was received, completes the current item, and returns once
  // its last event is sent. Nothing is received after it.
  void finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace auris::server
