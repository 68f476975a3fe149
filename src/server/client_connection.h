// Whether the client of a request in progress is still connected. cpp-httplib 0.11 (Debian 12's)
// hands a handler no socket, so the socket is found by its two ends (the request's remote and local
// ports) among the process's descriptors, once, and then peeked at.
#pragma once

#include <string>

namespace auris::server {

class ClientConnection {
 public:
  ClientConnection(std::string remote_addr, int remote_port, int local_port);
  // False once the client has closed or reset the connection. True while it is connected, or where
  // its socket cannot be found (then nothing is cancelled).
  bool connected();

 private:
  bool matches(int fd) const;
  std::string remote_addr_;
  int remote_port_;
  int local_port_;
  int fd_ = -2;  // -2: not looked for yet; -1: not found
};

}  // namespace auris::server
