// Splits a watch stream's body, arriving in arbitrary pieces, into one JSON
// event per line.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace gantry::kube {

class EventLines {
 public:
  using Handler = std::function<void(const nlohmann::json& event)>;
  explicit EventLines(const Handler& on_event) : on_event_(on_event) {}

  // Hands every complete line to the handler; false when a line is not JSON.
  bool feed(std::string_view data);
  // The stream ended: a last line without its newline counts too.
  bool finish();
  std::uint64_t events() const { return events_; }

 private:
  bool deliver(std::string_view line);

  const Handler& on_event_;
  std::string pending_;
  std::uint64_t events_ = 0;
};

}  // namespace gantry::kube
