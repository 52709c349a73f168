#include "runtime_check/gpu_sampler.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "runtime_check/process.h"

namespace gpulint::runtime_check {

namespace {

// The few NVML declarations gpulint needs (nvml.h is not required to build).
using nvmlReturn_t = int;
using nvmlDevice_t = void*;
constexpr nvmlReturn_t NVML_SUCCESS = 0;
constexpr nvmlReturn_t NVML_ERROR_INSUFFICIENT_SIZE = 7;

struct nvmlUtilization_t {
  unsigned int gpu;
  unsigned int memory;
};
struct nvmlMemory_t {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
// nvmlProcessInfo_t as nvmlDeviceGetComputeRunningProcesses_v2/_v3 fill it.
struct nvmlProcessInfo_t {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};

using InitFn = nvmlReturn_t (*)();
using ShutdownFn = nvmlReturn_t (*)();
using GetCountFn = nvmlReturn_t (*)(unsigned int*);
using GetHandleFn = nvmlReturn_t (*)(unsigned int, nvmlDevice_t*);
using GetUtilFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlUtilization_t*);
using GetMemFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlMemory_t*);
using GetNameFn = nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned int);
using GetProcsFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*, nvmlProcessInfo_t*);
using ErrorStringFn = const char* (*)(nvmlReturn_t);

std::optional<std::vector<unsigned>> visible_indices() {
  const char* v = std::getenv("CUDA_VISIBLE_DEVICES");
  if (v == nullptr || *v == '\0') return std::nullopt;
  std::vector<unsigned> out;
  std::stringstream ss(v);
  std::string item;
  while (std::getline(ss, item, ',')) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos)
      return std::nullopt;  // UUIDs or MIG names: sample every device
    out.push_back(static_cast<unsigned>(std::stoul(item)));
  }
  return out;
}

}  // namespace

struct GpuSampler::Api {
  void* lib = nullptr;
  InitFn init = nullptr;
  ShutdownFn shutdown = nullptr;
  GetCountFn get_count = nullptr;
  GetHandleFn get_handle = nullptr;
  GetUtilFn get_util = nullptr;
  GetMemFn get_mem = nullptr;
  GetNameFn get_name = nullptr;
  GetProcsFn get_procs = nullptr;  // optional
  ErrorStringFn error_string = nullptr;  // optional
  bool initialised = false;
  std::mutex wake_mu;
  std::condition_variable wake;

  std::string error(nvmlReturn_t rc) const {
    if (error_string) {
      const char* s = error_string(rc);
      if (s) return fmt::format("{} ({})", s, rc);
    }
    return fmt::format("NVML error {}", rc);
  }
};

GpuSampler::GpuSampler(std::string library, double interval_s)
    : api_(std::make_unique<Api>()), interval_s_(interval_s) {
  Api& a = *api_;
  a.lib = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (a.lib == nullptr) {
    status_ = "no NVIDIA driver: running on the CPU";
    return;
  }
  auto sym = [&](const char* name) { return ::dlsym(a.lib, name); };
  a.init = reinterpret_cast<InitFn>(sym("nvmlInit_v2"));
  a.shutdown = reinterpret_cast<ShutdownFn>(sym("nvmlShutdown"));
  a.get_count = reinterpret_cast<GetCountFn>(sym("nvmlDeviceGetCount_v2"));
  a.get_handle = reinterpret_cast<GetHandleFn>(sym("nvmlDeviceGetHandleByIndex_v2"));
  a.get_util = reinterpret_cast<GetUtilFn>(sym("nvmlDeviceGetUtilizationRates"));
  a.get_mem = reinterpret_cast<GetMemFn>(sym("nvmlDeviceGetMemoryInfo"));
  a.get_name = reinterpret_cast<GetNameFn>(sym("nvmlDeviceGetName"));
  a.get_procs = reinterpret_cast<GetProcsFn>(sym("nvmlDeviceGetComputeRunningProcesses_v3"));
  if (a.get_procs == nullptr)
    a.get_procs = reinterpret_cast<GetProcsFn>(sym("nvmlDeviceGetComputeRunningProcesses_v2"));
  a.error_string = reinterpret_cast<ErrorStringFn>(sym("nvmlErrorString"));
  if (!a.init || !a.shutdown || !a.get_count || !a.get_handle || !a.get_util || !a.get_mem ||
      !a.get_name) {
    status_ = fmt::format("{} lacks NVML functions gpulint needs: no GPU sampling", library);
    return;
  }
  nvmlReturn_t rc = a.init();
  if (rc != NVML_SUCCESS) {
    status_ = fmt::format("NVML did not start ({}): no GPU sampling", a.error(rc));
    return;
  }
  a.initialised = true;
  unsigned int count = 0;
  rc = a.get_count(&count);
  if (rc != NVML_SUCCESS || count == 0) {
    status_ = rc != NVML_SUCCESS
                  ? fmt::format("NVML cannot count the GPUs ({}): no GPU sampling", a.error(rc))
                  : std::string("no NVIDIA GPU: running on the CPU");
    return;
  }
  std::vector<unsigned> wanted;
  if (auto v = visible_indices()) {
    for (unsigned i : *v)
      if (i < count) wanted.push_back(i);
  } else {
    for (unsigned i = 0; i < count; ++i) wanted.push_back(i);
  }
  for (unsigned i : wanted) {
    nvmlDevice_t h = nullptr;
    if (a.get_handle(i, &h) != NVML_SUCCESS) continue;
    GpuDeviceInfo info;
    info.index = i;
    char name[96] = {0};
    if (a.get_name(h, name, sizeof name) == NVML_SUCCESS) info.name = name;
    nvmlMemory_t mem{};
    if (a.get_mem(h, &mem) == NVML_SUCCESS) info.memory_total = mem.total;
    devices_.push_back(std::move(info));
    handles_.push_back(h);
  }
  if (devices_.empty()) {
    status_ = "NVML sees no usable GPU (CUDA_VISIBLE_DEVICES?): no GPU sampling";
    return;
  }
  available_ = true;
  std::set<std::string> names;
  for (const auto& d : devices_) names.insert(d.name);
  std::string joined;
  for (const auto& n : names) joined += (joined.empty() ? "" : ", ") + n;
  status_ = fmt::format("NVML: {} GPU{} ({}), sampled every {:.0f} ms", devices_.size(),
                        devices_.size() == 1 ? "" : "s", joined, interval_s_ * 1000);
}

