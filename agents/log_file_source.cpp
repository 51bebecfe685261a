#include "agents/log_file_source.hpp"

#include <algorithm>
#include <fstream>

namespace gantry::agents {

bool LogFileSource::read(std::string& out, std::size_t max) {
  std::ifstream in(file_, std::ios::binary);
  if (!in) return false;
  in.seekg(static_cast<std::streamoff>(offset_));
  const std::size_t before = out.size();
  out.resize(before + max);
  in.read(out.data() + before, static_cast<std::streamsize>(max));
  const auto got = static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0));
  out.resize(before + got);
  offset_ += got;
  return got > 0;
}

std::unique_ptr<LogSource> open_log_file(const protocol::LogsRequest& request,
                                         const std::filesystem::path& file, std::string& why) {
  std::error_code error;
  if (!std::filesystem::exists(file, error)) {
    why = "replica " + request.task + "-" + std::to_string(request.replica) +
          " has not written a log yet";
    return nullptr;
  }
  const std::uint64_t offset = request.tail_lines >= 0 ? tail_offset(file, request.tail_lines) : 0;
  return std::make_unique<LogFileSource>(file, offset, request.follow);
}

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

}  // namespace gantry::agents
