// keys generate NAME [--dir DIR]: a CurveZMQ keypair for gantryctl, an agent
// or a hub, made locally without the hub.
#include <CLI/CLI.hpp>
#include <ostream>

#include "console/command_line.hpp"
#include "console/command_table.hpp"
#include "console/commands.hpp"
#include "support/curve_keys.hpp"

namespace gantry::console {

namespace {

void add_keys(CLI::App& command, Invocation& invocation) {
  add_kind_operand(command, invocation.kind, {"generate"});
  add_name_operand(command, invocation.name);
  add_value_flag(command, "--dir", "DIR", [&invocation](const std::string& value) {
    if (value.empty()) throw UsageError("--dir: empty directory name");
    invocation.key_dir = value;
  });
}

// The public key alone on the first line, so a script can take it with
// `head -1`; then what to do with it.
void print_next_steps(std::ostream& out, const support::CurveKeyPair& keys,
                      const std::filesystem::path& dir) {
  const std::filesystem::path secret_file = dir / (keys.name + ".key");
  const std::filesystem::path public_file = dir / (keys.name + ".pub");
  out << keys.public_key << "\n\n"
      << "Wrote " << secret_file.string() << " (secret, mode 0600: do not share it) and "
      << public_file.string() << ".\n"
      << "To allow it, add it to the hub's access.yaml and send the hub SIGHUP.\n"
      << "For gantryctl (role: viewer, operator or admin):\n"
      << "admins:\n"
      << "  - name: " << keys.name << "\n"
      << "    public_key: \"" << keys.public_key << "\"\n"
      << "    role: viewer\n"
      << "For a cluster's agent (the clusters it may speak for):\n"
      << "agents:\n"
      << "  - name: " << keys.name << "\n"
      << "    public_key: \"" << keys.public_key << "\"\n"
      << "    clusters: [CLUSTER]\n";
}

int run_keys(CommandContext& context) {
  const Invocation& invocation = context.invocation;
  const support::CurveKeyPair keys = support::generate_curve_keypair(invocation.name);
  support::write_key_files(keys, invocation.key_dir);
  print_next_steps(context.out, keys, invocation.key_dir);
  return kExitOk;
}

}  // namespace

extern const CommandSpec kKeysCommand{
    "keys", "keys generate NAME [--dir DIR]",
    "write a CurveZMQ keypair: DIR/NAME.key (secret) and\nDIR/NAME.pub (default DIR: .)", add_keys,
    run_keys};

}  // namespace gantry::console
