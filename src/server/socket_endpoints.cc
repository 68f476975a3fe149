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

std::vector<ServerSocket> server_sockets(int local_port) {
  std::vector<ServerSocket> sockets;
  DIR* dir = opendir("/proc/self/fd");
  if (!dir) return sockets;
  while (const dirent* entry = readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    const int fd = std::atoi(entry->d_name);
    if (fd == dirfd(dir)) continue;
    Endpoint local, client;
    if (socket_endpoint(fd, /*peer=*/false, local) && local.port == local_port &&
        socket_endpoint(fd, /*peer=*/true, client))
      sockets.push_back({fd, client});
  }
  closedir(dir);
  return sockets;
}

}  // namespace auris::server
