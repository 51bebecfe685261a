// State shared between a test and the threads it watches (watch callbacks,
// reflector handlers): changed under a mutex, awaited with a condition
// variable and a predicate. The time limit is a failure guard, not a sleep.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace gantry::kube::testing {

inline constexpr auto kAwaitGuard = std::chrono::seconds(30);

template <class State>
class Guarded {
 public:
  template <class Change>
  void update(Change&& change) {
    {
      std::lock_guard lock(mutex_);
      change(state_);
    }
    changed_.notify_all();
  }

  // True once `holds(state)`; false when the guard ran out first.
  template <class Predicate>
  bool await(Predicate&& holds) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, kAwaitGuard, [&] { return holds(state_); });
  }

  State snapshot() {
    std::lock_guard lock(mutex_);
    return state_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  State state_{};
};

}  // namespace gantry::kube::testing
