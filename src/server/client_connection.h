// Whether the client of a request in progress is still connected: its socket (socket_endpoints.h)
// found once, then peeked at.
#pragma once

#include <string>

#include "server/socket_endpoints.h"

namespace auris::server {

class ClientConnection {
 public:
  ClientConnection(std::string remote_addr, int remote_port, int local_port);
  // False once the client has closed or reset the connection. True while it is connected, or where
  // its socket cannot be found (then nothing is cancelled).
  bool connected();

 private:
  bool matches(int fd) const;
  Endpoint client_;
  int local_port_;
  int fd_ = -2;  // -2: not looked for yet; -1: not found
};

}  // namespace auris::server
