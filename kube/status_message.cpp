#include "kube/status_message.hpp"

#include "config/bounded_json.hpp"
#include "support/text_excerpt.hpp"

namespace gantry::kube {

std::string status_message(const std::string& body) {
  const nlohmann::json status = config::parse_bounded_json_or_discarded(body);
  const auto message = status.is_object() ? status.find("message") : status.end();
  if (message != status.end() && message->is_string() &&
      !message->get_ref<const std::string&>().empty())
    return support::text_excerpt(message->get<std::string>());
  return support::text_excerpt(body);
}

std::string http_failure(int status, const std::string& body) {
  return "HTTP " + std::to_string(status) + ": " + status_message(body);
}

}  // namespace gantry::kube
