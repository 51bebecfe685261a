#include "console/completion.hpp"

#include <CLI/CLI.hpp>
#include <set>
#include <utility>
#include <vector>

#include "console/arguments.hpp"
#include "console/command_line.hpp"
#include "console/command_table.hpp"

namespace gantry::console {

namespace {

// What the script needs to know of a command.
struct CommandWords {
  std::string name;
  std::vector<std::string> kinds;  // its KIND operand's choices, else none
  std::vector<std::string> flags;  // every spelling
  bool named = false;              // a NAME of a hub object follows the kind
  bool takes_command = false;      // help COMMAND
};

struct Flag {
  std::vector<std::string> spellings;
  std::string value;  // "" for a switch, else its type name ("FILE", "json|yaml")
};

std::vector<std::string> words_of(std::string_view text) {
  std::vector<std::string> words;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find(' ', at), text.size());
    if (end > at) words.emplace_back(text.substr(at, end - at));
    at = end + 1;
  }
  return words;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t at = 0;
  for (std::size_t end; (end = text.find(separator, at)) != std::string::npos; at = end + 1)
    parts.push_back(text.substr(at, end - at));
  parts.push_back(text.substr(at));
  return parts;
}

bool is_kind_list(const std::string& word) {
  return !word.empty() &&
         word.find_first_not_of("abcdefghijklmnopqrstuvwxyz|") == std::string::npos;
}

std::vector<std::string> spellings_of(const CLI::Option& option) {
  std::vector<std::string> spellings;
  for (const std::string& name : option.get_snames()) spellings.push_back("-" + name);
  for (const std::string& name : option.get_lnames()) spellings.push_back("--" + name);
  return spellings;
}

Flag flag_of(const CLI::Option& option) {
  return Flag{spellings_of(option), option.get_type_size_max() == 0 ? "" : option.get_type_name()};
}

// The commands, and every flag of the root and of the commands.
void read_commands(std::vector<CommandWords>& commands, std::vector<Flag>& flags,
                   std::vector<std::string>& global_flags) {
  Invocation ignored;
  CLI::App root;
  root.set_help_flag("-h,--help");
  // The connection flags as parse_arguments declares them: read from its usage.
  for (const char* name : {"--hub", "--hub-key", "--key", "--request-timeout", "--timeout"}) {
    flags.push_back(Flag{{name},
                         name == std::string("--hub")         ? "ENDPOINT"
                         : std::string(name).ends_with("key") ? "FILE"
                                                              : "DURATION"});
    global_flags.emplace_back(name);
  }
  flags.push_back(Flag{{"--insecure"}, ""});
  global_flags.emplace_back("--insecure");
  global_flags.emplace_back("--help");
  for (const CommandSpec* spec : command_table()) {
    CLI::App* app = root.add_subcommand(std::string(spec->name));
    spec->add_to(*app, ignored);
    CommandWords command{std::string(spec->name), {}, {}, false, false};
    const std::vector<std::string> synopsis = words_of(spec->synopsis);
    if (synopsis.size() > 1 && is_kind_list(synopsis[1])) command.kinds = split(synopsis[1], '|');
    command.takes_command = synopsis.size() > 1 && synopsis[1] == "[COMMAND]";
    command.named = synopsis.size() > 2 && (synopsis[2] == "NAME" || synopsis[2] == "[NAME]");
    for (const CLI::Option* option : app->get_options()) {
      if (!option->nonpositional() || option->get_name() == "-h,--help") continue;
      Flag flag = flag_of(*option);
      command.flags.insert(command.flags.end(), flag.spellings.begin(), flag.spellings.end());
      flags.push_back(std::move(flag));
    }
    commands.push_back(std::move(command));
  }
}

std::string joined(const std::vector<std::string>& words) {
  std::string text;
  for (const std::string& word : words) text += (text.empty() ? "" : " ") + word;
  return text;
}

// `case "$1" in A) echo "...";; esac` over the commands.
std::string per_command(const std::vector<CommandWords>& commands,
                        std::string (*words)(const CommandWords&)) {
  std::string text = "  case $1 in\n";
  for (const CommandWords& command : commands) {
    const std::string listed = words(command);
    if (!listed.empty()) text += "    " + command.name + ") echo \"" + listed + "\" ;;\n";
  }
  return text + "  esac\n";
}

// The kind whose names a flag's value is (get jobs --queue QUEUE), else "".
std::string listed_by_flag(const Flag& flag) {
  for (const std::string& spelling : flag.spellings) {
    if (spelling == "--queue") return "queues";
    if (spelling == "--cluster") return "clusters";
    if (spelling == "--job") return "jobs";
  }
  return "";
}

