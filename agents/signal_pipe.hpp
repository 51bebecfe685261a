// The self-pipe trick: a signal handler writes the signal number to a pipe, so
// the agent's single event loop waits for signals (SIGCHLD, SIGTERM, ...) in the
// same poll as its ZeroMQ socket instead of being interrupted anywhere.
#pragma once

#include <csignal>
#include <initializer_list>
#include <vector>

namespace gantry::agents {

class SignalPipe {
 public:
  // Installs a handler for each of `signals` that writes to this pipe. A signal
  // may belong to one SignalPipe at a time. Throws std::system_error.
  explicit SignalPipe(std::initializer_list<int> signals);
  ~SignalPipe();  // restores the previous handlers
  SignalPipe(const SignalPipe&) = delete;
  SignalPipe& operator=(const SignalPipe&) = delete;

  // Readable while a signal is waiting to be drained.
  int fd() const { return read_fd_; }
  // Empties the pipe; returns true when at least one signal had arrived.
  bool drain();

 private:
  int read_fd_ = -1;
  int write_fd_ = -1;
  std::vector<int> signals_;
  std::vector<struct sigaction> previous_;
};

// The process-wide pipe for SIGCHLD, created on first use and kept for the
// life of the process.
SignalPipe& child_exit_pipe();

}  // namespace gantry::agents
