// gantryctl logs through the hub: which agent serves which log stream, and
// for which reader. The dispatcher, which knows each cluster's agent, keeps
// it: a chunk is passed on only from the agent the stream was opened with,
// and a stream whose agent or reader went quiet is closed.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "actors/actor_messages.hpp"
#include "hub/job.hpp"

namespace gantry::actors {

class LogRelay {
 public:
  static constexpr std::size_t kMaxStreams = 64;

  struct Stream {
    ReplyTo reader;
    std::string agent;    // the agent's peer
    std::string cluster;  // for messages
    hub::TimeMs heard = 0;
  };

  // The new stream's id, or 0 when kMaxStreams are open.
  std::uint64_t open(ReplyTo reader, std::string agent, std::string cluster, hub::TimeMs now);
  // The stream `id` when `agent` serves it (and notes that it was heard);
  // nullptr otherwise.
  const Stream* heard(std::uint64_t id, const std::string& agent, hub::TimeMs now);
  void close(std::uint64_t id) { streams_.erase(id); }
  // The streams read by `reader`'s peer, and those unheard since `before`.
  std::vector<std::uint64_t> read_by(const std::string& reader) const;
  std::vector<std::uint64_t> quiet_since(hub::TimeMs before) const;
  const Stream* find(std::uint64_t id) const;

 private:
  std::map<std::uint64_t, Stream> streams_;
  std::uint64_t next_id_ = 1;
};

}  // namespace gantry::actors