GpuSampler::~GpuSampler() {
  stop();
  if (api_->initialised) api_->shutdown();
  if (api_->lib) ::dlclose(api_->lib);
}

std::optional<unsigned> GpuSampler::primary_device() const {
  if (devices_.empty()) return std::nullopt;
  return devices_.front().index;
}

void GpuSampler::start(pid_t pgid) {
  stop();
  {
    std::lock_guard<std::mutex> lock(mu_);
    samples_.clear();
  }
  if (!available_) return;
  stop_ = false;
  thread_ = std::thread([this, pgid] { loop(pgid); });
}

std::vector<GpuSample> GpuSampler::stop() {
  if (thread_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(api_->wake_mu);
      stop_ = true;
    }
    api_->wake.notify_all();
    thread_.join();
  }
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<GpuSample> out = std::move(samples_);
  samples_.clear();
  return out;
}

void GpuSampler::loop(pid_t pgid) {
  using Clock = std::chrono::steady_clock;
  auto t0 = Clock::now();
  auto next = t0;
  auto period = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(interval_s_));
  std::vector<GpuSample> local;
  while (true) {
    double t = std::chrono::duration<double>(Clock::now() - t0).count();
    read_once(pgid, t, local);
    if (!local.empty()) {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& s : local) samples_.push_back(s);
      local.clear();
    }
    next += period;
    std::unique_lock<std::mutex> lock(api_->wake_mu);
    if (api_->wake.wait_until(lock, next, [this] { return stop_.load(); })) break;
    if (Clock::now() > next + period) next = Clock::now();  // fell behind: do not burst
  }
}

void GpuSampler::read_once(pid_t pgid, double t, std::vector<GpuSample>& out) {
  Api& a = *api_;
  std::vector<pid_t> group;  // read lazily: only when NVML lists processes
  bool group_read = false;
  for (std::size_t i = 0; i < handles_.size(); ++i) {
    GpuSample s;
    s.t_s = t;
    s.device = devices_[i].index;
    nvmlUtilization_t u{};
    if (a.get_util(handles_[i], &u) == NVML_SUCCESS) {
      s.util_gpu = u.gpu;
      s.util_memory = u.memory;
    }
    nvmlMemory_t m{};
    if (a.get_mem(handles_[i], &m) == NVML_SUCCESS) s.memory_used = m.used;
    if (a.get_procs) {
      std::vector<nvmlProcessInfo_t> procs(32);
      for (int attempt = 0; attempt < 3; ++attempt) {
        unsigned int n = static_cast<unsigned int>(procs.size());
        nvmlReturn_t rc = a.get_procs(handles_[i], &n, procs.data());
        if (rc == NVML_ERROR_INSUFFICIENT_SIZE) {
          procs.resize(std::max<std::size_t>(n + 8, procs.size() * 2));
          continue;
        }
        if (rc != NVML_SUCCESS) break;
        if (n > 0) {
          if (!group_read) {
            group = process_group_members(pgid);
            group_read = true;
          }
          uint64_t sum = 0;
          bool any = false;
          for (unsigned int k = 0; k < n && k < procs.size(); ++k) {
            if (std::find(group.begin(), group.end(), static_cast<pid_t>(procs[k].pid)) ==
                group.end())
              continue;
            any = true;
            // NVML_VALUE_NOT_AVAILABLE is all ones.
            if (procs[k].usedGpuMemory != ~0ULL) sum += procs[k].usedGpuMemory;
          }
          if (any) s.process_memory = sum;
        }
        break;
      }
    }
    out.push_back(s);
  }
}

}  // namespace gpulint::runtime_check
