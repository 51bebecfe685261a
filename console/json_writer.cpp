#include "console/json_writer.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace gantry::console {

namespace {

// Length of the valid UTF-8 sequence starting at text[i], or 0 if invalid.
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t length = 0;
  unsigned char min_second = 0x80, max_second = 0xBF;  // rules out overlongs and surrogates
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) min_second = 0xA0;
    if (lead == 0xED) max_second = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) min_second = 0x90;
    if (lead == 0xF4) max_second = 0x8F;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  if (byte(i + 1) < min_second || byte(i + 1) > max_second) return 0;
  for (std::size_t k = 2; k < length; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return length;
}

void append_escaped_ascii(std::string& out, char c) {
  switch (c) {
    case '"':
      out += "\\\"";
      return;
    case '\\':
      out += "\\\\";
      return;
    case '\b':
      out += "\\b";
      return;
    case '\f':
      out += "\\f";
      return;
    case '\n':
      out += "\\n";
      return;
    case '\r':
      out += "\\r";
      return;
    case '\t':
      out += "\\t";
      return;
    default:
      break;
  }
  if (static_cast<unsigned char>(c) < 0x20) {
    static constexpr char kHex[] = "0123456789abcdef";
    out += "\\u00";
    out += kHex[(c >> 4) & 0xF];
    out += kHex[c & 0xF];
    return;
  }
  out += c;
}

bool is_json_decimal(std::string_view digits) {
  std::size_t i = 0;
  if (i < digits.size() && digits[i] == '-') ++i;
  const std::size_t integer_start = i;
  while (i < digits.size() && digits[i] >= '0' && digits[i] <= '9') ++i;
  const std::size_t integer_length = i - integer_start;
  if (integer_length == 0) return false;
  if (integer_length > 1 && digits[integer_start] == '0') return false;
  if (i == digits.size()) return true;
  if (digits[i] != '.') return false;
  const std::size_t fraction_start = ++i;
  while (i < digits.size() && digits[i] >= '0' && digits[i] <= '9') ++i;
  return i == digits.size() && i > fraction_start;
}

}  // namespace

std::string json_quote(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  for (std::size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      append_escaped_ascii(out, text[i]);
      ++i;
      continue;
    }
    const std::size_t length = utf8_sequence_length(text, i);
    if (length == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
      ++i;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  out += '"';
  return out;
}

void JsonWriter::newline_and_indent() {
  if (indent_ <= 0) return;
  out_ += '\n';
  out_.append(scopes_.size() * static_cast<std::size_t>(indent_), ' ');
}

void JsonWriter::before_value() {
  if (scopes_.empty()) {
    if (done_) throw std::logic_error("JsonWriter: a second top-level value");
    done_ = true;
    return;
  }
  Scope& scope = scopes_.back();
  if (scope.is_object) {
    if (!scope.has_key) throw std::logic_error("JsonWriter: object value without a key");
    scope.has_key = false;
    return;
  }
  if (!scope.empty) out_ += ',';
  scope.empty = false;
  newline_and_indent();
}

JsonWriter& JsonWriter::key(std::string_view name) {
  if (scopes_.empty() || !scopes_.back().is_object || scopes_.back().has_key) {
    throw std::logic_error("JsonWriter: key \"" + std::string(name) + "\" outside an object");
  }
  Scope& scope = scopes_.back();
  if (!scope.empty) out_ += ',';
  scope.empty = false;
  scope.has_key = true;
  newline_and_indent();
  out_ += json_quote(name);
  out_ += indent_ > 0 ? ": " : ":";
  return *this;
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  out_ += '{';
  scopes_.push_back(Scope{true, true, false});
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  before_value();
  out_ += '[';
  scopes_.push_back(Scope{false, true, false});
  return *this;
}

void JsonWriter::close(bool is_object) {
  if (scopes_.empty() || scopes_.back().is_object != is_object || scopes_.back().has_key) {
    throw std::logic_error(is_object ? "JsonWriter: unbalanced end_object"
                                     : "JsonWriter: unbalanced end_array");
  }
  const bool empty = scopes_.back().empty;
  scopes_.pop_back();
  if (!empty) newline_and_indent();
  out_ += is_object ? '}' : ']';
}

JsonWriter& JsonWriter::end_object() {
  close(true);
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  close(false);
  return *this;
}

JsonWriter& JsonWriter::string(std::string_view text) {
  before_value();
  out_ += json_quote(text);
  return *this;
}

JsonWriter& JsonWriter::number(std::int64_t value) {
  before_value();
  out_ += std::to_string(value);
  return *this;
}

JsonWriter& JsonWriter::number(double value) {
  if (!std::isfinite(value)) return null();
  before_value();
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);  // shortest round trip
  out_.append(buffer, result.ptr);
  return *this;
}

JsonWriter& JsonWriter::decimal(std::string_view digits) {
  if (!is_json_decimal(digits)) {
    throw std::logic_error("JsonWriter: \"" + std::string(digits) + "\" is not a decimal number");
  }
  before_value();
  out_.append(digits);
  return *this;
}

JsonWriter& JsonWriter::boolean(bool value) {
  before_value();
  out_ += value ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  out_ += "null";
  return *this;
}

const std::string& JsonWriter::str() const {
  if (!scopes_.empty() || !done_) throw std::logic_error("JsonWriter: document is incomplete");
  return out_;
}

}  // namespace gantry::console
