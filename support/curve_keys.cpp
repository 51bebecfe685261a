#include "support/curve_keys.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "support/private_file.hpp"

namespace gantry::support {
namespace {

constexpr std::size_t z85_key_length = 40;
// A key file is a few hundred bytes; anything far larger is not one.
constexpr std::uintmax_t max_key_file_bytes = 64 * 1024;
constexpr std::string_view z85_alphabet =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

std::runtime_error file_error(const std::filesystem::path& file, const std::string& what) {
  return std::runtime_error("key file " + file.string() + ": " + what);
}

void require_file_name_safe(const std::string& name) {
  const bool safe_characters = !name.empty() && name.size() <= 128 && name.front() != '.' &&
                               name.find_first_not_of(
                                   "abcdefghijklmnopqrstuvwxyz"
                                   "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                   "0123456789._-") == std::string::npos;
  if (!safe_characters) {
    throw std::runtime_error("key name '" + name +
                             "' must be 1-128 letters, digits, '.', '_' or '-', not starting "
                             "with '.'");
  }
}

std::string trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r");
  return std::string(text.substr(first, last - first + 1));
}

std::string unquote(const std::string& value) {
  if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
      value.back() == value.front()) {
    return value.substr(1, value.size() - 2);
  }
  return value;
}

// What a key file says: either ZPL (section/name -> value, e.g.
// "curve/public-key") or one bare key on a line of its own.
struct KeyFileContents {
  std::map<std::string, std::string> values;
  std::optional<std::string> bare_key;
};

std::string read_small_file(const std::filesystem::path& file) {
  std::error_code error;
  const auto size = std::filesystem::file_size(file, error);
  if (error) throw file_error(file, "cannot read it: " + error.message());
  if (size > max_key_file_bytes) {
    throw file_error(file, "is " + std::to_string(size) + " bytes; a key file is at most " +
                               std::to_string(max_key_file_bytes));
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) throw file_error(file, std::string("cannot open it: ") + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A lone 40-character key (after comments and blank lines), or ZPL as zcert
// writes it: a section name at column 0, then indented "name = value" lines;
// '#' starts a comment line.
KeyFileContents parse_key_file(const std::filesystem::path& file) {
  const std::string text = read_small_file(file);
  struct Line {
    int number;
    bool indented;
    std::string content;
  };
  std::vector<Line> meaningful;
  std::istringstream lines(text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    std::string content = trim(line);
    if (content.empty() || content.front() == '#') continue;
    meaningful.push_back({number, line.front() == ' ' || line.front() == '\t', std::move(content)});
  }
  KeyFileContents contents;
  if (meaningful.size() == 1 && is_z85_key(meaningful.front().content)) {
    contents.bare_key = meaningful.front().content;
    return contents;
  }
  std::string section;
  for (const Line& entry : meaningful) {
    const auto equals = entry.content.find('=');
    if (equals == std::string::npos) {
      if (entry.indented) {
        throw file_error(file, "line " + std::to_string(entry.number) +
                                   ": expected 'name = value' or a section name");
      }
      section = entry.content;
      continue;
    }
    const std::string_view content = entry.content;
    const std::string name = trim(content.substr(0, equals));
    const std::string value = unquote(trim(content.substr(equals + 1)));
    contents.values[section.empty() ? name : section + "/" + name] = value;
  }
  return contents;
}

std::string required_key(const KeyFileContents& contents, const std::filesystem::path& file,
                         const std::string& field, const std::string& hint) {
  const auto found = contents.values.find("curve/" + field);
  if (found == contents.values.end()) {
    throw file_error(file, "has no " + field + " in its 'curve' section" + hint);
  }
  if (!is_z85_key(found->second)) {
    throw file_error(file, field + " is not a 40-character Z85 key");
  }
  return found->second;
}

std::string key_file_text(const CurveKeyPair& keys, bool with_secret) {
  std::string text = "#   ****  Generated by gantryctl keys generate  ****\n";
  text += with_secret ? "#   Secret key: do not share this file; keep its mode 0600.\n"
                      : "#   Public key: safe to share.\n";
  text += "\nmetadata\n    name = \"" + keys.name + "\"\ncurve\n";
  text += "    public-key = \"" + keys.public_key + "\"\n";
  if (with_secret) text += "    secret-key = \"" + keys.secret_key + "\"\n";
  return text;
}

}  // namespace

bool is_z85_key(std::string_view text) {
  if (text.size() != z85_key_length) return false;
  // Each 5 characters encode 4 bytes; the alphabet alone admits groups whose
  // value overflows 32 bits, which libzmq would reject later, less clearly.
  for (std::size_t group = 0; group < text.size(); group += 5) {
    std::uint64_t value = 0;
    for (std::size_t i = group; i < group + 5; ++i) {
      const auto digit = z85_alphabet.find(text[i]);
      if (digit == std::string_view::npos) return false;
      value = value * 85 + digit;
    }
    if (value > 0xffffffffu) return false;
  }
  return true;
}

CurveKeyPair generate_curve_keypair(std::string name) {
  require_file_name_safe(name);
  std::array<char, z85_key_length + 1> public_key{};
  std::array<char, z85_key_length + 1> secret_key{};
  if (zmq_curve_keypair(public_key.data(), secret_key.data()) != 0) {
    throw std::runtime_error(std::string("cannot generate a CURVE keypair (libzmq built without "
                                         "CURVE?): ") +
                             zmq_strerror(zmq_errno()));
  }
  return CurveKeyPair{std::move(name), public_key.data(), secret_key.data()};
}

void write_key_files(const CurveKeyPair& keys, const std::filesystem::path& dir) {
  require_file_name_safe(keys.name);
  if (!is_z85_key(keys.public_key) || !is_z85_key(keys.secret_key)) {
    throw std::runtime_error("key pair '" + keys.name + "' does not hold two Z85 keys");
  }
  if (!dir.empty() && !std::filesystem::exists(dir)) {
    if (dir.has_parent_path()) std::filesystem::create_directories(dir.parent_path());
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
      throw std::runtime_error("cannot create key directory " + dir.string() + ": " +
                               std::strerror(errno));
    }
  }
  const std::filesystem::path secret_file = dir / (keys.name + ".key");
  const std::filesystem::path public_file = dir / (keys.name + ".pub");
  if (std::filesystem::exists(secret_file)) {
    throw file_error(secret_file, "already exists; remove it first to replace the keypair");
  }
  // The public file is derived from the secret one, so an old one is replaced.
  std::filesystem::remove(public_file);
  write_new_file(secret_file, key_file_text(keys, true), 0600);
  write_new_file(public_file, key_file_text(keys, false), 0644);
}

CurveKeyPair read_secret_key_file(const std::filesystem::path& file) {
  const KeyFileContents contents = parse_key_file(file);
  const std::string hint = " (a .pub file holds only the public key; give the .key file)";
  CurveKeyPair keys;
  keys.public_key = required_key(contents, file, "public-key", "");
  keys.secret_key = required_key(contents, file, "secret-key", hint);
  std::array<char, z85_key_length + 1> derived{};
  if (zmq_curve_public(derived.data(), keys.secret_key.c_str()) != 0 ||
      keys.public_key != derived.data()) {
    throw file_error(file, "public-key does not belong to secret-key");
  }
  const auto name = contents.values.find("metadata/name");
  keys.name = name != contents.values.end() ? name->second : file.stem().string();
  return keys;
}

std::string read_public_key_file(const std::filesystem::path& file) {
  const KeyFileContents contents = parse_key_file(file);
  if (contents.bare_key) return *contents.bare_key;
  return required_key(contents, file, "public-key",
                      " (nor is the file just a 40-character Z85 key)");
}

}  // namespace gantry::support
