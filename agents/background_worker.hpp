// One thread that makes the cluster role's blocking calls (Lease renewal and
// AddOnPlacementScore writes: HTTP with 30 s timeouts) so that the agent loop
// never waits on the Kubernetes API. The loop posts work; each piece runs on
// the worker, in the order posted, and returns a continuation that the loop
// runs on its own thread once done_fd() turns readable. Only the work runs on
// the worker; only continuations touch the loop's state.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace gantry::agents {

class BackgroundWorker {
 public:
  using Continuation = std::function<void()>;
  // Must not throw: what it reports goes through its continuation or the log.
  using Work = std::function<Continuation()>;

  // Starts the thread. Throws std::system_error when no eventfd can be had.
  BackgroundWorker();
  // Drops the work not started yet and waits for the piece running now (a
  // blocking call ends within its own timeout).
  ~BackgroundWorker();
  BackgroundWorker(const BackgroundWorker&) = delete;
  BackgroundWorker& operator=(const BackgroundWorker&) = delete;

  void post(Work work);
  // Readable (POLLIN) while finished work waits for run_finished().
  int done_fd() const { return done_fd_; }
  // Runs the continuations of the work finished so far, in order, on the
  // calling thread (the agent loop's).
  void run_finished();

 private:
  void serve();

  int done_fd_ = -1;
  std::mutex mutex_;
  std::condition_variable posted_;
  std::deque<Work> pending_;           // guarded by mutex_
  std::deque<Continuation> finished_;  // guarded by mutex_
  bool stopping_ = false;              // guarded by mutex_
  std::thread thread_;                 // last: started once the rest exists
};

}  // namespace gantry::agents
