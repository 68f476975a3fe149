#include "server/websocket_connection.h"

#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <chrono>
#include <deque>
#include <optional>

#include "auris/error.h"

namespace auris::server {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

std::chrono::steady_clock::duration seconds(double s) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s));
}

}  // namespace

struct WebSocketConnection::Impl {
  asio::io_context io;
  std::optional<websocket::stream<tcp::socket>> ws;
  Limits limits;
  beast::flat_buffer buffer;
  std::function<void(std::string_view)> on_message;
  std::deque<std::string> outbox;
  size_t unsent = 0;
  bool writing = false;
  std::optional<websocket::close_reason> close_requested;
  bool closing = false;

  void read() {
    ws->async_read(buffer, [this](beast::error_code error, size_t) {
      if (error) {
        // Closed (by either side, the close handshake done), timed out or reset: nothing more can
        // be read or written. Stopping returns run() now, not when the idle timer would fire.
        io.stop();
        return;
      }
      const beast::flat_buffer::const_buffers_type data = buffer.data();
      on_message(std::string_view(static_cast<const char*>(data.data()), data.size()));
      buffer.consume(buffer.size());
      read();
    });
  }

  void write_next() {
    if (outbox.empty()) {
      writing = false;
      if (close_requested && !closing) {
        closing = true;
        ws->async_close(*close_requested, [](beast::error_code) {});
      }
      return;
    }
    writing = true;
    ws->text(true);
    ws->async_write(asio::buffer(outbox.front()), [this](beast::error_code error, size_t) {
      unsent -= outbox.front().size();
      outbox.pop_front();
      if (error) {
        writing = false;
        return;
      }
      write_next();
    });
  }
};

WebSocketConnection::WebSocketConnection(int fd, const UpgradeRequest& request, Limits limits)
    : impl_(std::make_unique<Impl>()) {
  impl_->limits = limits;
  sockaddr_storage address{};
  socklen_t length = sizeof(address);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) throw Error("the connection's socket is gone");
  const int copy = ::dup(fd);
  if (copy < 0) throw Error("the connection's socket could not be duplicated");
  tcp::socket socket(impl_->io);
  beast::error_code error;
  socket.assign(address.ss_family == AF_INET6 ? tcp::v6() : tcp::v4(), copy, error);
  if (error) {
    ::close(copy);
    throw Error("the connection's socket could not be taken over: " + error.message());
  }
  impl_->ws.emplace(std::move(socket));
  websocket::stream<tcp::socket>& ws = *impl_->ws;
  websocket::stream_base::timeout timeouts;
  timeouts.handshake_timeout = seconds(limits.handshake_timeout_s);
  timeouts.idle_timeout = seconds(limits.idle_timeout_s);
  timeouts.keep_alive_pings = true;
  ws.set_option(timeouts);
  ws.read_message_max(limits.max_message_bytes);
  ws.set_option(websocket::stream_base::decorator([subprotocol = request.subprotocol](websocket::response_type& response) {
    response.set(http::field::server, "auris");
    if (!subprotocol.empty()) response.set(http::field::sec_websocket_protocol, subprotocol);
  }));
  http::request<http::empty_body> upgrade(http::verb::get, request.target, 11);
  for (const auto& [name, value] : request.headers) upgrade.insert(name, value);
  ws.accept(upgrade, error);
  if (error) throw Error("the WebSocket handshake failed: " + error.message());
}

WebSocketConnection::~WebSocketConnection() = default;

void WebSocketConnection::run(const std::function<void(std::string_view)>& on_message) {
  impl_->on_message = on_message;
  impl_->read();
  impl_->io.run();
}

void WebSocketConnection::send(std::string message) {
  asio::post(impl_->io, [impl = impl_.get(), message = std::move(message)]() mutable {
    if (impl->closing || impl->close_requested) return;
    if (impl->unsent + message.size() > impl->limits.max_unsent_bytes) {
      // A client that stopped reading: the connection is dropped, not the server's memory.
      impl->closing = true;
      beast::error_code ignored;
      beast::get_lowest_layer(*impl->ws).close(ignored);
      return;
    }
    impl->unsent += message.size();
    impl->outbox.push_back(std::move(message));
    if (!impl->writing) impl->write_next();
  });
}

void WebSocketConnection::close(uint16_t code, std::string reason) {
  asio::post(impl_->io, [impl = impl_.get(), code, reason = std::move(reason)] {
    if (impl->close_requested) return;
    impl->close_requested = websocket::close_reason(static_cast<websocket::close_code>(code), reason);
    if (!impl->writing) impl->write_next();
  });
}

void WebSocketConnection::post(std::function<void()> task) { asio::post(impl_->io, std::move(task)); }

}  // namespace auris::server
