// What an API server's error answer says, for logs and users.
#pragma once

#include <string>

namespace gantry::kube {

// The message of a metav1.Status body, or the start of whatever came
// (at most 200 bytes either way).
std::string status_message(const std::string& body);
// "HTTP 403: <status_message(body)>", as logs and errors name a failed request.
std::string http_failure(int status, const std::string& body);

}  // namespace gantry::kube
