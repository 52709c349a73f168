// The GPU sampler of `gpulint confirm`: NVML (libnvidia-ml.so.1, loaded with dlopen at run
// time, so the binary also starts where no NVIDIA driver exists) read by a thread every 50 ms
// while a child runs: utilisation, memory used, and the memory of the child's processes.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace gpulint::runtime_check {

struct GpuDeviceInfo {
  unsigned index = 0;
  std::string name;
  uint64_t memory_total = 0;  ///< bytes
};

/// One reading of one GPU.
struct GpuSample {
  double t_s = 0;             ///< seconds since start()
  unsigned device = 0;        ///< NVML index
  unsigned util_gpu = 0;      ///< % of the last sample period a kernel ran
  unsigned util_memory = 0;   ///< % of the time device memory was read or written
  uint64_t memory_used = 0;   ///< bytes, whole device
  /// Bytes used by the processes of the child's process group (NVML per-process accounting);
  /// nullopt when NVML cannot tell (no such call, or PIDs from another PID namespace).
  std::optional<uint64_t> process_memory;
};

class GpuSampler {
 public:
  /// Loads `library` and initialises NVML; never throws. Devices sampled: those named by
  /// CUDA_VISIBLE_DEVICES when it lists indices, else all.
  explicit GpuSampler(std::string library = "libnvidia-ml.so.1", double interval_s = 0.05);
  ~GpuSampler();
  GpuSampler(const GpuSampler&) = delete;
  GpuSampler& operator=(const GpuSampler&) = delete;

  bool available() const { return available_; }
  /// One line: "NVML: 1 GPU (NVIDIA H100 80GB HBM3), sampled at 20 Hz" or why not
  /// ("no NVIDIA driver: running on the CPU").
  const std::string& status() const { return status_; }
  const std::vector<GpuDeviceInfo>& devices() const { return devices_; }
  /// The GPU the child most likely uses (the first sampled one).
  std::optional<unsigned> primary_device() const;
  double interval_s() const { return interval_s_; }

  /// Starts sampling (a thread) for a child whose process group is `pgid`. No-op when
  /// unavailable. A running sampling is stopped first.
  void start(pid_t pgid);
  /// Stops sampling and returns what was read since start().
  std::vector<GpuSample> stop();

 private:
  struct Api;
  void loop(pid_t pgid);
  void read_once(pid_t pgid, double t, std::vector<GpuSample>& out);

  std::unique_ptr<Api> api_;
  bool available_ = false;
  std::string status_;
  std::vector<GpuDeviceInfo> devices_;
  std::vector<void*> handles_;  ///< nvmlDevice_t per devices_ entry
  double interval_s_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::vector<GpuSample> samples_;
};

}  // namespace gpulint::runtime_check
