#include "server/socket_endpoints.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdlib>

namespace auris::server {

bool socket_endpoint(int fd, bool peer, Endpoint& out) {
  sockaddr_storage storage{};
  socklen_t length = sizeof(storage);
  auto* sa = reinterpret_cast<sockaddr*>(&storage);
  if ((peer ? getpeername(fd, sa, &length) : getsockname(fd, sa, &length)) != 0) return false;
  char text[INET6_ADDRSTRLEN] = {};
  if (storage.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<sockaddr_in*>(&storage);
    inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text));
    out.port = ntohs(in->sin_port);
  } else if (storage.ss_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<sockaddr_in6*>(&storage);
    inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof(text));
    out.port = ntohs(in6->sin6_port);
  } else {
    return false;
  }
  out.address = text;
  return true;
}

namespace {

// Calls f(fd) for every descriptor of this process.
template <typename F>
void for_each_descriptor(F&& f) {
  DIR* dir = opendir("/proc/self/fd");
  if (!dir) return;
  while (const dirent* entry = readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    const int fd = std::atoi(entry->d_name);
    if (fd != dirfd(dir)) f(fd);
  }
  closedir(dir);
}

}  // namespace

std::vector<int> listening_sockets(int local_port) {
  std::vector<int> fds;
  for_each_descriptor([&](int fd) {
    int listening = 0;
    socklen_t size = sizeof(listening);
    Endpoint local;
    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) == 0 && listening &&
        socket_endpoint(fd, /*peer=*/false, local) && local.port == local_port)
      fds.push_back(fd);
  });
  return fds;
}

std::vector<ServerSocket> server_sockets(int local_port) {
  std::vector<ServerSocket> sockets;
  for_each_descriptor([&](int fd) {
    Endpoint local, client;
    if (socket_endpoint(fd, /*peer=*/false, local) && local.port == local_port &&
        socket_endpoint(fd, /*peer=*/true, client))
      sockets.push_back({fd, client});
  });
  return sockets;
}

}  // namespace auris::server
