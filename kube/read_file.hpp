// Whole-file reads for credentials (certificates, keys, tokens).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace gantry::kube {

// The file's bytes, or nullopt when it cannot be read.
std::optional<std::string> read_whole_file(const std::filesystem::path& path);

// A token file's content without surrounding whitespace (files end in "\n").
std::string trim_token(std::string text);

}  // namespace gantry::kube
