#include "actors/state_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "actors/utc_now.hpp"

namespace gantry::actors {

namespace {

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "unknown host";
  return name;
}


std::string read_all(int fd) {
  std::string text;
  char buffer[512];
  ssize_t n = 0;
  while ((n = ::pread(fd, buffer, sizeof buffer, static_cast<off_t>(text.size()))) > 0 &&
         text.size() < 4096)
    text.append(buffer, static_cast<std::size_t>(n));
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0')) text.pop_back();
  return text;
}

void write_holder(int fd) {
  const std::string text = "gantry-hub pid " + std::to_string(::getpid()) + " on " + host_name() +
                           " since " + utc_now_text() + "\n";
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, text.data(), text.size(), 0) < 0) {
    // The lock is held either way; only the name in a second hub's error is missing.
  }
}

}  // namespace

StateLock::StateLock(const std::filesystem::path& state_dir) {
  std::error_code error;
  std::filesystem::create_directories(state_dir, error);
  if (error) {
    throw std::runtime_error("cannot create state directory " + state_dir.string() + ": " +
                             error.message());
  }
  const std::filesystem::path path = file_in(state_dir);
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd_ < 0) {
    throw std::runtime_error("cannot open the state lock " + path.string() + ": " +
                             std::strerror(errno));
  }
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int reason = errno;
    const std::string who = read_all(fd_);
    ::close(fd_);
    fd_ = -1;
    if (reason == EWOULDBLOCK) {
      throw std::runtime_error("state directory " + state_dir.string() + " is in use by " +
                               (who.empty() ? "another process" : who) + " (lock " + path.string() +
                               "): one hub per state directory");
    }
    throw std::runtime_error("cannot lock " + path.string() + ": " + std::strerror(reason));
  }
  write_holder(fd_);
}

StateLock::~StateLock() {
  if (fd_ >= 0) ::close(fd_);  // drops the lock
}

std::string StateLock::holder(const std::filesystem::path& state_dir) {
  const int fd = ::open(file_in(state_dir).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return "";
  std::string who;
  if (::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK) who = read_all(fd);
  ::close(fd);
  return who;
}

}  // namespace gantry::actors
