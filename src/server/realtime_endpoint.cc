#include "server/realtime_endpoint.h"

#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <nlohmann/json.hpp>

#include "auris/error.h"
#include "server/http_error.h"
#include "server/socket_endpoints.h"
#include "server/websocket_connection.h"

namespace auris::server {
namespace {

// Whether a comma-separated list holds token, exactly.
bool has_token(const std::string& list, const std::string& token) {
  for (size_t at = 0; at <= list.size();) {
    size_t end = list.find(',', at);
    if (end == std::string::npos) end = list.size();
    std::string item = list.substr(at, end - at);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (item == token) return true;
    at = end + 1;
  }
  return false;
}

// Whether a header's comma-separated value holds token, in any case ("Connection: keep-alive, Upgrade").
bool header_has(const httplib::Request& request, const char* name, const std::string& token) {
  std::string value = request.get_header_value(name);
  std::transform(value.begin(), value.end(), value.begin(), [](unsigned char c) { return std::tolower(c); });
  return value.find(token) != std::string::npos;
}

}  // namespace

RealtimeEndpoint::RealtimeEndpoint(Options options, ServerMetrics& metrics) : options_(std::move(options)), metrics_(metrics) {
  if (options_.max_sessions < 0)
    throw Error("--max-sessions must be 0 (no realtime sessions) or more, got " + std::to_string(options_.max_sessions));
}

void RealtimeEndpoint::serve(const httplib::Request& request, httplib::Response& response) {
  // Browsers cannot set headers on a WebSocket: as OpenAI's API, the key may come as a subprotocol.
  if (!options_.api_key.empty() && request.get_header_value("Authorization") != "Bearer " + options_.api_key &&
      !has_token(request.get_header_value("Sec-WebSocket-Protocol"), "openai-insecure-api-key." + options_.api_key))
    throw HttpError(401, "a valid API key is needed: send 'Authorization: Bearer KEY', or from a browser the subprotocol "
                         "'openai-insecure-api-key.KEY'", "", "invalid_api_key");
  if (!header_has(request, "Upgrade", "websocket") || !header_has(request, "Connection", "upgrade"))
    throw HttpError(426, "GET /v1/realtime is a WebSocket: connect with a WebSocket client (OpenAI's realtime client, intent=transcription)",
                    "", "upgrade_required");
  if (request.has_param("intent") && request.get_param_value("intent") != "transcription")
    throw HttpError(400, "auris serves transcription sessions: connect with ?intent=transcription", "intent", "invalid_value");
  RealtimeEnvironment environment = options_.environment;
  // The URL's model, if any, is the session's default.
  if (const std::string model = request.get_param_value("model"); !model.empty()) {
    try {
      environment.find_model(model);
    } catch (const Error& e) {
      throw HttpError(404, e.what(), "model", "model_not_found");
    }
    environment.find_model = [find = options_.environment.find_model, model](const std::string& name) {
      return find(name.empty() ? model : name);
    };
  }
  int fd = -1;
  for (const ServerSocket& s : server_sockets(request.local_port))
    if (s.client.port == request.remote_port && s.client.address == request.remote_addr) fd = s.fd;
  if (fd < 0) throw HttpError(500, "the connection's socket was not found", "", "", "server_error");

  {
    std::lock_guard lock(mutex_);
    if (stopping_) throw HttpError(503, "the server is shutting down; connect to another instance", "", "shutting_down");
    if (options_.max_sessions == 0)
      throw HttpError(403, "realtime sessions are turned off on this server (--max-sessions 0)", "", "sessions_disabled");
    if (places_taken_ >= options_.max_sessions)
      throw HttpError(429, std::to_string(options_.max_sessions) + " realtime sessions are open, as many as this server takes (--max-sessions); retry later",
                      "", "too_many_sessions");
    metrics_.set_realtime_sessions(++places_taken_);
  }
  // Given back once the session and its connection are gone, on every path out.
  struct PlaceRelease {
    RealtimeEndpoint* endpoint;
    ~PlaceRelease() {
      std::lock_guard lock(endpoint->mutex_);
      endpoint->metrics_.set_realtime_sessions(--endpoint->places_taken_);
    }
  } place_release{this};
  UpgradeRequest upgrade{request.target, {request.headers.begin(), request.headers.end()}, ""};
  // A browser offers "realtime" (and the key, see transcription_server): the answer must name one.
  if (has_token(request.get_header_value("Sec-WebSocket-Protocol"), "realtime")) upgrade.subprotocol = "realtime";
  WebSocketConnection::Limits limits;
  limits.idle_timeout_s = options_.idle_timeout_s;
  // From here on the connection is the WebSocket's: cpp-httplib's answer after the handler finds it
  // shut down, and the connection guard closes it.
  response.status = 101;
  response.set_header("Connection", "close");
  std::unique_ptr<WebSocketConnection> connection;
  try {
    connection = std::make_unique<WebSocketConnection>(fd, upgrade, limits);
  } catch (const Error&) {
    shutdown(fd, SHUT_RDWR);  // Boost.Beast answered the failed handshake
    return;
  }
  std::unique_ptr<RealtimeSession> session;
  try {
    session = std::make_unique<RealtimeSession>(environment, [c = connection.get()](std::string event) { c->send(std::move(event)); });
  } catch (const std::exception& e) {
    connection->send(nlohmann::json{{"type", "error"},
                                    {"event_id", "event_0"},
                                    {"error", {{"type", "server_error"}, {"code", "session_failed"}, {"message", std::string("the session could not start: ") + e.what()}}}}
                         .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    connection->close(1011, "the session could not start");
    connection->run([](std::string_view) {});
    shutdown(fd, SHUT_RDWR);
    return;
  }
  {
    // Listed for stop() while it runs, and unlisted on every path out, before the session goes.
    struct Listing {
      RealtimeEndpoint* endpoint;
      Live live;
      bool admitted = false;
      ~Listing() {
        std::lock_guard lock(endpoint->mutex_);
        endpoint->live_.erase(&live);
      }
    } listing{this, {connection.get(), session.get()}};
    {
      std::lock_guard lock(mutex_);
      listing.admitted = !stopping_;  // stop() may have run during the handshake
      if (listing.admitted) live_.insert(&listing.live);
    }
    if (listing.admitted) {
      connection->run([s = session.get()](std::string_view message) { s->receive(message); });
    } else {
      connection->close(1001, "the server is shutting down");
      connection->run([](std::string_view) {});
    }
  }
  session.reset();  // its worker stops before the connection it sends to goes
  connection.reset();
  shutdown(fd, SHUT_RDWR);
}

void RealtimeEndpoint::stop() {
  std::lock_guard lock(mutex_);
  stopping_ = true;
  for (Live* live : live_) {
    live->connection->post([live] {
      live->session->finish();
      live->connection->close(1001, "the server is shutting down");
    });
  }
}

}  // namespace auris::server
