// A WebSocket (RFC 6455, Boost.Beast) on a connection cpp-httplib accepted: cpp-httplib 0.11 has no
// WebSocket, so the handler of an upgrade request hands its socket (socket_endpoints.h) over,
// completes the opening handshake here, and serves the connection until it closes. Messages are
// read and written on the thread that calls run(); send() and close() may be called from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace auris::server {

struct UpgradeRequest {
  std::string target;  // path and query
  std::vector<std::pair<std::string, std::string>> headers;
  std::string subprotocol;  // one the client offered, named in the answer; empty: none
};

class WebSocketConnection {
 public:
  struct Limits {
    size_t max_message_bytes = size_t{16} << 20;
    double handshake_timeout_s = 10;
    // No frame from the client for this long (it is pinged half way) closes the connection.
    double idle_timeout_s = 60;
    // Unsent messages past this (a client that stopped reading) close the connection.
    size_t max_unsent_bytes = size_t{32} << 20;
  };

  // Answers the upgrade request on socket fd (which stays the caller's: a duplicate is used).
  // Throws auris::Error when the handshake fails.
  WebSocketConnection(int fd, const UpgradeRequest& request, Limits limits);
  ~WebSocketConnection();
  WebSocketConnection(const WebSocketConnection&) = delete;
  WebSocketConnection& operator=(const WebSocketConnection&) = delete;

  // Reads messages (text or binary alike), handing each to on_message, and writes what
  // is sent, until the connection closes (by either side, a timeout or an error).
  void run(const std::function<void(std::string_view message)>& on_message);
  // Queues a text message.
  void send(std::string message);
  // Closes the connection with a close frame, once what was sent before it is written.
  void close(uint16_t code, std::string reason);
  // Runs task on run()'s thread (where messages are handed over), after what is queued there.
  void post(std::function<void()> task);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace auris::server
