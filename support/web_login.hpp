// How a browser carries the hub's HTTP token (docs/web.md): it cannot send an
// Authorization header when it opens a page, so /login?token=T checks T once
// and sets it as an HttpOnly, SameSite=Strict cookie that later requests
// carry. Constant time in the token's content wherever it is compared.
#pragma once

#include <string>
#include <string_view>

#include "support/http_server.hpp"

namespace gantry::support {

// The cookie /login sets.
inline constexpr std::string_view kTokenCookie = "gantry_token";

// Whether `given` is `secret`, in time independent of where they differ.
bool same_secret(std::string_view given, std::string_view secret);

// Whether the request carries `token` as "Authorization: Bearer TOKEN" or as
// the cookie.
bool carries_token(const HttpRequest& request, const std::string& token);

// `name`'s value in a query string ("a=1&token=x%2By"), percent-decoded; ""
// when absent.
std::string query_value(std::string_view query, std::string_view name);

// GET /login?token=T: 303 to "/" setting the cookie when T is `token` ("" =
// insecure: any T), 401 when not. `secure` (HTTPS) marks the cookie Secure.
HttpReply login_reply(const HttpRequest& request, const std::string& token, bool secure);

}  // namespace gantry::support
