#include "etcd/stream_lines.hpp"

#include <stdexcept>

namespace gantry::etcd {

void StreamLines::feed(std::string_view data) {
  while (!data.empty()) {
    const auto newline = data.find('\n');
    const auto piece = data.substr(0, newline);
    if (pending_.size() + piece.size() > max_line_bytes_) {
      throw std::runtime_error("stream message over the limit of " +
                               std::to_string(max_line_bytes_) + " bytes");
    }
    if (newline == std::string_view::npos) {
      pending_.append(piece);
      return;
    }
    if (pending_.empty()) {
      deliver(piece);  // the common case: a whole line in one piece, no copy
    } else {
      pending_.append(piece);
      deliver(pending_);
      pending_.clear();
    }
    data.remove_prefix(newline + 1);
  }
}

void StreamLines::finish() {
  deliver(pending_);
  pending_.clear();
}

void StreamLines::deliver(std::string_view line) {
  if (line.find_first_not_of(" \t\r") == std::string_view::npos) return;
  on_line_(line);
}

}  // namespace gantry::etcd
