// Deadlines cpp-httplib 0.11 cannot keep itself. Its read timeout bounds each read, so a client that
// trickles a byte a second holds a pool thread for ever, and enough of them starve the server; and a
// response marked "Connection: close" leaves the connection open, so an unread body would be parsed
// as the next request. A thread watches the server's sockets (socket_endpoints.h) and:
//  - answers timeout_answer (a whole HTTP response: 408) and shuts the connection down where a
//    request's headers have not arrived within header_timeout_s of the connection's opening or of
//    its last answer, or its body within body_timeout_s of the request's start (the handler's read
//    then fails; its own answer finds the connection closed);
//  - shuts a connection down once its answer carried "Connection: close".
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace auris::server {

class ConnectionGuard {
 public:
  ConnectionGuard(int port, double header_timeout_s, double body_timeout_s, std::string timeout_answer);
  ~ConnectionGuard();
  ConnectionGuard(const ConnectionGuard&) = delete;
  ConnectionGuard& operator=(const ConnectionGuard&) = delete;

  // A request's headers have arrived (its client's address and port).
  void request_started(const std::string& address, int port);
  // Its handler reads the body from now on, until body_ended.
  void body_started(const std::string& address, int port);
  void body_ended(const std::string& address, int port);
  // Its answer has been written; close: the connection is to be shut down now.
  void request_ended(const std::string& address, int port, bool close);

 private:
  using Clock = std::chrono::steady_clock;
  enum class Phase { kWaitingForHeaders, kInRequest, kReadingBody };
  struct Connection {
    Phase phase = Phase::kWaitingForHeaders;
    Clock::time_point since;  // of the phase (the body's deadline counts from the request's start)
    bool close = false;
    Clock::time_point touched;  // last told about: an entry a scan did not see may be newer than it
  };
  void watch();

  const int port_;
  const Clock::duration header_timeout_, body_timeout_;
  const std::string timeout_answer_;
  std::mutex mutex_;
  std::condition_variable stop_;
  bool stopping_ = false;
  std::map<std::string, Connection> connections_;  // by "address port"
  std::thread watcher_;
};

}  // namespace auris::server
