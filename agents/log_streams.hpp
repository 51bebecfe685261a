// gantryctl logs on the agent: each stream reads one replica's log file and
// sends it on in LogsChunks, oldest byte first. Without -f a stream ends at
// the file's end; with -f it keeps reading what the replica appends until the
// replica no longer runs and the file is read to its end. A stream reads at
// most kChunksPerPoll chunks a poll, so a large log does not flood the hub.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "hub/job.hpp"
#include "protocol/messages.hpp"

namespace gantry::agents {

class LogStreams {
 public:
  static constexpr std::size_t kMaxStreams = 16;
  static constexpr std::size_t kChunksPerPoll = 4;
  static constexpr hub::TimeMs kPollMs = 200;

  using Send = std::function<void(const protocol::LogsChunk&)>;
  // Whether the job still runs a replica here: a -f stream ends once not.
  using Runs = std::function<bool(const std::string& job)>;

  // `file`: the replica's log, or nullopt with `missing` saying why there is none.
  void open(const protocol::LogsRequest& request, const std::optional<std::filesystem::path>& file,
            const std::string& missing, hub::TimeMs now, const Send& send);
  void stop(std::uint64_t stream);
  // The hub session ended: the hub forgot its streams.
  void clear() { streams_.clear(); }
  // Sends what each stream has to send; ends those that are done.
  void poll(hub::TimeMs now, const Runs& runs, const Send& send);
  // When poll() has work: now while a stream has unread bytes, else the next
  // -f read or keepalive; nullopt without streams.
  std::optional<hub::TimeMs> next_poll() const;
  std::size_t size() const { return streams_.size(); }

 private:
  struct Stream {
    std::uint64_t id = 0;
    std::string job;
    std::filesystem::path file;
    std::uint64_t offset = 0;
    bool follow = false;
    hub::TimeMs next_read = 0;
    hub::TimeMs last_sent = 0;
  };

  // Sends up to kChunksPerPoll chunks; true when the file's end was reached.
  bool read_some(Stream& stream, hub::TimeMs now, const Send& send);

  std::vector<Stream> streams_;
};

// Where the last `lines` lines of `file` begin (0 when it has fewer).
std::uint64_t tail_offset(const std::filesystem::path& file, std::int32_t lines);

}  // namespace gantry::agents
