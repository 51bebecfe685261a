#include "config/bounded_json.hpp"

#include "hub/field_error.hpp"
#include "support/text_excerpt.hpp"

namespace gantry::config {

using nlohmann::json;

std::size_t json_depth_violation(std::string_view text, std::size_t max_depth) {
  std::size_t depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    switch (c) {
      case '"':
        in_string = true;
        break;
      case '[':
      case '{':
        if (++depth > max_depth) return i;
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;  // unbalanced input: the parser says so
        break;
      default:
        break;
    }
  }
  return std::string_view::npos;
}

json parse_bounded_json(std::string_view text, std::string_view what, std::size_t max_depth) {
  if (const std::size_t at = json_depth_violation(text, max_depth); at != std::string_view::npos)
    throw hub::FieldError(std::string(what), "",
                          "nested deeper than " + std::to_string(max_depth) + " levels at byte " +
                              std::to_string(at) + " (the limit)");
  try {
    return json::parse(text);
  } catch (const json::exception& error) {
    // Not only parse_error: a number past double's range (1e999) throws
    // out_of_range. nlohmann quotes the last token read, which may be the
    // rest of the body.
    throw hub::FieldError(std::string(what), "",
                          "not valid JSON: " + support::text_excerpt(error.what()));
  }
}

json parse_bounded_json_or_discarded(std::string_view text, std::size_t max_depth) {
  if (json_depth_violation(text, max_depth) != std::string_view::npos)
    return json(json::value_t::discarded);
  return json::parse(text, nullptr, /*allow_exceptions=*/false);
}

namespace {

// Writes `value` until `out` holds `budget` bytes: containers stop early, and
// long strings are cut before they are escaped.
void write_excerpt(const json& value, std::string& out, std::size_t budget, std::size_t depth) {
  if (out.size() >= budget) return;
  if (depth > kMaxJsonDepth) {
    out += "...";
    return;
  }
  if (value.is_object() || value.is_array()) {
    const bool object = value.is_object();
    out += object ? '{' : '[';
    bool first = true;
    for (auto item = value.begin(); item != value.end() && out.size() < budget; ++item) {
      if (!first) out += ',';
      first = false;
      if (object) out += json(support::text_excerpt(item.key(), budget)).dump() + ':';
      write_excerpt(item.value(), out, budget, depth + 1);
    }
    out += object ? '}' : ']';
    return;
  }
  if (value.is_string()) {
    out += json(support::text_excerpt(value.get_ref<const std::string&>(), budget)).dump();
    return;
  }
  out += value.dump();
}

}  // namespace

std::string json_excerpt(const json& value, std::size_t max_bytes) {
  std::string out;
  write_excerpt(value, out, max_bytes, 0);
  if (out.size() <= max_bytes) return out;
  // Cut on a character boundary: the excerpt is valid UTF-8 and may go into JSON.
  std::size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
  out.resize(cut);
  return out + "...";
}

}  // namespace gantry::config
