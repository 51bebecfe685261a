#include "agents/nvml.hpp"

#include <dlfcn.h>

#include <string_view>

namespace gantry::agents {
namespace {

// nvml.h's declarations, written out here so that no NVIDIA header is needed
// to build; the layouts and signatures are those of nvml.h.
using nvmlReturn_t = int;  // an enum in nvml.h: int-sized
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr nvmlReturn_t kNvmlErrorNotSupported = 3;
constexpr nvmlReturn_t kNvmlErrorInsufficientSize = 7;
constexpr unsigned int kNvmlDeviceNameV2BufferSize = 96;

struct nvmlDevice_st;
using nvmlDevice_t = nvmlDevice_st*;

struct nvmlMemory_t {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

struct nvmlUtilization_t {
  unsigned int gpu;
  unsigned int memory;
};

// What the unversioned nvmlDeviceGetComputeRunningProcesses fills.
struct nvmlProcessInfo_v1_t {
  unsigned int pid;
  unsigned long long usedGpuMemory;
};

// What nvmlDeviceGetComputeRunningProcesses_v3 fills.
struct nvmlProcessInfo_t {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};

template <class Function>
bool resolve(void* handle, const char* name, Function& function) {
  function = reinterpret_cast<Function>(dlsym(handle, name));
  return function != nullptr;
}

std::string dlopen_failure(const std::string& library) {
  const char* reason = dlerror();
  const std::string_view detail = reason ? reason : "";
  // The usual case, a node without the NVIDIA driver, gets the plain message.
  if (detail.empty() || detail.find("No such file") != std::string_view::npos) {
    return library + " not found: no GPUs on this node";
  }
  return "cannot load " + library + " (" + std::string(detail) + "): no GPUs on this node";
}

}  // namespace

struct Nvml::Api {
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  nvmlReturn_t (*device_count)(unsigned int*) = nullptr;
  nvmlReturn_t (*device_by_index)(unsigned int, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*device_name)(nvmlDevice_t, char*, unsigned int) = nullptr;
  nvmlReturn_t (*memory_info)(nvmlDevice_t, nvmlMemory_t*) = nullptr;
  nvmlReturn_t (*utilization_rates)(nvmlDevice_t, nvmlUtilization_t*) = nullptr;
  nvmlReturn_t (*compute_processes_v3)(nvmlDevice_t, unsigned int*, nvmlProcessInfo_t*) = nullptr;
  nvmlReturn_t (*compute_processes_v1)(nvmlDevice_t, unsigned int*,
                                       nvmlProcessInfo_v1_t*) = nullptr;
  const char* (*error_string)(nvmlReturn_t) = nullptr;

  // Resolves every function; returns the name of the first one missing ("" if none).
  std::string resolve_all(void* handle) {
    if (!resolve(handle, "nvmlInit_v2", init)) return "nvmlInit_v2";
    if (!resolve(handle, "nvmlShutdown", shutdown)) return "nvmlShutdown";
    if (!resolve(handle, "nvmlDeviceGetCount_v2", device_count)) return "nvmlDeviceGetCount_v2";
    if (!resolve(handle, "nvmlDeviceGetHandleByIndex_v2", device_by_index)) {
      return "nvmlDeviceGetHandleByIndex_v2";
    }
    if (!resolve(handle, "nvmlDeviceGetName", device_name)) return "nvmlDeviceGetName";
    if (!resolve(handle, "nvmlDeviceGetMemoryInfo", memory_info)) return "nvmlDeviceGetMemoryInfo";
    if (!resolve(handle, "nvmlDeviceGetUtilizationRates", utilization_rates)) {
      return "nvmlDeviceGetUtilizationRates";
    }
    // Drivers before the v3 symbol (CUDA 11.x era) only have the unversioned one.
    if (!resolve(handle, "nvmlDeviceGetComputeRunningProcesses_v3", compute_processes_v3) &&
        !resolve(handle, "nvmlDeviceGetComputeRunningProcesses", compute_processes_v1)) {
      return "nvmlDeviceGetComputeRunningProcesses";
    }
    if (!resolve(handle, "nvmlErrorString", error_string)) return "nvmlErrorString";
    return "";
  }

  std::string describe(const char* call, nvmlReturn_t result) const {
    const char* text = error_string(result);
    return std::string(call) + " failed: " + (text ? text : "unknown error") + " (NVML error " +
           std::to_string(result) + ")";
  }

