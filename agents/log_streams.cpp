#include "agents/log_streams.hpp"

#include <algorithm>

namespace gantry::agents {

namespace {

protocol::LogsChunk last_chunk(std::uint64_t stream, std::string error = "") {
  protocol::LogsChunk chunk;
  chunk.stream = stream;
  chunk.end = true;
  chunk.error = std::move(error);
  return chunk;
}

}  // namespace

void LogStreams::open(const protocol::LogsRequest& request, const Open& open_source,
                      hub::TimeMs now, const Send& send) {
  if (streams_.size() >= kMaxStreams) {
    send(last_chunk(request.stream, "this agent already streams " + std::to_string(kMaxStreams) +
                                        " logs (its limit); try again when one ends"));
    return;
  }
  std::string why;
  std::unique_ptr<LogSource> source = open_source(why);
  if (source == nullptr) {
    send(last_chunk(request.stream, why));
    return;
  }
  streams_.push_back(Stream{request.stream, request.job, std::move(source), now, now});
}

void LogStreams::stop(std::uint64_t stream) {
  std::erase_if(streams_, [&](const Stream& each) { return each.id == stream; });
}

bool LogStreams::read_some(Stream& stream, hub::TimeMs now, const Send& send) {
  for (std::size_t i = 0; i < kChunksPerPoll; ++i) {
    protocol::LogsChunk chunk;
    chunk.stream = stream.id;
    if (!stream.source->read(chunk.data, protocol::kMaxLogChunkBytes)) return true;
    const bool short_read = chunk.data.size() < protocol::kMaxLogChunkBytes;
    stream.last_sent = now;
    send(chunk);
    if (short_read) return true;
  }
  return false;
}

void LogStreams::poll(hub::TimeMs now, const Runs& runs, const Send& send) {
  for (auto it = streams_.begin(); it != streams_.end();) {
    Stream& stream = *it;
    if (stream.next_read > now) {
      ++it;
      continue;
    }
    // Asked before reading: what a replica wrote before it ended is in the file.
    const bool still_runs = runs(stream.job);
    const bool at_end = read_some(stream, now, send);
    if (at_end && !stream.source->more_may_come(still_runs)) {
      send(last_chunk(stream.id, stream.source->error()));
      it = streams_.erase(it);
      continue;
    }
    if (at_end && now - stream.last_sent >= protocol::kWatchKeepaliveMs) {
      protocol::LogsChunk keepalive;
      keepalive.stream = stream.id;
      send(keepalive);
      stream.last_sent = now;
    }
    stream.next_read = at_end ? now + kPollMs : now;
    ++it;
  }
}

std::optional<hub::TimeMs> LogStreams::next_poll() const {
  std::optional<hub::TimeMs> next;
  for (const Stream& stream : streams_)
    if (!next || stream.next_read < *next) next = stream.next_read;
  return next;
}

}  // namespace gantry::agents
