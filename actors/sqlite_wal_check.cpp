#include "actors/sqlite_wal_check.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <optional>
#include <vector>

namespace gantry::actors {

namespace {

constexpr std::size_t kWalHeaderBytes = 32;
constexpr std::size_t kFrameHeaderBytes = 24;
constexpr std::uint32_t kMagicLittleEndianSums = 0x377f0682;
constexpr std::uint32_t kMagicBigEndianSums = 0x377f0683;

std::uint32_t big_endian(const unsigned char* bytes) {
  return std::uint32_t{bytes[0]} << 24 | std::uint32_t{bytes[1]} << 16 |
         std::uint32_t{bytes[2]} << 8 | std::uint32_t{bytes[3]};
}

std::uint32_t little_endian(const unsigned char* bytes) {
  return std::uint32_t{bytes[3]} << 24 | std::uint32_t{bytes[2]} << 16 |
         std::uint32_t{bytes[1]} << 8 | std::uint32_t{bytes[0]};
}

// SQLite's WAL checksum, continued from `sums` over `size` bytes (a multiple of 8).
struct Checksum {
  bool big_endian_words = false;
  std::uint32_t s0 = 0;
  std::uint32_t s1 = 0;

  void add(const unsigned char* data, std::size_t size) {
    for (std::size_t i = 0; i + 8 <= size; i += 8) {
      const std::uint32_t x0 = big_endian_words ? big_endian(data + i) : little_endian(data + i);
      const std::uint32_t x1 =
          big_endian_words ? big_endian(data + i + 4) : little_endian(data + i + 4);
      s0 += x0 + s1;
      s1 += x1 + s0;
    }
  }
  bool matches(const unsigned char* stored) const {
    return big_endian(stored) == s0 && big_endian(stored + 4) == s1;
  }
};

bool valid_page_size(std::uint32_t size) {
  // 65536 is stored as 1.
  return size == 1 || (size >= 512 && size <= 32768 && (size & (size - 1)) == 0);
}

// How many frames the last commit left in the WAL with these salts, by the
// WAL index (-shm) that SQLite keeps beside it: the first copy of its
// header, in this machine's byte order, checksummed over its first 40
// bytes. nullopt when the index is absent, damaged or of another log.
std::optional<std::uint32_t> committed_frames(const std::filesystem::path& shm,
                                              const unsigned char* wal_salts) {
  std::ifstream in(shm, std::ios::binary);
  std::array<unsigned char, 48> header{};
  if (!in.read(reinterpret_cast<char*>(header.data()), header.size())) return std::nullopt;
  std::uint32_t words[12];
  std::memcpy(words, header.data(), sizeof words);
  std::uint32_t s0 = 0;
  std::uint32_t s1 = 0;
  for (int i = 0; i < 10; i += 2) {
    s0 += words[i] + s1;
    s1 += words[i + 1] + s0;
  }
  const bool initialised = header[12] != 0;
  if (!initialised || words[10] != s0 || words[11] != s1) return std::nullopt;
  // Its salts are stored as the WAL header holds them (big-endian bytes).
  if (!std::equal(header.begin() + 32, header.begin() + 40, wal_salts)) return std::nullopt;
  return words[4];  // mxFrame
}

}  // namespace

std::string wal_damage(const std::filesystem::path& path, const std::filesystem::path& index) {
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  if (error || size == 0) return "";  // absent or empty: nothing to apply
  std::ifstream in(path, std::ios::binary);
  if (!in) return "cannot be read";
  if (size < kWalHeaderBytes) return "its header is cut short (" + std::to_string(size) + " bytes)";
  std::array<unsigned char, kWalHeaderBytes> header{};
  in.read(reinterpret_cast<char*>(header.data()), header.size());
  const std::uint32_t magic = big_endian(header.data());
  if (magic != kMagicLittleEndianSums && magic != kMagicBigEndianSums)
    return "its header is not a WAL header";
  const std::uint32_t stored_page_size = big_endian(header.data() + 8);
  if (!valid_page_size(stored_page_size)) return "its header names no valid page size";
  Checksum sums{magic == kMagicBigEndianSums};
  sums.add(header.data(), 24);
  if (!sums.matches(header.data() + 24)) return "its header fails its checksum";
  const std::size_t page_size = stored_page_size == 1 ? 65536 : stored_page_size;
  const std::size_t frame_bytes = kFrameHeaderBytes + page_size;
  // A trailing partial frame alone is no damage: a hub killed between the
  // writes of a frame leaves one, of a transaction that never committed.
  const std::uintmax_t frames = (size - kWalHeaderBytes) / frame_bytes;
  std::vector<unsigned char> frame(frame_bytes);
  std::uintmax_t readable = 0;
  std::string damage;
  for (; readable < frames; ++readable) {
    if (!in.read(reinterpret_cast<char*>(frame.data()), static_cast<std::streamsize>(frame_bytes)))
      return "cannot be read";
    const bool current = std::equal(frame.begin() + 8, frame.begin() + 16, header.begin() + 16);
    if (!current) break;  // left over from before the log restarted: its end
    Checksum next = sums;
    next.add(frame.data(), 8);
    next.add(frame.data() + kFrameHeaderBytes, page_size);
    if (big_endian(frame.data()) == 0 || !next.matches(frame.data() + 16)) {
      // A hub killed between a frame's header and its page, in a log
      // that restarted over older frames, leaves one: past the last
      // commit, which the index tells. Without the index, damage.
      damage = "frame " + std::to_string(readable + 1) + " of " + std::to_string(frames) +
               " fails its checksum (damaged)";
      break;
    }
    sums = next;
  }
  const std::optional<std::uint32_t> committed = committed_frames(index, header.data() + 16);
  if (!committed) return damage;
  if (*committed <= readable) return "";
  return "its index (" + index.filename().string() + ") says " + std::to_string(*committed) +
         " frames were committed, but only " + std::to_string(readable) + " can be read" +
         (damage.empty() ? " (cut short?)" : ": " + damage);
}

}  // namespace gantry::actors
