// GET /v1/realtime: OpenAI's realtime transcription sessions over a WebSocket on the server's own
// port (docs/SERVER.md). Each connection is one RealtimeSession, up to max_sessions at once (429
// past that); stop() completes every open session's current item and closes it with 1001.
#pragma once

#include <httplib.h>

#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "server/realtime_session.h"
#include "server/server_metrics.h"

namespace auris::server {

class WebSocketConnection;

class RealtimeEndpoint {
 public:
  struct Options {
    std::string api_key;  // empty: none asked for
    int max_sessions = 4;
    double idle_timeout_s = 60;  // a client silent for this long (pings unanswered) is disconnected
    RealtimeEnvironment environment;
  };

  RealtimeEndpoint(Options options, ServerMetrics& metrics);

  // Serves one upgrade request until its session ends. Throws HttpError before the upgrade (no key,
  // not a WebSocket, an unserved model, too many sessions); after it, errors are the session's events.
  void serve(const httplib::Request& request, httplib::Response& response);
  // No new sessions; each open one completes its current item and is closed.
  void stop();

 private:
  struct Live {
    WebSocketConnection* connection;
    RealtimeSession* session;
  };

  Options options_;
  ServerMetrics& metrics_;
  std::mutex mutex_;
  std::set<Live*> live_;
  // Places taken, handshaking sessions included: a client whose handshake completed holds its place
  // before its session is live, so the next connection over the limit gets its 429.
  int places_taken_ = 0;
  bool stopping_ = false;
};

}  // namespace auris::server