  // Asks for the count only (a 0-entry table), as nvml.h documents: success
  // means none run, "insufficient size" comes with the count.
  nvmlReturn_t count_compute_processes(nvmlDevice_t device, std::int32_t& count) const {
    unsigned int running = 0;
    const nvmlReturn_t result = compute_processes_v3
                                    ? compute_processes_v3(device, &running, nullptr)
                                    : compute_processes_v1(device, &running, nullptr);
    if (result != kNvmlSuccess && result != kNvmlErrorInsufficientSize) return result;
    count = result == kNvmlSuccess ? 0 : static_cast<std::int32_t>(running);
    return kNvmlSuccess;
  }

  // Reads GPU `index` into `gpu`; returns why it could not ("" on success).
  std::string read_gpu(unsigned int index, protocol::GpuUsage& gpu) const {
    const std::string prefix = "GPU " + std::to_string(index) + ": ";
    nvmlDevice_t device = nullptr;
    nvmlReturn_t result = device_by_index(index, &device);
    if (result != kNvmlSuccess) return prefix + describe("nvmlDeviceGetHandleByIndex_v2", result);
    char name[kNvmlDeviceNameV2BufferSize] = {};
    result = device_name(device, name, sizeof name);
    if (result != kNvmlSuccess) return prefix + describe("nvmlDeviceGetName", result);
    nvmlMemory_t memory{};
    result = memory_info(device, &memory);
    if (result != kNvmlSuccess) return prefix + describe("nvmlDeviceGetMemoryInfo", result);
    // Some GPUs (MIG mode, older boards) do not support utilisation or process
    // queries: they read as 0 rather than hiding the GPU.
    nvmlUtilization_t utilization{};
    result = utilization_rates(device, &utilization);
    if (result != kNvmlSuccess && result != kNvmlErrorNotSupported) {
      return prefix + describe("nvmlDeviceGetUtilizationRates", result);
    }
    std::int32_t processes = 0;
    result = count_compute_processes(device, processes);
    if (result != kNvmlSuccess && result != kNvmlErrorNotSupported) {
      return prefix + describe("nvmlDeviceGetComputeRunningProcesses", result);
    }
    gpu.index = static_cast<std::int32_t>(index);
    gpu.product = name;
    gpu.memory_total_bytes = static_cast<std::int64_t>(memory.total);
    gpu.memory_used_bytes = static_cast<std::int64_t>(memory.used);
    gpu.utilization_percent = static_cast<std::int32_t>(utilization.gpu);
    gpu.processes = processes;
    return "";
  }
};

Nvml::Nvml(std::string library) : library_(std::move(library)) {
  handle_ = dlopen(library_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    load_error_ = dlopen_failure(library_);
    return;
  }
  auto api = std::make_unique<Api>();
  if (const std::string missing = api->resolve_all(handle_); !missing.empty()) {
    load_error_ = library_ + " has no " + missing + ": no GPUs on this node";
  } else if (const nvmlReturn_t result = api->init(); result != kNvmlSuccess) {
    load_error_ = api->describe("nvmlInit_v2", result) + ": no GPUs on this node";
  } else {
    api_ = std::move(api);
    return;
  }
  dlclose(handle_);
  handle_ = nullptr;
}

Nvml::~Nvml() {
  if (api_) api_->shutdown();
  if (handle_ != nullptr) dlclose(handle_);
}

bool Nvml::loaded() const {
  return api_ != nullptr;
}

const std::string& Nvml::load_error() const {
  return load_error_;
}

GpuProbe Nvml::sample() {
  GpuProbe probe;
  if (!api_) {
    probe.error = load_error_;
    return probe;
  }
  unsigned int count = 0;
  if (const nvmlReturn_t result = api_->device_count(&count); result != kNvmlSuccess) {
    probe.error = api_->describe("nvmlDeviceGetCount_v2", result);
    return probe;
  }
  for (unsigned int index = 0; index < count; ++index) {
    protocol::GpuUsage gpu;
    const std::string error = api_->read_gpu(index, gpu);
    if (error.empty()) {
      probe.gpus.push_back(std::move(gpu));
    } else {
      probe.error += (probe.error.empty() ? "" : "; ") + error;
    }
  }
  return probe;
}

}  // namespace gantry::agents
