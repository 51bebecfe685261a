#include "agents/run_records.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace gantry::agents {

namespace {

using nlohmann::json;

constexpr int kStartTimeField = 22;  // proc(5): starttime

[[noreturn]] void fail(const std::string& what, const std::filesystem::path& path, int error) {
  throw std::runtime_error(what + " " + path.string() + ": " + std::strerror(error));
}

void write_all(int fd, const std::string& content, const std::filesystem::path& path) {
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("cannot write", path, errno);
    done += static_cast<std::size_t>(n);
  }
}

void sync_directory(const std::filesystem::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // the rename happened; only its durability is at stake
  ::fsync(fd);
  ::close(fd);
}

std::optional<json> read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  json parsed = json::parse(text.str(), nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) return std::nullopt;
  return parsed;
}

std::string key_stem(const ReplicaKey& key) {
  return std::to_string(key.dispatch) + "-" + std::to_string(key.rank);
}

json to_json(const RunRecord& record) {
  return json{{"dispatch", record.key.dispatch},
              {"rank", record.key.rank},
              {"job", record.job},
              {"task", record.task},
              {"node", record.node},
              {"part", record.part},
              {"parts", record.parts},
              {"task_index", record.task_index},
              {"part_replicas", record.part_replicas},
              {"supervisor", record.supervisor},
              {"supervisor_start", record.supervisor_start}};
}

std::optional<RunRecord> record_from(const json& in) {
  try {
    RunRecord record;
    record.key =
        ReplicaKey{in.at("dispatch").get<DispatchId>(), in.at("rank").get<std::uint32_t>()};
    record.job = in.at("job").get<std::string>();
    record.task = in.at("task").get<std::string>();
    record.node = in.at("node").get<std::string>();
    record.part = in.at("part").get<std::int32_t>();
    record.parts = in.at("parts").get<std::int32_t>();
    record.task_index = in.at("task_index").get<std::int32_t>();
    record.part_replicas = in.value("part_replicas", std::int32_t{0});
    record.supervisor = in.at("supervisor").get<pid_t>();
    record.supervisor_start = in.at("supervisor_start").get<std::uint64_t>();
    return record;
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

}  // namespace

RunStateDir::RunStateDir(std::filesystem::path dir) : dir_(std::move(dir)) {
  std::error_code error;
  std::filesystem::create_directories(runs_dir(), error);
  if (error)
    throw std::runtime_error("cannot create " + runs_dir().string() + ": " + error.message());
  std::filesystem::permissions(dir_, std::filesystem::perms::owner_all, error);
}

std::filesystem::path RunStateDir::record_path(const ReplicaKey& key) const {
  return runs_dir() / (key_stem(key) + ".run");
}

std::filesystem::path RunStateDir::exit_path(const ReplicaKey& key) const {
  return runs_dir() / (key_stem(key) + ".exit");
}

void RunStateDir::write_record(const RunRecord& record) const {
  write_file_atomically(record_path(record.key), to_json(record).dump() + "\n");
}

std::vector<RunRecord> RunStateDir::records() const {
  std::vector<RunRecord> out;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(runs_dir(), error)) {
    if (entry.path().extension() != ".run") continue;
    const std::optional<json> parsed = read_json(entry.path());
    if (!parsed) continue;
    if (std::optional<RunRecord> record = record_from(*parsed)) out.push_back(std::move(*record));
  }
  return out;
}

void RunStateDir::remove(const ReplicaKey& key) const {
  std::error_code ignored;  // already gone is as good
  std::filesystem::remove(exit_path(key), ignored);
  std::filesystem::remove(record_path(key), ignored);
}

void RunStateDir::write_contact(std::int64_t confirmed_monotonic_ms) const {
  write_file_atomically(contact_path(), std::to_string(confirmed_monotonic_ms) + "\n");
}

void write_file_atomically(const std::filesystem::path& path, const std::string& content) {
  const std::filesystem::path temporary = path.string() + ".tmp";
  const int fd =
      ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) fail("cannot write", temporary, errno);
  try {
    write_all(fd, content, temporary);
  } catch (...) {
    ::close(fd);
    throw;
  }
  const bool synced = ::fsync(fd) == 0;
  const int sync_error = errno;
  ::close(fd);
  if (!synced) fail("cannot sync", temporary, sync_error);
  if (::rename(temporary.c_str(), path.c_str()) != 0) fail("cannot rename onto", path, errno);
  sync_directory(path.parent_path());
}

void write_run_end(const std::filesystem::path& path, const RunEnd& end) {
  write_file_atomically(
      path,
      json{{"exit_code", end.exit_code}, {"signal", end.signal}, {"fenced", end.fenced}}.dump() +
          "\n");
}

std::optional<RunEnd> read_run_end(const std::filesystem::path& path) {
  const std::optional<json> parsed = read_json(path);
  if (!parsed) return std::nullopt;
  try {
    return RunEnd{parsed->at("exit_code").get<int>(), parsed->at("signal").get<int>(),
                  parsed->at("fenced").get<bool>()};
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

std::optional<std::int64_t> read_contact(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::int64_t confirmed = 0;
  if (!(in >> confirmed)) return std::nullopt;
  return confirmed;
}

// The command name (field 2) may hold spaces and parentheses: fields are
// counted after its last ')'.
std::uint64_t process_start_time(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t name_end = stat.rfind(')');
  if (name_end == std::string::npos) return 0;
  std::istringstream fields(stat.substr(name_end + 1));
  std::string field;
  for (int number = 3; number <= kStartTimeField; ++number) {
    if (!(fields >> field)) return 0;
  }
  try {
    return std::stoull(field);
  } catch (const std::exception&) {
    return 0;
  }
}

std::int64_t monotonic_ms() {
  timespec now = {};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1000 + now.tv_nsec / 1'000'000;
}

}  // namespace gantry::agents
