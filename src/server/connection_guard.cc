#include "server/connection_guard.h"

#include <sys/socket.h>

#include <set>

#include "server/socket_endpoints.h"

namespace auris::server {
namespace {

constexpr auto kScanInterval = std::chrono::milliseconds(250);

std::string key(const std::string& address, int port) { return address + " " + std::to_string(port); }

std::chrono::steady_clock::duration seconds(double s) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s));
}

}  // namespace

ConnectionGuard::ConnectionGuard(int port, double header_timeout_s, double body_timeout_s, std::string timeout_answer)
    : port_(port),
      header_timeout_(seconds(header_timeout_s)),
      body_timeout_(seconds(body_timeout_s)),
      timeout_answer_(std::move(timeout_answer)) {
  watcher_ = std::thread([this] { watch(); });
}

ConnectionGuard::~ConnectionGuard() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_.notify_all();
  watcher_.join();
}

void ConnectionGuard::request_started(const std::string& address, int port) {
  std::lock_guard lock(mutex_);
  const Clock::time_point now = Clock::now();
  connections_[key(address, port)] = {Phase::kInRequest, now, false, now};
}

void ConnectionGuard::body_started(const std::string& address, int port) {
  std::lock_guard lock(mutex_);
  Connection& c = connections_[key(address, port)];
  c.touched = Clock::now();
  if (c.phase != Phase::kInRequest) c.since = c.touched;
  c.phase = Phase::kReadingBody;
}

void ConnectionGuard::body_ended(const std::string& address, int port) {
  std::lock_guard lock(mutex_);
  Connection& c = connections_[key(address, port)];
  c.phase = Phase::kInRequest;
  c.touched = Clock::now();
}

namespace {

// A descriptor listed a moment ago may have been closed since, and its number given to another
// client: it is acted on only while its peer is still the one listed.
bool still_its_clients(const ServerSocket& s) {
  Endpoint now_there;
  return socket_endpoint(s.fd, /*peer=*/true, now_there) && now_there.address == s.client.address &&
         now_there.port == s.client.port;
}

}  // namespace

void ConnectionGuard::request_ended(const std::string& address, int port, bool close) {
  const Clock::time_point now = Clock::now();
  const Connection ended{Phase::kWaitingForHeaders, now, close, now};
  if (close) {
    // Now, not at the next scan: the client may be sending more already.
    for (const ServerSocket& s : server_sockets(port_))
      if (s.client.port == port && s.client.address == address && still_its_clients(s)) shutdown(s.fd, SHUT_RDWR);
  }
  std::lock_guard lock(mutex_);
  connections_[key(address, port)] = ended;
}

void ConnectionGuard::watch() {
  std::unique_lock lock(mutex_);
  while (!stop_.wait_for(lock, kScanInterval, [&] { return stopping_; })) {
    const Clock::time_point scanned = Clock::now();
    lock.unlock();
    const std::vector<ServerSocket> sockets = server_sockets(port_);
    lock.lock();
    const Clock::time_point now = Clock::now();
    std::set<std::string> open;
    for (const ServerSocket& s : sockets) {
      const std::string k = key(s.client.address, s.client.port);
      open.insert(k);
      Connection& c = connections_.try_emplace(k, Connection{Phase::kWaitingForHeaders, now, false, now}).first->second;
      const bool late = (c.phase == Phase::kWaitingForHeaders && now - c.since > header_timeout_) ||
                        (c.phase == Phase::kReadingBody && now - c.since > body_timeout_);
      if ((!late && !c.close) || !still_its_clients(s)) continue;
      if (late && !c.close) {
        // Best effort, never blocking: the client is slow, perhaps not reading either.
        send(s.fd, timeout_answer_.data(), timeout_answer_.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        c.close = true;
      }
      shutdown(s.fd, SHUT_RDWR);
    }
    std::erase_if(connections_, [&](const auto& e) { return !open.count(e.first) && e.second.touched < scanned; });
  }
}

}  // namespace auris::server