std::string value_flags_case(const std::vector<Flag>& flags) {
  std::set<std::string> with_value;
  std::string choices;
  std::set<std::string> seen;
  for (const Flag& flag : flags) {
    if (flag.value.empty()) continue;
    const std::string pattern = joined(flag.spellings);
    with_value.insert(flag.spellings.begin(), flag.spellings.end());
    if (!seen.insert(pattern).second) continue;
    std::string pattern_alternatives;
    for (const std::string& spelling : flag.spellings)
      pattern_alternatives += (pattern_alternatives.empty() ? "" : "|") + spelling;
    if (flag.value.find('|') != std::string::npos) {
      std::string values = flag.value;
      for (char& c : values)
        if (c == '|') c = ' ';
      choices += "    " + pattern_alternatives + ") words=\"" + values + "\" ;;\n";
    } else if (flag.value == "FILE") {
      choices +=
          "    " + pattern_alternatives + ") COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n";
    } else if (const std::string kind = listed_by_flag(flag); !kind.empty()) {
      choices += "    " + pattern_alternatives + ") words=$(gantryctl \"${hub[@]}\" get " + kind +
                 " -o name 2>/dev/null | sed 's|^[^/]*/||') ;;\n";
    } else if (flag.value == "DIR") {
      choices +=
          "    " + pattern_alternatives + ") COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n";
    }
  }
  std::string all;
  for (const std::string& spelling : with_value) all += (all.empty() ? "" : "|") + spelling;
  return "_gantryctl_takes_value() {\n  case $1 in\n    " + all +
         ") return 0 ;;\n  esac\n  return 1\n}\n\n"
         "# Completes a flag's value: its choices, files, or names the hub lists (asked\n"
         "# with the line's --hub, in _gantryctl's hub).\n"
         "_gantryctl_value() {\n  local words=\n  case $1 in\n" +
         choices +
         "    *) COMPREPLY=(); return ;;\n  esac\n"
         "  COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n}\n";
}

// The function bash calls; the @WORDS@ are filled in from the command table.
constexpr std::string_view kCompletionFunction = R"sh(_gantryctl() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
  local command= kind= operands=0 i word
  local -a hub=()
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=${COMP_WORDS[i]}
    if [[ $word == -* ]]; then
      case $word in
        --hub|--hub-key|--key) hub+=("$word" "${COMP_WORDS[i+1]}") ;;
        --hub=*|--hub-key=*|--key=*|--insecure) hub+=("$word") ;;
      esac
      [[ $word != *=* ]] && _gantryctl_takes_value "$word" && ((i++))
      continue
    fi
    if [[ -z $command ]]; then command=$word
    elif [[ -z $kind ]]; then kind=$word
    else ((operands++))
    fi
  done
  if [[ $prev == -* ]] && _gantryctl_takes_value "$prev"; then
    _gantryctl_value "$prev"
    return
  fi
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "@GLOBAL_FLAGS@ $(_gantryctl_flags "$command")" -- "$cur"))
    return
  fi
  if [[ -z $command || ( $command == help && -z $kind ) ]]; then
    COMPREPLY=($(compgen -W "@COMMANDS@" -- "$cur"))
    return
  fi
  if [[ -z $kind ]]; then
    COMPREPLY=($(compgen -W "$(_gantryctl_kinds "$command")" -- "$cur"))
    return
  fi
  # A name of what the hub lists, asked of the hub the line names.
  case $command in
    @NAMED@) ;;
    *) return ;;
  esac
  case $kind in
    @LISTED_KINDS@) ;;
    *) return ;;
  esac
  if ((operands == 0)); then
    local objects
    objects=$(gantryctl "${hub[@]}" get "$kind" -o name 2>/dev/null | sed 's|^[^/]*/||')
    COMPREPLY=($(compgen -W "$objects" -- "$cur"))
  fi
}

complete -F _gantryctl gantryctl
)sh";

std::string with_words(std::string_view text,
                       const std::vector<std::pair<std::string, std::string>>& words) {
  std::string filled(text);
  for (const auto& [placeholder, value] : words)
    for (std::size_t at; (at = filled.find(placeholder)) != std::string::npos;)
      filled.replace(at, placeholder.size(), value);
  return filled;
}

std::string bash_script() {
  std::vector<CommandWords> commands;
  std::vector<Flag> flags;
  std::vector<std::string> global_flags;
  read_commands(commands, flags, global_flags);
  std::vector<std::string> names;
  for (const CommandWords& command : commands) names.push_back(command.name);
  // Kinds whose objects the hub lists: their names can be completed.
  std::string listed_kinds;
  for (const CommandWords& command : commands)
    if (command.name == "get")
      for (const std::string& kind : command.kinds)
        listed_kinds += (listed_kinds.empty() ? "" : "|") + kind + "|" + singular_kind(kind);
  std::string script =
      "# gantryctl completion for bash, made by `gantryctl completion bash`:\n"
      "#   source <(gantryctl completion bash)\n"
      "# or save it as /etc/bash_completion.d/gantryctl.\n\n";
  script += value_flags_case(flags) + "\n";
  script += "_gantryctl_kinds() {\n" +
            per_command(commands, [](const CommandWords& c) { return joined(c.kinds); }) + "}\n\n";
  script += "_gantryctl_flags() {\n" +
            per_command(commands, [](const CommandWords& c) { return joined(c.flags); }) + "}\n\n";
  std::string named;
  for (const CommandWords& command : commands)
    if (command.named) named += (named.empty() ? "" : "|") + command.name;
  script += with_words(kCompletionFunction, {{"@GLOBAL_FLAGS@", joined(global_flags)},
                                             {"@COMMANDS@", joined(names)},
                                             {"@NAMED@", named},
                                             {"@LISTED_KINDS@", listed_kinds}});
  return script;
}

}  // namespace

std::string completion_script(std::string_view shell) {
  if (shell == "bash") return bash_script();
  if (shell == "zsh") {
    return "#compdef gantryctl\n"
           "# gantryctl completion for zsh, made by `gantryctl completion zsh`:\n"
           "#   source <(gantryctl completion zsh)\n"
           "# (zsh runs the bash completion through bashcompinit.)\n"
           "autoload -U +X bashcompinit && bashcompinit\n\n" +
           bash_script();
  }
  throw UsageError("completion: unknown shell \"" + std::string(shell) +
                   "\" (expected bash or zsh)");
}

}  // namespace gantry::console
