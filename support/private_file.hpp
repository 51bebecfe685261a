// Writing a file that must not replace another and whose mode the umask must
// not widen: secrets (a keypair, a scrape token) on first start.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>

namespace gantry::support {

// Creates `file` (never replacing one: O_EXCL) with `mode` whatever the
// umask, writes `text` and syncs it. Throws std::runtime_error naming the
// file; a file half written is removed.
void write_new_file(const std::filesystem::path& file, const std::string& text, mode_t mode);

}  // namespace gantry::support
