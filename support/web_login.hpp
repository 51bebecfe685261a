// How a browser carries a web view login (docs/web.md): it cannot send an
// Authorization header when it opens a page, so /login turns a one-time
// ticket (support/web_sessions.hpp) into an HttpOnly, SameSite=Strict cookie
// that later requests carry. The pieces of HTTP that takes, and a constant
// time comparison for the scrape token.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

namespace gantry::support {

// The cookie /login sets: the session's id.
inline constexpr std::string_view kSessionCookie = "gantry_session";

// Whether `given` is `secret`, in time independent of where they differ.
bool same_secret(std::string_view given, std::string_view secret);

// `name`'s value in a query string ("a=1&ticket=x%2By"), percent-decoded; ""
// when absent.
std::string query_value(std::string_view query, std::string_view name);

// `text` with every byte but RFC 3986's unreserved ones (letters, digits,
// "-._~") percent-encoded: safe in a query value or a URL's fragment.
std::string percent_encoded(std::string_view text);

// `name`'s value in a Cookie header ("a=1; gantry_session=S"); "" when absent.
std::string_view cookie_value(std::string_view header, std::string_view name);

// The Set-Cookie value for the session cookie: HttpOnly, SameSite=Strict,
// Path=/, kept `max_age` (0: deleted now), and Secure over HTTPS. `value` is
// hex (random_hex), which a cookie carries unchanged.
std::string session_cookie(std::string_view value, std::chrono::seconds max_age, bool secure);

}  // namespace gantry::support
