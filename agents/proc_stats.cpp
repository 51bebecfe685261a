#include "agents/proc_stats.hpp"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace gantry::agents {
namespace {

std::vector<std::string> read_lines(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read " + file.string() + ": " + std::strerror(errno));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::runtime_error line_error(const std::filesystem::path& file, std::size_t index,
                              const std::string& line, const std::string& problem) {
  return std::runtime_error(file.string() + " line " + std::to_string(index + 1) + ": " + problem +
                            " (got \"" + line + "\")");
}

// A "cpuN ..." line (the aggregate "cpu ..." line has no number). The kernel
// lists online CPUs only.
bool is_cpu_line(const std::string& line) {
  return line.size() > 3 && line.compare(0, 3, "cpu") == 0 &&
         std::isdigit(static_cast<unsigned char>(line[3]));
}

std::int64_t count_online_cpus(const std::filesystem::path& file) {
  std::int64_t cpus = 0;
  for (const std::string& line : read_lines(file)) cpus += is_cpu_line(line) ? 1 : 0;
  if (cpus == 0) throw std::runtime_error(file.string() + ": no cpuN line");
  return cpus;
}

// "MemTotal:       16318412 kB" -> bytes, or nullopt when `line` is another key.
std::optional<std::int64_t> meminfo_bytes(const std::filesystem::path& file, std::size_t index,
                                          const std::string& line, const std::string& key) {
  if (line.compare(0, key.size() + 1, key + ":") != 0) return std::nullopt;
  std::istringstream fields(line.substr(key.size() + 1));
  std::string number;
  std::string unit;
  fields >> number >> unit;
  std::int64_t kilobytes = 0;
  const auto [end, error] =
      std::from_chars(number.data(), number.data() + number.size(), kilobytes);
  if (error != std::errc() || end != number.data() + number.size() || kilobytes < 0 ||
      unit != "kB") {
    throw line_error(file, index, line, key + " is not a number of kB");
  }
  return kilobytes * 1024;
}

void read_meminfo(const std::filesystem::path& file, HostStats& stats) {
  const std::vector<std::string> lines = read_lines(file);
  std::optional<std::int64_t> total;
  std::optional<std::int64_t> available;
  for (std::size_t index = 0; index < lines.size(); ++index) {
    if (auto bytes = meminfo_bytes(file, index, lines[index], "MemTotal")) total = bytes;
    if (auto bytes = meminfo_bytes(file, index, lines[index], "MemAvailable")) available = bytes;
  }
  if (!total) throw std::runtime_error(file.string() + ": no MemTotal line");
  if (!available) throw std::runtime_error(file.string() + ": no MemAvailable line");
  stats.memory_bytes = *total;
  stats.memory_available_bytes = *available;
}

// "0.52 0.58 0.59 1/1234 5678": the first field.
double read_load1(const std::filesystem::path& file) {
  const std::vector<std::string> lines = read_lines(file);
  if (lines.empty()) throw std::runtime_error(file.string() + ": empty");
  std::istringstream fields(lines.front());
  std::string first;
  fields >> first;
  double load1 = 0.0;
  const auto [end, error] = std::from_chars(first.data(), first.data() + first.size(), load1);
  if (first.empty() || error != std::errc() || end != first.data() + first.size() || load1 < 0.0) {
    throw line_error(file, 0, lines.front(), "the 1-minute load is not a number");
  }
  return load1;
}

}  // namespace

HostStats read_host_stats(const std::filesystem::path& proc) {
  HostStats stats;
  stats.cpu_milli = count_online_cpus(proc / "stat") * 1000;
  read_meminfo(proc / "meminfo", stats);
  stats.load1 = read_load1(proc / "loadavg");
  return stats;
}

}  // namespace gantry::agents
