// What Gantry's programs share about their command lines, on top of CLI11:
// flags whose text is read by a function that words its own refusal, the
// number and log-level readers, one parse call with each program's error
// wording, and one "parse, or print the error / the help and exit" step for
// main(). Header-only (CLI11 is), so programs that do not link gantry_config
// can use it too: link gantry_command_line.
#pragma once

#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace gantry::command_line {

// A value reader turns a flag's text into a value, or throws
// std::invalid_argument saying what it expected ("expected a positive number");
// the flag and the refused text are added around that.
template <typename T>
using Reader = std::function<T(const std::string&)>;

// The whole text as a number of type T, or nothing (no sign tricks, no spaces,
// no trailing characters).
template <typename T>
std::optional<T> whole_text_number(std::string_view text) {
  T value{};
  const auto [end, status] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || status != std::errc() || end != text.data() + text.size()) return {};
  return value;
}

// A number from `min` to `max` (both included); NaN never passes.
template <typename T>
Reader<T> number_from(T min, T max, std::string problem) {
  return [min, max, problem = std::move(problem)](const std::string& text) {
    const std::optional<T> value = whole_text_number<T>(text);
    if (!value || !(*value >= min && *value <= max)) throw std::invalid_argument(problem);
    return *value;
  };
}

// Above zero: 1 for whole numbers, anything positive for floating point.
template <typename T>
Reader<T> positive(std::string problem, T max = std::numeric_limits<T>::max()) {
  if constexpr (std::is_floating_point_v<T>) {
    return number_from<T>(std::numeric_limits<T>::denorm_min(), std::numeric_limits<T>::infinity(),
                          std::move(problem));
  } else {
    return number_from<T>(1, max, std::move(problem));
  }
}

// The spdlog level names the programs accept for --log-level.
inline std::string log_level(const std::string& text) {
  for (std::string_view level : {"trace", "debug", "info", "warn", "error", "critical", "off"}) {
    if (text == level) return text;
  }
  throw std::invalid_argument("expected trace, debug, info, warn, error, critical or off");
}

// --name TEXT: `read(text)` goes into `target`. A refusal reads
// "--name: <what read expected> (got "TEXT")".
template <typename T>
CLI::Option* add_read(CLI::App& app, const std::string& name, T& target, Reader<T> read,
                      const std::string& description) {
  return app.add_option_function<std::string>(
      name,
      [&target, read = std::move(read), name](const std::string& text) {
        try {
          target = read(text);
        } catch (const std::invalid_argument& refusal) {
          throw CLI::ValidationError(name, std::string(refusal.what()) + " (got \"" + text + "\")");
        }
      },
      description);
}

// --name TEXT taken as it is.
inline CLI::Option* add_text(CLI::App& app, const std::string& name, std::string& target,
                             const std::string& description) {
  return app.add_option(name, target, description);
}

// --name: a switch that turns `target` off ("--no-evictions").
inline CLI::Option* add_switch_off(CLI::App& app, const std::string& name, bool& target,
                                   const std::string& description) {
  return app.add_flag_callback(
      name, [&target] { target = false; }, description);
}

// --log-level LEVEL, read by log_level().
inline CLI::Option* add_log_level(CLI::App& app, std::string& target) {
  return add_read<std::string>(app, "--log-level", target, log_level,
                               "trace|debug|info|warn|error|critical|off (default info)")
      ->type_name("LEVEL");
}

// A file or directory, taken as written.
inline std::string not_empty(const std::string& text) {
  if (text.empty()) throw std::invalid_argument("expected a value");
  return text;
}

// An address to listen on: HOST:PORT (the port may be 0 in tests).
inline std::string host_port(const std::string& text) {
  const std::size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size())
    throw std::invalid_argument("expected HOST:PORT such as 0.0.0.0:8443");
  return text;
}

inline std::filesystem::path path(const std::string& text) {
  return text;
}

