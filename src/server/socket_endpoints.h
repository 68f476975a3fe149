// The two ends of the server's TCP connections, read from the process's descriptors: cpp-httplib
// 0.11 (Debian 12's) hands a handler no socket, so a request's socket is found by its client's
// address and port.
#pragma once

#include <string>
#include <vector>

namespace auris::server {

struct Endpoint {
  std::string address;
  int port = -1;
};

// The address and port of one end of a socket (peer: the other end); false for a non-socket.
bool socket_endpoint(int fd, bool peer, Endpoint& out);

struct ServerSocket {
  int fd = -1;
  Endpoint client;
};

// Every connected socket of this process whose local port is local_port.
std::vector<ServerSocket> server_sockets(int local_port);

// Every listening socket of this process on local_port.
std::vector<int> listening_sockets(int local_port);

}  // namespace auris::server
