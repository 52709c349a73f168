// Statistics and verdicts of `gpulint confirm`: what the harness wrote (its JSON contract),
// per-run and per-variant numbers, and the verdict per finding. Pure functions: tested with
// synthetic numbers in tests/runtime_check_test.cpp.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime_check/gpu_sampler.h"

namespace gpulint::runtime_check {

// --- the harness's JSON (schema 1) -----------------------------------------------------------

struct StepRecord {
  long step = 0;
  double wall_s = 0;
  std::optional<double> wait_s;            ///< null in loop-line mode
  std::optional<double> cuda_allocated;    ///< bytes
  std::optional<double> cuda_max_allocated;
  std::optional<double> rss_bytes;
};

struct HarnessResult {
  int schema = 1;
  bool completed = false;
  std::string reason;
  long warmup = 0;
  std::vector<StepRecord> steps;  ///< measured steps only
  std::string device;             ///< "cuda", "cpu", "mps"
  std::optional<std::string> gpu_name;
  std::string torch_version;
  std::string python;
  long pid = 0;
  std::string source;             ///< "dataloader" or "loop_line"
};

/// Parses the harness's JSON; nullopt with *error set when it is not valid or not schema 1.
std::optional<HarnessResult> parse_harness_json(std::string_view text, std::string* error);

// --- numbers ---------------------------------------------------------------------------------

/// Median; NaN for an empty vector.
double median(std::vector<double> v);
/// Least-squares slope of y over x; nullopt with fewer than 2 points or constant x.
std::optional<double> least_squares_slope(const std::vector<double>& x,
                                          const std::vector<double>& y);

/// One finished run, as the statistics see it.
struct RunMeasure {
  std::vector<double> wall_s;                ///< per measured step
  std::vector<std::optional<double>> wait_s; ///< per measured step (null: not measured)
  std::vector<double> memory;                ///< bytes per measured step; empty: none
  std::string memory_source;                 ///< "cuda_allocated", "rss_bytes" or ""
  /// Host RSS bytes per measured step when `memory` is cuda_allocated (a kept autograd graph
  /// lives in host memory: its nodes are freed only with the graph, its saved GPU tensors at
  /// backward()); empty otherwise.
  std::vector<double> host_memory;
  /// GPU utilisation (%) of the primary GPU while the measured steps ran.
  std::vector<double> gpu_util;
};

/// The measures of one run: cuda_allocated where every step has it (device "cuda"), else
/// rss_bytes; GPU samples of `device` in the window of the measured steps (the last
/// sum(wall_s) seconds before the child ended at `run_wall_s`, with 0.25 s of slack).
RunMeasure measure_run(const HarnessResult& h, const std::vector<GpuSample>& samples,
                       std::optional<unsigned> device, double run_wall_s);

struct RunStats {
  std::size_t steps = 0;
  double median_step_s = 0;
  std::optional<double> wait_share;    ///< sum wait / sum wall over steps that have a wait
  std::optional<double> memory_growth; ///< bytes per step (least-squares slope)
  std::optional<double> host_memory_growth; ///< bytes per step of RunMeasure::host_memory
  std::optional<double> gpu_util_median;
};
RunStats run_stats(const RunMeasure& m);

struct VariantStats {
  std::size_t runs = 0;              ///< finished runs with measured steps
  std::size_t min_steps = 0;         ///< fewest measured steps in one of them
  double median_step_s = 0;          ///< over every measured step of every run
  double run_median_min = 0;         ///< fastest per-run median
  double run_median_max = 0;         ///< slowest per-run median
  double spread = 0;                 ///< (max - min) / median_step_s
  std::vector<double> run_medians;
  std::optional<double> wait_share;
  std::optional<double> gpu_util_median;
  std::optional<double> memory_growth;      ///< median of the per-run slopes, bytes/step
  std::optional<double> memory_growth_min;
  std::optional<double> memory_growth_max;
  std::vector<double> run_memory_growth;
  std::string memory_source;
  /// The same for the host RSS series of runs that measured cuda_allocated (see RunMeasure).
  std::optional<double> host_memory_growth;
  std::optional<double> host_memory_growth_min;
  std::optional<double> host_memory_growth_max;
  std::vector<double> run_host_memory_growth;
};
VariantStats variant_stats(const std::vector<RunMeasure>& runs);

// --- verdicts --------------------------------------------------------------------------------

enum class Verdict { Confirmed, NotConfirmed, Inconclusive };
std::string_view to_string(Verdict v);  // "confirmed", "not confirmed", "inconclusive"

struct Judgement {
  Verdict verdict = Verdict::Inconclusive;
  std::string reason;             ///< one sentence with the numbers
  std::optional<double> speedup;  ///< baseline median / fixed median
};

constexpr std::size_t kMinRuns = 2;
constexpr std::size_t kMinSteps = 10;
constexpr double kMaxSpread = 0.25;
constexpr double kMemoryNoiseBytes = 1024;  ///< growth below this per step is noise
constexpr double kMemoryFactor = 3;

/// True for rules whose fix saves memory (MEM*), false for speed rules (DL*, DEV*).
bool is_memory_rule(std::string_view code);
/// True for rules whose fix only changes anything when the script runs on a GPU
/// (DL002 pinned memory, DEV00x device placement).
bool needs_gpu(std::string_view code);

/// Speed: confirmed when the fixed variant's slowest run median beats the baseline's fastest
/// by more than the wider of the two run-median ranges (the difference exceeds the run-to-run
/// spread, however noisy either side is); otherwise inconclusive with < kMinRuns runs,
/// < kMinSteps steps in a run, or — when the fixed median is faster — a spread above
/// kMaxSpread of either variant; not confirmed when the fixed median is not faster, or the
/// runs are steady and the gap is within their spread.
Judgement judge_speed(const VariantStats& baseline, const VariantStats& fixed);
/// Memory: confirmed when the baseline grows in every run by > kMemoryNoiseBytes per step and
/// by more than kMemoryFactor times the fixed variant's largest growth, and the fixed variant's
/// median growth is ~0 (at most max(kMemoryNoiseBytes, 10% of the baseline's)). Judged on the
/// primary series (cuda_allocated on a GPU, else RSS) and, when that does not confirm and both
/// variants have one, on the host RSS series: a loss kept in a list during training keeps its
/// autograd graph's nodes in host memory while backward() has already freed the saved GPU
/// tensors, so its growth shows in RSS, not in torch.cuda.memory_allocated().
Judgement judge_memory(const VariantStats& baseline, const VariantStats& fixed);
/// The verdict for a finding of rule `code`; `device`: where the baseline ran ("cuda", "cpu").
/// GPU-only fixes measured on the CPU are inconclusive (with the numbers).
Judgement judge_finding(std::string_view code, const VariantStats& baseline,
                        const VariantStats& fixed, std::string_view device);

// --- whole runs (C++ programs: no harness counts their steps) -------------------------------

/// One finished run of a C++ program's --run command, judged as a whole.
struct WholeRunMeasure {
  double wall_s = 0;  ///< the run command's wall time, start to the end of its process
  /// Peak resident set size of the run (wait4's ru_maxrss of the command's process, which
  /// covers the descendants it waited for), bytes; nullopt when the kernel did not report it.
  std::optional<double> peak_rss_bytes;
  /// Peak GPU memory of the run's process group (NVML per-process accounting, the largest
  /// sample), bytes; nullopt when NVML is absent or cannot attribute memory to processes.
  std::optional<double> peak_gpu_bytes;
  /// GPU utilisation (%) samples of the primary GPU while the run lasted.
  std::vector<double> gpu_util;
};

/// `samples` of one run folded into a WholeRunMeasure: peak per-process GPU memory and the
/// utilisation of `device` (all samples of the run: a whole run has no warm-up window).
WholeRunMeasure whole_run_measure(double wall_s, std::optional<double> peak_rss_bytes,
                                  const std::vector<GpuSample>& samples,
                                  std::optional<unsigned> device);

/// A variant's whole runs: median run time, the range of run times and the peaks.
struct WholeRunStats {
  std::size_t runs = 0;
  std::vector<double> run_wall_s;  ///< per run, in round order
  double median_s = 0;
  double min_s = 0;
  double max_s = 0;
  double spread = 0;  ///< (max - min) / median
  std::optional<double> gpu_util_median;
  std::vector<double> run_peak_rss;  ///< bytes, runs that reported it
  std::optional<double> peak_rss_median, peak_rss_min, peak_rss_max;
  std::vector<double> run_peak_gpu;  ///< bytes, runs that NVML attributed memory to
  std::optional<double> peak_gpu_median, peak_gpu_min, peak_gpu_max;
};
WholeRunStats whole_run_stats(const std::vector<WholeRunMeasure>& runs);

/// A peak-memory difference below this is noise (allocator and page granularity).
constexpr double kPeakMemoryNoiseBytes = 1024.0 * 1024;

/// Speed of whole runs: confirmed when the fixed variant's slowest run beats the baseline's
/// fastest by more than the wider of the two run-time ranges; inconclusive with < kMinRuns
/// runs, or — when the fixed median is faster — a spread above kMaxSpread; not confirmed
/// otherwise. The same rule as judge_speed, on run times instead of per-run step medians.
Judgement judge_whole_run_speed(const WholeRunStats& baseline, const WholeRunStats& fixed);
/// Memory of whole runs (MEM rules): confirmed when the fixed variant's largest peak is below
/// the baseline's smallest by more than kPeakMemoryNoiseBytes and more than the wider of the
/// two peak ranges. Judged on the GPU peaks when both variants have them and, when those do
/// not confirm, on the host peak RSS (a kept autograd graph lives in host memory). Not
/// confirmed otherwise; inconclusive with < kMinRuns runs or no peaks at all.
Judgement judge_whole_run_memory(const WholeRunStats& baseline, const WholeRunStats& fixed);
/// The verdict for a finding of rule `code` on whole runs; `device` as for judge_finding
/// ("cuda" when the program used a GPU).
Judgement judge_whole_run_finding(std::string_view code, const WholeRunStats& baseline,
                                  const WholeRunStats& fixed, std::string_view device);

/// "12.3 ms", "850 µs", "1.25 s".
std::string format_duration(double seconds);
/// "12.1–12.6 ms", "850 µs–1.20 ms".
std::string format_duration_range(double lo, double hi);
/// "1.5 KiB", "-3.0 MiB", "0 B".
std::string format_bytes(double bytes);

}  // namespace gpulint::runtime_check
