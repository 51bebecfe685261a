// Who may speak to the hub: the allow-list of CurveZMQ public keys, each
// with a name, bound to the clusters it may speak for (agents) or to a role
// (admin socket). Read from access.yaml (docs/security.md); the hub reloads
// it on SIGHUP and looks every frame's key name up again, so a key taken out
// is refused on its next frame.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace gantry::actors {

enum class Role : std::uint8_t {
  kNone,      // not allowed on the admin socket
  kViewer,    // get / describe / wait / watch
  kOperator,  // + submit; cancel and delete its own jobs, in its queues
  kAdmin,     // everything
};

std::string_view role_name(Role role);

struct Principal {
  std::string name;        // the key's name: what logs, audit and jobs say
  std::string public_key;  // Z85
  // Agents socket: the clusters this key may say Hello for ("*": any).
  std::vector<std::string> clusters;
  Role role = Role::kNone;
  std::vector<std::string> queues;  // operator: its queues; empty: every queue

  bool may_speak_for(std::string_view cluster) const;
  bool may_use_queue(std::string_view queue) const;
};

class AccessList {
 public:
  // Parses access.yaml; key files it names are read relative to `base_dir`.
  // Throws std::runtime_error naming `source`, the field and what is wrong.
  static AccessList parse(std::string_view yaml, const std::filesystem::path& base_dir,
                          std::string_view source);
  static AccessList load(const std::filesystem::path& file);

  // The hub's own key (its in-process Karmada gateway): any cluster, admin.
  void allow_hub(const std::string& public_key);

  const Principal* by_key(std::string_view public_key) const;
  const Principal* by_name(std::string_view name) const;
  std::size_t size() const { return by_name_.size(); }

 private:
  void add(Principal principal, const std::string& field);

  std::map<std::string, Principal, std::less<>> by_name_;
  std::map<std::string, std::string, std::less<>> name_by_key_;
};

// The name the hub's own key has in the list (and in logs and audit).
inline constexpr std::string_view kHubPrincipal = "hub";

}  // namespace gantry::actors
