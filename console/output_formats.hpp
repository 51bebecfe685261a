// get's -o yaml and -o name, from the objects -o json prints: one shape for
// every format, as kubectl's printers share one object.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace gantry::console {

// `json` as block YAML (yaml-cpp's emitter), a document ending in a newline.
std::string yaml_text(const nlohmann::ordered_json& json);

// One `KIND/NAME` line per object of the array `json` (kubectl get -o name).
std::string name_lines(const nlohmann::ordered_json& json, std::string_view kind);

}  // namespace gantry::console
