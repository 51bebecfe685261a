#include "actors/log_relay.hpp"

namespace gantry::actors {

std::uint64_t LogRelay::open(ReplyTo reader, std::string agent, std::string cluster,
                             hub::TimeMs now) {
  if (streams_.size() >= kMaxStreams) return 0;
  const std::uint64_t id = next_id_++;
  streams_.emplace(id, Stream{std::move(reader), std::move(agent), std::move(cluster), now});
  return id;
}

const LogRelay::Stream* LogRelay::heard(std::uint64_t id, const std::string& agent,
                                        hub::TimeMs now) {
  const auto found = streams_.find(id);
  if (found == streams_.end() || found->second.agent != agent) return nullptr;
  found->second.heard = now;
  return &found->second;
}

const LogRelay::Stream* LogRelay::find(std::uint64_t id) const {
  const auto found = streams_.find(id);
  return found == streams_.end() ? nullptr : &found->second;
}

std::vector<std::uint64_t> LogRelay::read_by(const std::string& reader) const {
  std::vector<std::uint64_t> ids;
  for (const auto& [id, stream] : streams_)
    if (stream.reader.peer == reader) ids.push_back(id);
  return ids;
}

std::vector<std::uint64_t> LogRelay::quiet_since(hub::TimeMs before) const {
  std::vector<std::uint64_t> ids;
  for (const auto& [id, stream] : streams_)
    if (stream.heard < before) ids.push_back(id);
  return ids;
}

}  // namespace gantry::actors
