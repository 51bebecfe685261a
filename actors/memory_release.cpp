#include "actors/memory_release.hpp"

#include <malloc.h>

#include <algorithm>

namespace gantry::actors {

void keep_large_buffers_out_of_the_heap() {
  constexpr int kLargeBufferBytes = 1 << 20;
  (void)mallopt(M_MMAP_THRESHOLD, kLargeBufferBytes);
}

bool FreedMemoryRelease::on_sweep(int connections_open, TimePoint now) {
  if (connections_open != last_count_) {
    last_count_ = connections_open;
    last_change_ = now;
  }
  peak_ = std::max(peak_, connections_open);
  if (peak_ - connections_open < connections_closed_ || now - last_change_ < settle_) {
    return false;
  }
  (void)malloc_trim(0);
  peak_ = connections_open;
  return true;
}

}  // namespace gantry::actors
