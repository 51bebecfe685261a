// Splits a streamed body (the gateway writes one JSON message per line),
// arriving in arbitrary pieces, into lines, refusing a line longer than a
// bound: a server that never sends a newline cannot make the client buffer
// without end.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "etcd/limits.hpp"

namespace gantry::etcd {

class StreamLines {
 public:
  using Handler = std::function<void(std::string_view line)>;
  explicit StreamLines(Handler on_line, std::size_t max_line_bytes = kMaxAnswerBytes)
      : on_line_(std::move(on_line)), max_line_bytes_(max_line_bytes) {}

  // Hands every complete, non-blank line to the handler. Throws
  // std::runtime_error naming the limit when a line grows past it.
  void feed(std::string_view data);
  // The stream ended: a last line without its newline counts too.
  void finish();

 private:
  void deliver(std::string_view line);

  Handler on_line_;
  std::size_t max_line_bytes_;
  std::string pending_;
};

}  // namespace gantry::etcd
