#include "support/private_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace gantry::support {
namespace {

std::runtime_error file_error(const std::filesystem::path& file, const std::string& what) {
  return std::runtime_error(file.string() + ": " + what);
}

void write_all(int fd, const std::string& text, const std::filesystem::path& file) {
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t count = ::write(fd, text.data() + written, text.size() - written);
    if (count < 0) {
      if (errno == EINTR) continue;
      throw file_error(file, std::string("cannot write it: ") + std::strerror(errno));
    }
    written += static_cast<std::size_t>(count);
  }
}

}  // namespace

// fchmod: the umask cannot widen the mode, but being explicit keeps a secret
// 0600 whatever the umask.
void write_new_file(const std::filesystem::path& file, const std::string& text, mode_t mode) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) {
    throw file_error(file, std::string("cannot create it: ") + std::strerror(errno));
  }
  try {
    if (::fchmod(fd, mode) != 0) {
      throw file_error(file, std::string("cannot set its mode: ") + std::strerror(errno));
    }
    write_all(fd, text, file);
    if (::fsync(fd) != 0) {
      throw file_error(file, std::string("cannot sync it: ") + std::strerror(errno));
    }
  } catch (...) {
    ::close(fd);
    std::filesystem::remove(file);
    throw;
  }
  ::close(fd);
}

}  // namespace gantry::support
