#include "agents/background_worker.hpp"

#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <exception>
#include <system_error>

namespace gantry::agents {

BackgroundWorker::BackgroundWorker() : done_fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
  if (done_fd_ < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
  thread_ = std::thread([this] { serve(); });
}

BackgroundWorker::~BackgroundWorker() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    pending_.clear();
  }
  posted_.notify_one();
  thread_.join();
  ::close(done_fd_);
}

void BackgroundWorker::post(Work work) {
  {
    std::lock_guard lock(mutex_);
    pending_.push_back(std::move(work));
  }
  posted_.notify_one();
}

void BackgroundWorker::run_finished() {
  std::uint64_t count = 0;
  // EAGAIN: nothing finished since the last call.
  [[maybe_unused]] const ssize_t read = ::read(done_fd_, &count, sizeof count);
  std::deque<Continuation> finished;
  {
    std::lock_guard lock(mutex_);
    finished.swap(finished_);
  }
  for (Continuation& continuation : finished)
    if (continuation) continuation();
}

void BackgroundWorker::serve() {
  std::unique_lock lock(mutex_);
  while (true) {
    posted_.wait(lock, [this] { return stopping_ || !pending_.empty(); });
    if (stopping_) return;
    Work work = std::move(pending_.front());
    pending_.pop_front();
    lock.unlock();
    Continuation continuation;
    try {
      continuation = work();
    } catch (const std::exception& failed) {
      spdlog::error("background call failed: {}", failed.what());  // a Work broke its contract
    }
    lock.lock();
    finished_.push_back(std::move(continuation));
    const std::uint64_t one = 1;
    // Only EAGAIN can fail here (the counter is near overflow): it is readable then anyway.
    [[maybe_unused]] const ssize_t written = ::write(done_fd_, &one, sizeof one);
  }
}

}  // namespace gantry::agents
