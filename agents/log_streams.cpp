#include "agents/log_streams.hpp"

#include <algorithm>
#include <fstream>

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

std::uint64_t tail_offset(const std::filesystem::path& file, std::int32_t lines) {
  std::ifstream in(file, std::ios::binary);
  if (!in || lines < 0) return 0;
  in.seekg(0, std::ios::end);
  const std::uint64_t end = static_cast<std::uint64_t>(in.tellg());
  if (lines == 0) return end;
  std::uint64_t position = end;
  std::int32_t newlines = 0;
  // A last line without its newline yet counts as a line.
  char last = '\n';
  if (end > 0) {
    in.seekg(static_cast<std::streamoff>(end - 1));
    in.get(last);
  }
  if (last == '\n') --newlines;
  constexpr std::uint64_t kBlock = 64 * 1024;
  std::string block;
  while (position > 0) {
    const std::uint64_t size = std::min(kBlock, position);
    position -= size;
    block.resize(size);
    in.seekg(static_cast<std::streamoff>(position));
    in.read(block.data(), static_cast<std::streamsize>(size));
    for (std::uint64_t i = size; i-- > 0;) {
      if (block[i] == '\n' && ++newlines == lines) return position + i + 1;
    }
  }
  return 0;
}

void LogStreams::open(const protocol::LogsRequest& request,
                      const std::optional<std::filesystem::path>& file, const std::string& missing,
                      hub::TimeMs now, const Send& send) {
  if (!file) {
    send(last_chunk(request.stream, missing));
    return;
  }
  if (streams_.size() >= kMaxStreams) {
    send(last_chunk(request.stream, "this agent already streams " + std::to_string(kMaxStreams) +
                                        " logs (its limit); try again when one ends"));
    return;
  }
  std::error_code error;
  if (!std::filesystem::exists(*file, error)) {
    send(last_chunk(request.stream, "replica " + request.task + "-" +
                                        std::to_string(request.replica) +
                                        " has not written a log yet"));
    return;
  }
  Stream stream{request.stream, request.job, *file, 0, request.follow, now, now};
  if (request.tail_lines >= 0) stream.offset = tail_offset(*file, request.tail_lines);
  streams_.push_back(std::move(stream));
}

void LogStreams::stop(std::uint64_t stream) {
  std::erase_if(streams_, [&](const Stream& each) { return each.id == stream; });
}

bool LogStreams::read_some(Stream& stream, hub::TimeMs now, const Send& send) {
  std::ifstream in(stream.file, std::ios::binary);
  if (!in) return true;
  in.seekg(static_cast<std::streamoff>(stream.offset));
  for (std::size_t i = 0; i < kChunksPerPoll; ++i) {
    protocol::LogsChunk chunk;
    chunk.stream = stream.id;
    chunk.data.resize(protocol::kMaxLogChunkBytes);
    in.read(chunk.data.data(), static_cast<std::streamsize>(chunk.data.size()));
    chunk.data.resize(static_cast<std::size_t>(in.gcount()));
    if (chunk.data.empty()) return true;
    stream.offset += chunk.data.size();
    stream.last_sent = now;
    send(chunk);
    if (!in) return true;
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
    const bool still_runs = stream.follow && runs(stream.job);
    const bool at_end = read_some(stream, now, send);
    if (at_end && !still_runs) {
      send(last_chunk(stream.id));
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