// How a program words the parse errors CLI11 would word its own way; "{}" is
// the flag or argument. Tests and users' scripts know these sentences.
struct Wording {
  std::string missing_value = "{}: missing value";
  std::string unknown_flag = "unknown argument \"{}\"; see --help";
  std::string unexpected_argument = "unexpected argument \"{}\"";
};

inline std::string worded(const std::string& sentence, const std::string& subject) {
  std::string out = sentence;
  const std::size_t at = out.find("{}");
  if (at != std::string::npos) out.replace(at, 2, subject);
  return out;
}

// --help as the programs always printed it: their own "usage:" synopsis
// first, then what the program does, then one line per flag.
class SynopsisFormatter : public CLI::Formatter {
 public:
  explicit SynopsisFormatter(std::string synopsis) : synopsis_(std::move(synopsis)) {}
  std::string make_help(const CLI::App* app, std::string, CLI::AppFormatMode mode) const override {
    return synopsis_ + make_description(app) + make_groups(app, mode) + make_footer(app);
  }

 private:
  std::string synopsis_;
};

// The programs' shared CLI11 settings: a repeated flag keeps its last value
// (as the hand-written parsers did), leftovers are reported by parse().
inline void configure(CLI::App& app, std::string synopsis) {
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.allow_extras();
  // Answered by parse_or_exit_code before any other flag is read.
  app.add_flag("--version")->description("print the program's version and exit");
  auto formatter = std::make_shared<SynopsisFormatter>(std::move(synopsis));
  formatter->column_width(28);
  app.formatter(std::move(formatter));
}

enum class Parsed { kRun, kHelp };

// Parses `args` (without the program name) into the options `app` defines.
// Throws std::invalid_argument naming the flag (and the value) it refused.
inline Parsed parse(CLI::App& app, const std::vector<std::string>& args,
                    const Wording& wording = {}) {
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 pops from the back
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    return Parsed::kHelp;
  } catch (const CLI::ArgumentMismatch& e) {
    // CLI11 2.1 starts this message with the option's name, then ": ".
    const std::string what = e.what();
    throw std::invalid_argument(worded(wording.missing_value, what.substr(0, what.find(':'))));
  } catch (const CLI::ParseError& e) {
    throw std::invalid_argument(e.what());
  }
  const std::vector<std::string> left = app.remaining();
  if (!left.empty()) {
    const std::string& first = left.front();
    if (first.rfind('-', 0) == 0)
      throw std::invalid_argument(worded(wording.unknown_flag, first.substr(0, first.find('='))));
    throw std::invalid_argument(worded(wording.unexpected_argument, first));
  }
  return Parsed::kRun;
}

// `Options` filled from `args` by the flags `define` adds; `help` set for --help.
template <typename Options>
Options parse_options(const char* program, void (*define)(CLI::App&, Options&),
                      const std::vector<std::string>& args, const Wording& wording = {}) {
  Options options;
  CLI::App app("", program);
  define(app, options);
  options.help = parse(app, args, wording) == Parsed::kHelp;
  return options;
}

// The --help text of the flags `define` adds.
template <typename Options>
std::string usage(const char* program, void (*define)(CLI::App&, Options&)) {
  Options unused;
  CLI::App app("", program);
  define(app, unused);
  return app.help();
}

// For main(): fills `options` with `parse(args)`. Returns the exit code when
// the program should stop here: 2 after printing "program: error" and the
// usage to stderr, 0 after printing the usage for --help (options.help) or
// "program VERSION" for --version.
template <typename Options, typename Parse>
std::optional<int> parse_or_exit_code(const char* program, const char* version, int argc,
                                      char** argv, Parse parse, const std::string& usage,
                                      Options& options) {
  constexpr int kUsageError = 2;
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--version") {
      std::printf("%s %s\n", program, version);
      return 0;
    }
  }
  try {
    options = parse(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "%s: %s\n%s", program, e.what(), usage.c_str());
    return kUsageError;
  }
  if (options.help) {
    std::fputs(usage.c_str(), stdout);
    return 0;
  }
  return std::nullopt;
}

}  // namespace gantry::command_line
