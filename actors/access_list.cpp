#include "actors/access_list.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>

#include "config/yaml_fields.hpp"
#include "support/curve_keys.hpp"

namespace gantry::actors {

std::string_view role_name(Role role) {
  switch (role) {
    case Role::kNone:
      return "none";
    case Role::kViewer:
      return "viewer";
    case Role::kOperator:
      return "operator";
    case Role::kAdmin:
      return "admin";
  }
  return "none";
}

bool Principal::may_speak_for(std::string_view cluster) const {
  return std::any_of(clusters.begin(), clusters.end(),
                     [&](const std::string& allowed) { return allowed == "*" || allowed == cluster; });
}

bool Principal::may_use_queue(std::string_view queue) const {
  return queues.empty() || std::find(queues.begin(), queues.end(), queue) != queues.end();
}

namespace {

Role parse_role(const std::string& text, const std::string& field) {
  if (text == "viewer") return Role::kViewer;
  if (text == "operator") return Role::kOperator;
  if (text == "admin") return Role::kAdmin;
  throw std::runtime_error(field + ": \"" + text + "\" is not a role (viewer, operator, admin)");
}

// `public_key: <Z85>` or `public_key_file: PATH` (relative to the list's folder).
std::string public_key_of(const YAML::Node& entry, const std::filesystem::path& base_dir,
                          const std::string& field) {
  const std::string inline_key = config::optional_string(entry, "public_key", field);
  const std::string key_file = config::optional_string(entry, "public_key_file", field);
  if (inline_key.empty() == key_file.empty()) {
    throw std::runtime_error(field + ": needs exactly one of public_key and public_key_file");
  }
  if (!inline_key.empty()) {
    if (!support::is_z85_key(inline_key)) {
      throw std::runtime_error(field +
                               ".public_key: not a CurveZMQ public key (40 Z85 characters)");
    }
    return inline_key;
  }
  std::filesystem::path path = key_file;
  if (path.is_relative()) path = base_dir / path;
  return support::read_public_key_file(path);
}

Principal read_entry(const YAML::Node& entry, const std::filesystem::path& base_dir,
                     const std::string& field, bool agent) {
  config::require_map(entry, field);
  if (agent) {
    config::reject_unknown(entry, {"name", "public_key", "public_key_file", "clusters"}, field);
  } else {
    config::reject_unknown(entry, {"name", "public_key", "public_key_file", "role", "queues"},
                           field);
  }
  Principal principal;
  principal.name = config::optional_string(entry, "name", field);
  if (principal.name.empty()) throw std::runtime_error(field + ".name: must be set");
  principal.public_key = public_key_of(entry, base_dir, field);
  if (agent) {
    principal.clusters = config::string_list(entry["clusters"], field + ".clusters");
    if (principal.clusters.empty()) {
      throw std::runtime_error(field + ".clusters: name at least one cluster");
    }
  } else {
    principal.role = parse_role(config::optional_string(entry, "role", field), field + ".role");
    principal.queues = config::string_list(entry["queues"], field + ".queues");
    if (!principal.queues.empty() && principal.role != Role::kOperator) {
      throw std::runtime_error(field + ".queues: only an operator is limited to queues");
    }
  }
  return principal;
}

void read_section(const YAML::Node& root, const std::string& section,
                  const std::filesystem::path& base_dir, bool agent,
                  const std::function<void(Principal, const std::string&)>& add) {
  const YAML::Node entries = root[section];
  if (!entries) return;
  config::require_sequence(entries, section);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const std::string field = section + "[" + std::to_string(i) + "]";
    add(read_entry(entries[i], base_dir, field, agent), field);
  }
}

}  // namespace

AccessList AccessList::parse(std::string_view yaml, const std::filesystem::path& base_dir,
                             std::string_view source) {
  AccessList list;
  try {
    const YAML::Node root = config::load_document(yaml);
    if (root.IsNull()) return list;
    config::require_map(root, "access list");
    config::reject_unknown(root, {"agents", "admins"}, "access list");
    const auto add = [&](Principal principal, const std::string& field) {
      list.add(std::move(principal), field);
    };
    read_section(root, "agents", base_dir, true, add);
    read_section(root, "admins", base_dir, false, add);
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string(source) + ": " + e.what());
  }
  return list;
}

AccessList AccessList::load(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error(file.string() + ": cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return parse(text.str(), file.parent_path(), file.string());
}

void AccessList::add(Principal principal, const std::string& field) {
  if (by_name_.count(principal.name) != 0) {
    throw std::runtime_error(field + ".name: \"" + principal.name + "\" is listed twice");
  }
  if (name_by_key_.count(principal.public_key) != 0) {
    throw std::runtime_error(field + ": its public key is already listed as \"" +
                             name_by_key_.find(principal.public_key)->second + "\"");
  }
  name_by_key_.emplace(principal.public_key, principal.name);
  const std::string name = principal.name;
  by_name_.emplace(name, std::move(principal));
}

void AccessList::allow_hub(const std::string& public_key) {
  if (auto listed = name_by_key_.find(public_key); listed != name_by_key_.end()) {
    by_name_.erase(listed->second);
    name_by_key_.erase(listed);
  }
  by_name_.erase(std::string(kHubPrincipal));
  Principal hub;
  hub.name = std::string(kHubPrincipal);
  hub.public_key = public_key;
  hub.clusters = {"*"};
  hub.role = Role::kAdmin;
  name_by_key_.emplace(public_key, hub.name);
  by_name_.emplace(hub.name, std::move(hub));
}

const Principal* AccessList::by_key(std::string_view public_key) const {
  const auto name = name_by_key_.find(public_key);
  return name == name_by_key_.end() ? nullptr : by_name(name->second);
}

const Principal* AccessList::by_name(std::string_view name) const {
  const auto found = by_name_.find(name);
  return found == by_name_.end() ? nullptr : &found->second;
}

}  // namespace gantry::actors
