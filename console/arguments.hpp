// gantryctl's command line: which command, its operands and flags, checked
// completely before anything is sent to the hub.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "console/label_selector.hpp"

namespace gantry::console {

inline constexpr const char* kDefaultHub = "tcp://127.0.0.1:7801";

// A command line gantryctl cannot run; the message names the bad argument.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What the command line asks for. The fields after `command` are filled by
// the command's own operands and flags (CommandSpec::add_to).
struct Invocation {
  std::string hub = kDefaultHub;  // --hub, else $GANTRY_HUB, else kDefaultHub
  std::string hub_key_file;       // --hub-key (the environment and defaults: client_keys.hpp)
  std::string key_file;           // --key
  bool insecure = false;          // --insecure: plaintext, no keys
  std::chrono::milliseconds request_timeout{5000};  // per request to the hub
  std::string command;      // a name in command_table(); "help" when none is given
  std::string help_topic;   // help: the command it is about ("" for all)
  std::string kind;         // get: jobs|clusters|queues; describe: job|queue|cluster; ...
  std::string name;         // describe / cancel / wait / delete; get: one object ("": all)
  std::vector<std::string> files;  // -f FILE|DIR ("-" = stdin), repeatable
  bool recursive = false;          // -R: -f DIR reads its subdirectories too
  bool json = false;        // -o json
  bool wide = false;        // -o wide: get clusters adds GPU usage and OCM score columns
  bool yaml = false;        // get -o yaml
  bool names_only = false;  // get -o name
  std::string wait_phase;   // wait --for phase=PHASE, canonical case ("Running")
  std::chrono::milliseconds wait_timeout{30000};
  std::string key_dir = ".";                       // keys generate --dir DIR
  std::string phase_filter;                        // get jobs --phase PHASE, canonical case
  std::string queue_filter;                        // get jobs --queue QUEUE
  std::string cluster_filter;                      // get jobs --cluster CLUSTER
  LabelSelector label_filter;                      // get jobs -l SELECTOR
  std::optional<std::chrono::milliseconds> since;  // get jobs|usage|events --since DURATION
  bool watch = false;                              // get -w: print changes as they happen
  std::string job;                                 // get events --job NAME
  std::string task;                                // logs --task T ("": the first task)
  std::int32_t replica = 0;                        // logs --replica I
  bool follow = false;                             // logs -f
  std::int32_t tail = -1;                          // logs --tail N; -1: everything
};

// `args` excludes the program name. `env_hub` is $GANTRY_HUB or nullptr.
// Throws UsageError.
Invocation parse_arguments(const std::vector<std::string>& args, const char* env_hub);

// The full help text, or only `topic`'s usage when it names a command.
std::string usage_text(std::string_view topic = "");
// The first of `args` that names a command ("" when none does): what an
// argument error's usage is about.
std::string named_command(const std::vector<std::string>& args);

}  // namespace gantry::console
