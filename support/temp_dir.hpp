// A fresh directory under the system's temporary directory, removed with
// everything in it when the TempDir goes, unless kept.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace gantry::support {

class TempDir {
 public:
  // Named <prefix>-XXXXXX (mkdtemp); throws std::runtime_error when it cannot
  // be made.
  explicit TempDir(std::string_view prefix = "gantry-test");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // Writes `text` to the file `name` in the directory; returns its path.
  std::filesystem::path write(const std::string& name, const std::string& text) const;
  // Leaves the directory in place when the TempDir goes (say, for a failed
  // run's logs).
  void keep() { keep_ = true; }

 private:
  std::filesystem::path path_;
  bool keep_ = false;
};

}  // namespace gantry::support
