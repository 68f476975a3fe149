#include "server/client_connection.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <cstdlib>

namespace auris::server {
namespace {

// The address and port of one end of a socket, as text and number; false for a non-socket.
bool endpoint(int fd, bool peer, std::string& address, int& port) {
  sockaddr_storage storage{};
  socklen_t length = sizeof(storage);
  auto* sa = reinterpret_cast<sockaddr*>(&storage);
  if ((peer ? getpeername(fd, sa, &length) : getsockname(fd, sa, &length)) != 0) return false;
  char text[INET6_ADDRSTRLEN] = {};
  if (storage.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<sockaddr_in*>(&storage);
    inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text));
    port = ntohs(in->sin_port);
  } else if (storage.ss_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<sockaddr_in6*>(&storage);
    inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof(text));
    port = ntohs(in6->sin6_port);
  } else {
    return false;
  }
  address = text;
  return true;
}

}  // namespace

ClientConnection::ClientConnection(std::string remote_addr, int remote_port, int local_port)
    : remote_addr_(std::move(remote_addr)), remote_port_(remote_port), local_port_(local_port) {}

bool ClientConnection::matches(int fd) const {
  std::string address;
  int port = -1;
  if (!endpoint(fd, /*peer=*/true, address, port) || port != remote_port_ || address != remote_addr_) return false;
  return endpoint(fd, /*peer=*/false, address, port) && port == local_port_;
}

bool ClientConnection::connected() {
  if (fd_ == -2) {
    fd_ = -1;
    if (DIR* dir = opendir("/proc/self/fd")) {
      while (const dirent* entry = readdir(dir)) {
        const int fd = std::atoi(entry->d_name);
        if (entry->d_name[0] != '.' && fd != dirfd(dir) && matches(fd)) {
          fd_ = fd;
          break;
        }
      }
      closedir(dir);
    }
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
