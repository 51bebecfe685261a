#include "agents/signal_pipe.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <stdexcept>
#include <string>
#include <system_error>

namespace gantry::agents {

namespace {

constexpr int kMaxSignal = 65;  // Linux's NSIG
// The pipe's write end plus one, per signal: zero-initialised means "none".
std::atomic<int> g_write_fd_plus_one[kMaxSignal];

void write_signal(int signal) {
  const int fd = g_write_fd_plus_one[signal].load(std::memory_order_relaxed) - 1;
  if (fd < 0) return;
  const int saved_errno = errno;
  const unsigned char byte = static_cast<unsigned char>(signal);
  // A full pipe already wakes the loop, so a failed write loses nothing.
  [[maybe_unused]] const ssize_t written = ::write(fd, &byte, 1);
  errno = saved_errno;
}

void throw_errno(const std::string& what) {
  throw std::system_error(errno, std::generic_category(), what);
}

}  // namespace

SignalPipe::SignalPipe(std::initializer_list<int> signals) : signals_(signals) {
  int fds[2];
  if (::pipe2(fds, O_NONBLOCK | O_CLOEXEC) != 0) throw_errno("pipe2");
  read_fd_ = fds[0];
  write_fd_ = fds[1];
  for (int signal : signals_) {
    if (signal <= 0 || signal >= kMaxSignal || g_write_fd_plus_one[signal].load() != 0) {
      ::close(read_fd_);
      ::close(write_fd_);
      throw std::logic_error("signal " + std::to_string(signal) +
                             " is not a signal or already has a SignalPipe");
    }
  }
  for (int signal : signals_) {
    g_write_fd_plus_one[signal].store(write_fd_ + 1);
    struct sigaction action = {};
    action.sa_handler = write_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART | (signal == SIGCHLD ? SA_NOCLDSTOP : 0);
    previous_.emplace_back();
    if (::sigaction(signal, &action, &previous_.back()) != 0) throw_errno("sigaction");
  }
}

SignalPipe::~SignalPipe() {
  for (std::size_t i = 0; i < previous_.size(); ++i) {
    ::sigaction(signals_[i], &previous_[i], nullptr);
    g_write_fd_plus_one[signals_[i]].store(0);
  }
  ::close(read_fd_);
  ::close(write_fd_);
}

bool SignalPipe::drain() {
  bool any = false;
  unsigned char buffer[64];
  while (::read(read_fd_, buffer, sizeof buffer) > 0) any = true;
  return any;
}

SignalPipe& child_exit_pipe() {
  static SignalPipe* pipe = new SignalPipe({SIGCHLD});  // never destroyed: handlers outlive statics
  return *pipe;
}

}  // namespace gantry::agents
