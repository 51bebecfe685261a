// A TCP client that speaks as much ZMTP 3.0 (NULL security) as the connection
// limit tests need, byte by byte: an idle connection that never says anything,
// a handshake with no message after it, a frame header announcing a body that
// never comes. A libzmq client would do none of these on purpose.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace gantry::actors::testing {

class RawZmtpClient {
 public:
  // Connects to 127.0.0.1:`port`; returns once the kernel has completed the
  // TCP handshake (the server's accept may come later).
  explicit RawZmtpClient(int port) : fd_(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    if (fd_ < 0) throw std::runtime_error("socket: " + std::to_string(errno));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
      const int error = errno;
      close(fd_);
      throw std::runtime_error("connect: " + std::to_string(error));
    }
  }
  ~RawZmtpClient() {
    if (fd_ >= 0) close(fd_);
  }
  RawZmtpClient(RawZmtpClient&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  RawZmtpClient& operator=(RawZmtpClient&& other) noexcept {
    if (this != &other) {
      if (fd_ >= 0) close(fd_);
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  RawZmtpClient(const RawZmtpClient&) = delete;
  RawZmtpClient& operator=(const RawZmtpClient&) = delete;

  // The greeting of a NULL-security DEALER and its READY command, then the
  // server's, as a libzmq peer waits for them before sending messages (a
  // server whose handshake waits for ZAP takes an early message for a broken
  // handshake). False when the server closed the connection instead, or
  // `give_up` passed.
  bool send_handshake(std::chrono::milliseconds give_up = std::chrono::seconds(30)) {
    std::string greeting(64, '\0');
    greeting[0] = '\xff';
    greeting[9] = '\x7f';
    greeting[10] = 3;  // ZMTP 3.0
    greeting.replace(12, 4, "NULL");
    if (!send_bytes(greeting) || !send_bytes(command_frame("READY", "Socket-Type", "DEALER"))) {
      return false;
    }
    const auto end = std::chrono::steady_clock::now() + give_up;
    std::string header;
    if (!receive_exactly(64 + 2, header, end)) return false;  // greeting, command flags and size
    const bool long_size = (header[64] & 0x02) != 0;
    std::uint64_t size = static_cast<unsigned char>(header[65]);
    if (long_size) {
      std::string rest;
      if (!receive_exactly(7, rest, end)) return false;
      for (const char byte : rest) size = (size << 8) | static_cast<unsigned char>(byte);
    }
    std::string body;
    return receive_exactly(static_cast<std::size_t>(size), body, end);
  }

  // A one-part message's frame header announcing `body_bytes`, without the body.
  bool send_frame_header(std::uint64_t body_bytes) {
    std::string header(9, '\0');
    header[0] = '\x02';  // last part, 8-byte size
    for (int i = 0; i < 8; ++i) header[8 - i] = static_cast<char>((body_bytes >> (8 * i)) & 0xff);
    return send_bytes(header);
  }

  // Writes all of `bytes`; false when the server has closed the connection.
  bool send_bytes(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t sent = send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (sent < 0 && errno == EINTR) continue;
      if (sent <= 0) return false;
      bytes.remove_prefix(static_cast<std::size_t>(sent));
    }
    return true;
  }

  // Whether the server has closed the connection (end of stream or reset);
  // reads and drops whatever it sent before (its greeting). Does not wait.
  bool closed_by_server() {
    char buffer[4096];
    for (;;) {
      const ssize_t received = recv(fd_, buffer, sizeof(buffer), MSG_DONTWAIT);
      if (received > 0) continue;
      if (received == 0) return true;
      if (errno == EINTR) continue;
      return errno != EAGAIN && errno != EWOULDBLOCK;
    }
  }

  // Waits for the server to close the connection; false when `give_up` passes
  // first (a hang, not a measured time).
  bool wait_closed_by_server(std::chrono::milliseconds give_up) {
    const auto end = std::chrono::steady_clock::now() + give_up;
    while (!closed_by_server()) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          end - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd item{fd_, POLLIN, 0};
      (void)poll(&item, 1, static_cast<int>(left.count()));
    }
    return true;
  }

  int fd() const { return fd_; }

 private:
  bool receive_exactly(std::size_t count, std::string& into,
                       std::chrono::steady_clock::time_point end) {
    into.resize(count);
    std::size_t have = 0;
    while (have < count) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          end - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd item{fd_, POLLIN, 0};
      if (poll(&item, 1, static_cast<int>(left.count())) <= 0) continue;
      const ssize_t received = recv(fd_, into.data() + have, count - have, 0);
      if (received < 0 && errno == EINTR) continue;
      if (received <= 0) return false;
      have += static_cast<std::size_t>(received);
    }
    return true;
  }

  static std::string command_frame(std::string_view name, std::string_view property,
                                   std::string_view value) {
    std::string body;
    body += static_cast<char>(name.size());
    body += name;
    body += static_cast<char>(property.size());
    body += property;
    for (int shift = 24; shift >= 0; shift -= 8) {
      body += static_cast<char>((value.size() >> shift) & 0xff);
    }
    body += value;
    std::string frame;
    frame += '\x04';  // command, 1-byte size
    frame += static_cast<char>(body.size());
    return frame + body;
  }

  int fd_;
};

}  // namespace gantry::actors::testing
