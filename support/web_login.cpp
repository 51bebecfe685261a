#include "support/web_login.hpp"

#include <openssl/crypto.h>

#include <algorithm>
#include <cctype>

namespace gantry::support {

namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string percent_decoded(std::string_view text) {
  std::string plain;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      plain += ' ';
    } else if (text[i] == '%' && i + 2 < text.size() && hex_digit(text[i + 1]) >= 0 &&
               hex_digit(text[i + 2]) >= 0) {
      plain += static_cast<char>(hex_digit(text[i + 1]) * 16 + hex_digit(text[i + 2]));
      i += 2;
    } else {
      plain += text[i];
    }
  }
  return plain;
}

std::string_view trimmed_spaces(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

// The cookie's value in a Cookie header ("a=1; gantry_token=T"); "" when absent.
std::string_view cookie_value(std::string_view header, std::string_view name) {
  while (!header.empty()) {
    const auto semicolon = header.find(';');
    const std::string_view pair = trimmed_spaces(header.substr(0, semicolon));
    const auto equals = pair.find('=');
    if (equals != std::string_view::npos && pair.substr(0, equals) == name)
      return pair.substr(equals + 1);
    if (semicolon == std::string_view::npos) break;
    header.remove_prefix(semicolon + 1);
  }
  return {};
}

// RFC 6265 cookie-octets, so that the token travels in a cookie unchanged.
bool cookie_safe(const std::string& token) {
  return std::all_of(token.begin(), token.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte > 0x20 && byte < 0x7f && c != '"' && c != ',' && c != ';' && c != '\\';
  });
}

}  // namespace

bool same_secret(std::string_view given, std::string_view secret) {
  return given.size() == secret.size() &&
         CRYPTO_memcmp(given.data(), secret.data(), secret.size()) == 0;
}

bool carries_token(const HttpRequest& request, const std::string& token) {
  return same_secret(request.authorization, "Bearer " + token) ||
         same_secret(cookie_value(request.cookie, kTokenCookie), token);
}

std::string query_value(std::string_view query, std::string_view name) {
  while (!query.empty()) {
    const auto ampersand = query.find('&');
    const std::string_view pair = query.substr(0, ampersand);
    const auto equals = pair.find('=');
    if (equals != std::string_view::npos && pair.substr(0, equals) == name)
      return percent_decoded(pair.substr(equals + 1));
    if (ampersand == std::string_view::npos) break;
    query.remove_prefix(ampersand + 1);
  }
  return "";
}

HttpReply login_reply(const HttpRequest& request, const std::string& token, bool secure) {
  if (request.method != "GET") return method_not_allowed(request.method, request.path, "GET");
  const std::string given = query_value(request.query, "token");
  if (!token.empty() && !same_secret(given, token)) {
    HttpReply refused =
        text_reply(401, "/login?token=TOKEN needs the token of --metrics-token-file");
    refused.www_authenticate = "Bearer realm=\"gantry\"";
    return refused;
  }
  if (!cookie_safe(token)) {
    return text_reply(500,
                      "the token of --metrics-token-file holds characters a cookie cannot "
                      "carry; use a token of letters and digits");
  }
  HttpReply reply = text_reply(303, "logged in: see /");
  std::string cookie =
      std::string(kTokenCookie) + "=" + token + "; Path=/; HttpOnly; SameSite=Strict";
  if (secure) cookie += "; Secure";
  reply.headers = {{"Location", "/"}, {"Set-Cookie", cookie}};
  return reply;
}

}  // namespace gantry::support
