// Whether a SQLite write-ahead log can be applied whole. SQLite itself stops
// reading a WAL at the first frame whose checksum fails and drops the rest,
// committed transactions included, without a word: a WAL cut short or with
// flipped bytes would open as an older state. The hub checks its WAL before
// SQLite sees it and refuses to start on one that lost committed writes.
//
// The format (sqlite.org/walformat.html): a 32-byte header, then frames of a
// 24-byte header and one page. Every valid frame carries the header's salts
// and a checksum chained from the one before. A frame with other salts is
// left over from before the log last restarted: the end of the log. A frame
// with the current salts whose checksum fails, a header whose checksum fails,
// is damage, and so is a log shorter than its index (-shm) says the last
// commit left it: committed frames were cut off.
#pragma once

#include <filesystem>
#include <string>

namespace gantry::actors {

// "" when the WAL at `path` is absent, empty or whole; else what is wrong
// with it ("frame 14 of 30 fails its checksum"). `index`: its -shm file,
// which may be absent.
std::string wal_damage(const std::filesystem::path& path, const std::filesystem::path& index);

}  // namespace gantry::actors
