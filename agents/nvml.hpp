// The node's GPUs as NVIDIA's management library (NVML) reports them. NVML is
// loaded at run time with dlopen, so the agent builds and runs without any
// NVIDIA package: a node without the driver simply has no GPUs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "protocol/messages.hpp"

namespace gantry::agents {

struct GpuProbe {
  std::vector<protocol::GpuUsage> gpus;
  // Why there are no GPUs, or why some are missing (a GPU NVML could not read
  // is left out and named here); "" when every GPU was read.
  std::string error;
};

// Loads NVML with dlopen(library) (default "libnvidia-ml.so.1", resolved by the
// dynamic loader; a path for tests), resolves nvmlInit_v2, nvmlShutdown,
// nvmlDeviceGetCount_v2, nvmlDeviceGetHandleByIndex_v2, nvmlDeviceGetName,
// nvmlDeviceGetMemoryInfo, nvmlDeviceGetUtilizationRates,
// nvmlDeviceGetComputeRunningProcesses (v3 if present, else the unversioned
// one) and nvmlErrorString. An absent library gives no GPUs and the error
// "libnvidia-ml.so.1 not found: no GPUs on this node" (the caller logs it
// once). Keeps the library loaded and NVML initialised for its lifetime;
// sample() reads every GPU each call. Not thread safe.
class Nvml {
 public:
  explicit Nvml(std::string library = "libnvidia-ml.so.1");
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  // True once the library is loaded and nvmlInit_v2 succeeded.
  bool loaded() const;
  // Why loaded() is false ("" when it is true).
  const std::string& load_error() const;
  GpuProbe sample();

 private:
  struct Api;  // the resolved NVML functions
  std::string library_;
  std::string load_error_;
  void* handle_ = nullptr;
  std::unique_ptr<Api> api_;
};

}  // namespace gantry::agents
