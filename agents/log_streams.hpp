// gantryctl logs on the agent: each stream reads one replica's log from its
// LogSource and sends it on in LogsChunks, oldest byte first, until nothing
// more may come (without -f: the log's end; with -f: the replica ended and
// its log is read to its end). A stream sends at most kChunksPerPoll chunks a
// poll, so a large log does not flood the hub.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agents/log_source.hpp"
#include "hub/job.hpp"
#include "protocol/messages.hpp"

namespace gantry::agents {

class LogStreams {
 public:
  static constexpr std::size_t kMaxStreams = 16;
  static constexpr std::size_t kChunksPerPoll = 4;
  static constexpr hub::TimeMs kPollMs = 200;

  using Send = std::function<void(const protocol::LogsChunk&)>;
  // Whether the job still runs a replica here: a -f stream of a file ends once not.
  using Runs = std::function<bool(const std::string& job)>;
  // The replica's log, or nullptr with `why` saying why there is none.
  using Open = std::function<std::unique_ptr<LogSource>(std::string& why)>;

  // Opens the stream `request` asks for, unless this agent already streams
  // kMaxStreams; a refusal is sent as the stream's last chunk.
  void open(const protocol::LogsRequest& request, const Open& open_source, hub::TimeMs now,
            const Send& send);
  void stop(std::uint64_t stream);
  // The hub session ended: the hub forgot its streams.
  void clear() { streams_.clear(); }
  // Sends what each stream has to send; ends those that are done.
  void poll(hub::TimeMs now, const Runs& runs, const Send& send);
  // When poll() has work: now while a stream has unread bytes, else the next
  // read or keepalive; nullopt without streams.
  std::optional<hub::TimeMs> next_poll() const;
  std::size_t size() const { return streams_.size(); }

 private:
  struct Stream {
    std::uint64_t id = 0;
    std::string job;
    std::unique_ptr<LogSource> source;
    hub::TimeMs next_read = 0;
    hub::TimeMs last_sent = 0;
  };

  // Sends up to kChunksPerPoll chunks; true when the source had no more now.
  bool read_some(Stream& stream, hub::TimeMs now, const Send& send);

  std::vector<Stream> streams_;
};

}  // namespace gantry::agents
