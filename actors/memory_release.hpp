// Gives memory freed by closed connections back to the system. glibc keeps
// what it frees for the process to reuse, so after a flood of connections
// closes, the hub's resident memory stays at the flood's high-water mark
// (measured: 5,000 handshaken connections +164 MiB, still +164 MiB once all
// closed; +1.7 MiB after malloc_trim). And a freed buffer of a big frame
// raises glibc's mmap threshold, so the next big buffers come from the heap
// and stay (a 16 MiB frame left +17 MiB behind).
#pragma once

#include <chrono>

namespace gantry::actors {

// Buffers of 1 MiB and more (big frames) are mapped on their own and unmapped
// when freed, instead of growing the heap: fixes glibc's mmap threshold
// (M_MMAP_THRESHOLD), which otherwise rises to the largest buffer freed.
// Call once at hub start.
void keep_large_buffers_out_of_the_heap();

// Calls malloc_trim(0) once the connections open have fallen well below their
// peak and stayed put for a while (libzmq frees a connection's session and
// pipes a little after its DISCONNECTED event). The time is passed in.
class FreedMemoryRelease {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  explicit FreedMemoryRelease(int connections_closed = 256,
                              std::chrono::milliseconds settle = std::chrono::seconds(5))
      : connections_closed_(connections_closed), settle_(settle) {}

  // Call it every sweep with the connections open on all sockets; true when
  // it gave memory back.
  bool on_sweep(int connections_open, TimePoint now);

 private:
  int connections_closed_;
  std::chrono::milliseconds settle_;
  int peak_ = 0;
  int last_count_ = 0;
  TimePoint last_change_{};
};

}  // namespace gantry::actors
