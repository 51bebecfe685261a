#include "console/output_formats.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>

namespace gantry::console {

namespace {

// A string YAML would read back as something else (a boolean, a null, a
// number), so it is quoted: yaml-cpp writes such strings plain.
bool reads_as_other_than_text(const std::string& text) {
  if (text.empty()) return true;
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  constexpr std::array<std::string_view, 14> kWords = {"true", "false", "yes",   "no",   "on",
                                                       "off",  "y",     "n",     "null", "~",
                                                       ".inf", "-.inf", "+.inf", ".nan"};
  if (std::find(kWords.begin(), kWords.end(), lower) != kWords.end()) return true;
  char* end = nullptr;
  std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

void emit(YAML::Emitter& out, const nlohmann::ordered_json& json) {
  switch (json.type()) {
    case nlohmann::ordered_json::value_t::object:
      out << YAML::BeginMap;
      for (const auto& [key, value] : json.items()) {
        out << YAML::Key << key << YAML::Value;
        emit(out, value);
      }
      out << YAML::EndMap;
      return;
    case nlohmann::ordered_json::value_t::array:
      out << YAML::BeginSeq;
      for (const auto& value : json) emit(out, value);
      out << YAML::EndSeq;
      return;
    case nlohmann::ordered_json::value_t::string:
      if (reads_as_other_than_text(json.get<std::string>())) out << YAML::DoubleQuoted;
      out << json.get<std::string>();
      return;
    case nlohmann::ordered_json::value_t::boolean:
      out << json.get<bool>();
      return;
    case nlohmann::ordered_json::value_t::null:
      out << YAML::Null;
      return;
    default:  // numbers: plain, as JSON writes them
      out << json.dump();
      return;
  }
}

}  // namespace

std::string yaml_text(const nlohmann::ordered_json& json) {
  YAML::Emitter out;
  out.SetBoolFormat(YAML::TrueFalseBool);
  out.SetNullFormat(YAML::LowerNull);
  emit(out, json);
  std::string text = out.c_str();
  if (text.empty() || text.back() != '\n') text += '\n';
  return text;
}

std::string name_lines(const nlohmann::ordered_json& json, std::string_view kind) {
  std::string lines;
  for (const auto& item : json) {
    lines += kind;
    lines += '/';
    lines += item.value("name", "");
    lines += '\n';
  }
  return lines;
}

}  // namespace gantry::console
