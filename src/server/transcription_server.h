// `auris serve`: OpenAI's speech-to-text endpoints over HTTP (docs/SERVER.md), on cpp-httplib. Each
// served model has one BatchScheduler, so the windows of every request in flight share its batch.
// Requests are admitted up to max_queue at once (429 past that), uploads stream to private files
// (413 past the limit, 408 past the deadline), a client that goes away cancels its windows that
// have not started, and stop() lets every request in flight finish. GET /v1/realtime is OpenAI's
// realtime transcription over a WebSocket on the same port (realtime_endpoint.h).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "auris/model.h"

namespace auris::server {

struct ServedModel {
  std::string name;  // what a request's `model` field names it by
  std::shared_ptr<const Model> model;
};

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8000;  // 0: any free port
  std::string api_key;  // empty: no key asked for
  int max_batch = 8;
  int max_queue = 64;
  size_t max_upload_bytes = size_t{100} << 20;
  double request_timeout_s = 300;
  double max_audio_seconds = 0;  // an upload's longest audio, counted as it is decoded (413 past it); 0: no limit
  int max_sessions = 4;  // realtime WebSocket sessions open at once (GET /v1/realtime); 0: none
  int threads = 0;  // CPU threads of each model's batched passes; 0: all cores
  std::string vad_model = "silero-vad";
  // Where the access log goes, a line per request (default: stderr).
  std::function<void(const std::string& line)> log;
};

class TranscriptionServer {
 public:
  // Throws auris::Error for an empty model list, a duplicate name or an option out of range.
  TranscriptionServer(std::vector<ServedModel> models, ServerOptions options);
  ~TranscriptionServer();
  TranscriptionServer(const TranscriptionServer&) = delete;
  TranscriptionServer& operator=(const TranscriptionServer&) = delete;

  // Binds the address; returns the port (the one picked, for port 0). Throws auris::Error when the
  // address cannot be bound.
  int bind();
  // Serves until stop(), then returns once every request in flight has been answered.
  void serve();
  // New transcriptions get 503; once the requests in flight are answered (streamed ones to their
  // last event), stops listening and serve() returns. A stop() before serve() makes it return at
  // once. Thread-safe (not async-signal-safe: call it from a thread that waited for the signal).
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace auris::server
