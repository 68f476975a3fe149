#include "server/client_connection.h"

#include <poll.h>
#include <sys/socket.h>

namespace auris::server {

ClientConnection::ClientConnection(std::string remote_addr, int remote_port, int local_port)
    : client_{std::move(remote_addr), remote_port}, local_port_(local_port) {}

bool ClientConnection::matches(int fd) const {
  Endpoint peer, local;
  return socket_endpoint(fd, /*peer=*/true, peer) && peer.port == client_.port && peer.address == client_.address &&
         socket_endpoint(fd, /*peer=*/false, local) && local.port == local_port_;
}

bool ClientConnection::connected() {
  if (fd_ == -2) {
    fd_ = -1;
    for (const ServerSocket& s : server_sockets(local_port_))
      if (s.client.port == client_.port && s.client.address == client_.address) fd_ = s.fd;
  }
  if (fd_ < 0) return true;
  if (!matches(fd_)) return false;  // closed (and perhaps reused by another connection)
  pollfd p{fd_, POLLIN | POLLRDHUP, 0};
  if (poll(&p, 1, 0) <= 0) return true;
  if (p.revents & (POLLHUP | POLLERR | POLLRDHUP)) return false;
  char byte;
  // Readable: more of a pipelined request, or the end of the stream.
  return recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT) != 0;
}

}  // namespace auris::server
