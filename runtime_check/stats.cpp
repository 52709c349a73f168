#include "runtime_check/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace gpulint::runtime_check {

using nlohmann::json;

namespace {

std::optional<double> opt_number(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::string opt_string(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

}  // namespace

std::optional<HarnessResult> parse_harness_json(std::string_view text, std::string* error) {
  auto fail = [&](std::string msg) -> std::optional<HarnessResult> {
    if (error) *error = std::move(msg);
    return std::nullopt;
  };
  json doc = json::parse(text.begin(), text.end(), nullptr, false);
  if (doc.is_discarded()) return fail("not valid JSON");
  if (!doc.is_object()) return fail("not a JSON object");
  HarnessResult h;
  if (auto s = opt_number(doc, "schema")) h.schema = static_cast<int>(*s);
  else return fail("no \"schema\"");
  if (h.schema != 1) return fail(fmt::format("schema {} (this gpulint reads schema 1)", h.schema));
  auto c = doc.find("completed");
  if (c == doc.end() || !c->is_boolean()) return fail("no boolean \"completed\"");
  h.completed = c->get<bool>();
  h.reason = opt_string(doc, "reason");
  if (auto w = opt_number(doc, "warmup")) h.warmup = static_cast<long>(*w);
  h.device = opt_string(doc, "device");
  if (auto g = doc.find("gpu_name"); g != doc.end() && g->is_string())
    h.gpu_name = g->get<std::string>();
  h.torch_version = opt_string(doc, "torch_version");
  h.python = opt_string(doc, "python");
  if (auto p = opt_number(doc, "pid")) h.pid = static_cast<long>(*p);
  h.source = opt_string(doc, "source");
  auto steps = doc.find("steps");
  if (steps == doc.end() || !steps->is_array()) return fail("no \"steps\" array");
  for (const json& s : *steps) {
    if (!s.is_object()) return fail("a step is not an object");
    StepRecord r;
    auto wall = opt_number(s, "wall_s");
    if (!wall || !std::isfinite(*wall) || *wall < 0) return fail("a step without a valid \"wall_s\"");
    r.wall_s = *wall;
    if (auto k = opt_number(s, "step")) r.step = static_cast<long>(*k);
    r.wait_s = opt_number(s, "wait_s");
    r.cuda_allocated = opt_number(s, "cuda_allocated");
    r.cuda_max_allocated = opt_number(s, "cuda_max_allocated");
    r.rss_bytes = opt_number(s, "rss_bytes");
    h.steps.push_back(r);
  }
  return h;
}

double median(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::size_t n = v.size();
  std::size_t mid = n / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  double hi = v[mid];
  if (n % 2 == 1) return hi;
  double lo = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lo + hi) / 2;
}

std::optional<double> least_squares_slope(const std::vector<double>& x,
                                          const std::vector<double>& y) {
  std::size_t n = std::min(x.size(), y.size());
  if (n < 2) return std::nullopt;
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < n; ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= static_cast<double>(n);
  my /= static_cast<double>(n);
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
  }
  if (sxx <= 0) return std::nullopt;
  return sxy / sxx;
}

RunMeasure measure_run(const HarnessResult& h, const std::vector<GpuSample>& samples,
                       std::optional<unsigned> device, double run_wall_s) {
  RunMeasure m;
  bool all_cuda = !h.steps.empty();
  bool all_rss = !h.steps.empty();
  double sum_wall = 0;
  for (const StepRecord& s : h.steps) {
    m.wall_s.push_back(s.wall_s);
    m.wait_s.push_back(s.wait_s);
    all_cuda &= s.cuda_allocated.has_value();
    all_rss &= s.rss_bytes.has_value();
    sum_wall += s.wall_s;
  }
  if (all_cuda && h.device == "cuda") {
    m.memory_source = "cuda_allocated";
    for (const StepRecord& s : h.steps) m.memory.push_back(*s.cuda_allocated);
    if (all_rss)
      for (const StepRecord& s : h.steps) m.host_memory.push_back(*s.rss_bytes);
  } else if (all_rss) {
    m.memory_source = "rss_bytes";
    for (const StepRecord& s : h.steps) m.memory.push_back(*s.rss_bytes);
  } else if (all_cuda) {
    m.memory_source = "cuda_allocated";
    for (const StepRecord& s : h.steps) m.memory.push_back(*s.cuda_allocated);
  }
  if (device) {
    double from = run_wall_s - sum_wall - 0.25;
    for (const GpuSample& s : samples)
      if (s.device == *device && s.t_s >= from) m.gpu_util.push_back(s.util_gpu);
  }
  return m;
}

RunStats run_stats(const RunMeasure& m) {
  RunStats r;
  r.steps = m.wall_s.size();
  r.median_step_s = median(m.wall_s);
  double wall = 0, wait = 0;
  bool any_wait = false;
  for (std::size_t i = 0; i < m.wall_s.size(); ++i) {
    if (i < m.wait_s.size() && m.wait_s[i]) {
      any_wait = true;
      wait += *m.wait_s[i];
      wall += m.wall_s[i];
    }
  }
  if (any_wait && wall > 0) r.wait_share = std::clamp(wait / wall, 0.0, 1.0);
  auto slope = [](const std::vector<double>& y) -> std::optional<double> {
    if (y.size() < 2) return std::nullopt;
    std::vector<double> x(y.size());
    std::iota(x.begin(), x.end(), 0.0);
    return least_squares_slope(x, y);
  };
  r.memory_growth = slope(m.memory);
  r.host_memory_growth = slope(m.host_memory);
  if (!m.gpu_util.empty()) r.gpu_util_median = median(m.gpu_util);
  return r;
}

VariantStats variant_stats(const std::vector<RunMeasure>& runs) {
  VariantStats v;
  std::vector<double> all_steps, utils, growth, host_growth;
  double wall = 0, wait = 0;
  bool any_wait = false;
  for (const RunMeasure& m : runs) {
    if (m.wall_s.empty()) continue;
    RunStats r = run_stats(m);
    v.min_steps = v.runs == 0 ? r.steps : std::min(v.min_steps, r.steps);
    ++v.runs;
    v.run_medians.push_back(r.median_step_s);
    all_steps.insert(all_steps.end(), m.wall_s.begin(), m.wall_s.end());
    for (std::size_t i = 0; i < m.wall_s.size(); ++i) {
      if (i < m.wait_s.size() && m.wait_s[i]) {
        any_wait = true;
        wait += *m.wait_s[i];
        wall += m.wall_s[i];
      }
    }
    utils.insert(utils.end(), m.gpu_util.begin(), m.gpu_util.end());
    if (r.memory_growth) {
      growth.push_back(*r.memory_growth);
      if (v.memory_source.empty()) v.memory_source = m.memory_source;
    }
    if (r.host_memory_growth) host_growth.push_back(*r.host_memory_growth);
  }
  if (v.runs == 0) return v;
  v.median_step_s = median(all_steps);
  v.run_median_min = *std::min_element(v.run_medians.begin(), v.run_medians.end());
  v.run_median_max = *std::max_element(v.run_medians.begin(), v.run_medians.end());
  v.spread = v.median_step_s > 0 ? (v.run_median_max - v.run_median_min) / v.median_step_s : 0;
  if (any_wait && wall > 0) v.wait_share = std::clamp(wait / wall, 0.0, 1.0);
  if (!utils.empty()) v.gpu_util_median = median(utils);
  if (!growth.empty()) {
    v.run_memory_growth = growth;
    v.memory_growth = median(growth);
    v.memory_growth_min = *std::min_element(growth.begin(), growth.end());
    v.memory_growth_max = *std::max_element(growth.begin(), growth.end());
  }
  // Host series only where every run with a primary series has one: the judgement compares
  // like with like.
  if (!host_growth.empty() && host_growth.size() == growth.size()) {
    v.run_host_memory_growth = host_growth;
    v.host_memory_growth = median(host_growth);
    v.host_memory_growth_min = *std::min_element(host_growth.begin(), host_growth.end());
    v.host_memory_growth_max = *std::max_element(host_growth.begin(), host_growth.end());
  }
  return v;
}

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::Confirmed: return "confirmed";
    case Verdict::NotConfirmed: return "not confirmed";
    case Verdict::Inconclusive: return "inconclusive";
  }
  return "inconclusive";
}

bool is_memory_rule(std::string_view code) { return code.substr(0, 3) == "MEM"; }

bool needs_gpu(std::string_view code) {
  return code == "DL002" || code.substr(0, 3) == "DEV";
}

namespace {

std::string speed_numbers(const VariantStats& b, const VariantStats& f) {
  return fmt::format("baseline {} [{}], fixed {} [{}] per step", format_duration(b.median_step_s),
                     format_duration_range(b.run_median_min, b.run_median_max),
                     format_duration(f.median_step_s),
                     format_duration_range(f.run_median_min, f.run_median_max));
}

std::optional<Judgement> too_little(const VariantStats& b, const VariantStats& f) {
  for (const auto& [name, v] : {std::pair<const char*, const VariantStats*>{"baseline", &b},
                                {"fixed variant", &f}}) {
    if (v->runs < kMinRuns)
      return Judgement{Verdict::Inconclusive,
                       fmt::format("the {} has {} finished run{} (needs {})", name, v->runs,
                                   v->runs == 1 ? "" : "s", kMinRuns),
                       std::nullopt};
    if (v->min_steps < kMinSteps)
      return Judgement{Verdict::Inconclusive,
                       fmt::format("a run of the {} has {} measured steps (needs {}: raise "
                                   "--steps, or run the script longer)",
                                   name, v->min_steps, kMinSteps),
                       std::nullopt};
  }
  return std::nullopt;
}

}  // namespace

namespace {

// One side of a speed comparison: the median and the range of the per-run figures.
struct Side {
  double median = 0, min = 0, max = 0, spread = 0;
};

// The speed verdict shared by step timing and whole-run timing (judge_speed's rule).
Judgement judge_sides(const Side& b, const Side& f, const std::string& numbers) {
  Judgement j;
  if (b.median > 0 && f.median > 0) j.speedup = b.median / f.median;
  // Confirmed when every fixed run beats every baseline run by more than the wider of the two
  // run-to-run ranges: the difference exceeds the spread, however noisy each side is.
  double gap = b.min - f.max;
  double widest = std::max(b.max - b.min, f.max - f.min);
  if (gap > 0 && gap > widest) {
    j.verdict = Verdict::Confirmed;
    j.reason = fmt::format("{:.2f}× faster, beyond the run-to-run spread: {}",
                           j.speedup.value_or(1.0), numbers);
    return j;
  }
  // Noise can hide a speedup the medians point to; when the fixed variant's median is not
  // faster at all, the runs give no evidence for the fix however noisy they are.
  bool median_faster = j.speedup && *j.speedup > 1;
  for (const auto& [name, v] : {std::pair<const char*, const Side*>{"baseline", &b},
                                {"fixed variant", &f}}) {
    if (median_faster && v->spread > kMaxSpread) {
      j.verdict = Verdict::Inconclusive;
      j.reason = fmt::format("too noisy: the {}'s runs differ by {:.0f}% of its median (more than "
                             "{:.0f}%); {}",
                             name, v->spread * 100, kMaxSpread * 100, numbers);
      return j;
    }
  }
  double speedup = j.speedup.value_or(1.0);
  j.verdict = Verdict::NotConfirmed;
  j.reason = speedup > 1
                 ? fmt::format("{:.2f}× faster, within the run-to-run spread: {}", speedup, numbers)
                 : fmt::format("not faster ({:.2f}×): {}", speedup, numbers);
  return j;
}

}  // namespace

Judgement judge_speed(const VariantStats& b, const VariantStats& f) {
  if (auto j = too_little(b, f)) return *j;
  return judge_sides({b.median_step_s, b.run_median_min, b.run_median_max, b.spread},
                     {f.median_step_s, f.run_median_min, f.run_median_max, f.spread},
                     speed_numbers(b, f));
}

namespace {

struct Growth {
  double median = 0, min = 0, max = 0;
  std::string source;
};

Judgement judge_growth(const Growth& b, const Growth& f) {
  std::string numbers = fmt::format(
      "memory grows {}/step in the baseline [{} – {}], {}/step fixed [{} – {}] ({})",
      format_bytes(b.median), format_bytes(b.min), format_bytes(b.max), format_bytes(f.median),
      format_bytes(f.min), format_bytes(f.max), b.source.empty() ? "memory" : b.source);
  double fixed_max = std::max(f.max, 0.0);
  double fixed_limit = std::max(kMemoryNoiseBytes, 0.1 * b.median);
  if (b.min > kMemoryNoiseBytes && b.min > kMemoryFactor * fixed_max && f.median <= fixed_limit)
    return {Verdict::Confirmed, "the fix stops the growth: " + numbers, std::nullopt};
  if (b.median <= kMemoryNoiseBytes)
    return {Verdict::NotConfirmed,
            fmt::format("the baseline's memory grows by no more than {}/step: ",
                        format_bytes(kMemoryNoiseBytes)) +
                numbers,
            std::nullopt};
  return {Verdict::NotConfirmed,
          "the fixed variant's memory still grows, or the runs disagree: " + numbers, std::nullopt};
}

}  // namespace

Judgement judge_memory(const VariantStats& b, const VariantStats& f) {
  if (auto j = too_little(b, f)) return *j;
  if (!b.memory_growth || !f.memory_growth)
    return {Verdict::Inconclusive, "no memory readings (neither torch.cuda nor RSS)", std::nullopt};
  Judgement primary = judge_growth(
      {*b.memory_growth, *b.memory_growth_min, *b.memory_growth_max, b.memory_source},
      {*f.memory_growth, *f.memory_growth_min, *f.memory_growth_max, f.memory_source});
  if (primary.verdict == Verdict::Confirmed || !b.host_memory_growth || !f.host_memory_growth)
    return primary;
  Judgement host = judge_growth({*b.host_memory_growth, *b.host_memory_growth_min,
                                 *b.host_memory_growth_max, "host rss_bytes"},
                                {*f.host_memory_growth, *f.host_memory_growth_min,
                                 *f.host_memory_growth_max, "host rss_bytes"});
  if (host.verdict == Verdict::Confirmed) {
    host.reason += fmt::format(" (GPU {}/step baseline, {}/step fixed)",
                               format_bytes(*b.memory_growth), format_bytes(*f.memory_growth));
    return host;
  }
  return primary;
}

Judgement judge_finding(std::string_view code, const VariantStats& b, const VariantStats& f,
                        std::string_view device) {
  if (is_memory_rule(code)) return judge_memory(b, f);
  Judgement j = judge_speed(b, f);
  if (needs_gpu(code) && device != "cuda" && j.verdict != Verdict::Inconclusive) {
    j.verdict = Verdict::Inconclusive;
    j.reason = fmt::format("the script ran on the {}: this fix only changes GPU runs; {}",
                           device.empty() ? "CPU" : (device == "cpu" ? "CPU" : device),
                           j.reason);
  }
  return j;
}

// --- whole runs ------------------------------------------------------------------------------

WholeRunMeasure whole_run_measure(double wall_s, std::optional<double> peak_rss_bytes,
                                  const std::vector<GpuSample>& samples,
                                  std::optional<unsigned> device) {
  WholeRunMeasure m;
  m.wall_s = wall_s;
  m.peak_rss_bytes = peak_rss_bytes;
  for (const GpuSample& s : samples) {
    if (device && s.device == *device) m.gpu_util.push_back(s.util_gpu);
    if (s.process_memory)
      m.peak_gpu_bytes = std::max(m.peak_gpu_bytes.value_or(0.0),
                                  static_cast<double>(*s.process_memory));
  }
  return m;
}

WholeRunStats whole_run_stats(const std::vector<WholeRunMeasure>& runs) {
  WholeRunStats w;
  std::vector<double> utils;
  for (const WholeRunMeasure& m : runs) {
    if (!std::isfinite(m.wall_s) || m.wall_s < 0) continue;
    ++w.runs;
    w.run_wall_s.push_back(m.wall_s);
    utils.insert(utils.end(), m.gpu_util.begin(), m.gpu_util.end());
    if (m.peak_rss_bytes) w.run_peak_rss.push_back(*m.peak_rss_bytes);
    if (m.peak_gpu_bytes) w.run_peak_gpu.push_back(*m.peak_gpu_bytes);
  }
  if (w.runs == 0) return w;
  w.median_s = median(w.run_wall_s);
  w.min_s = *std::min_element(w.run_wall_s.begin(), w.run_wall_s.end());
  w.max_s = *std::max_element(w.run_wall_s.begin(), w.run_wall_s.end());
  w.spread = w.median_s > 0 ? (w.max_s - w.min_s) / w.median_s : 0;
  if (!utils.empty()) w.gpu_util_median = median(utils);
  auto fold = [](const std::vector<double>& v, std::optional<double>& med,
                 std::optional<double>& lo, std::optional<double>& hi) {
    if (v.empty()) return;
    med = median(v);
    lo = *std::min_element(v.begin(), v.end());
    hi = *std::max_element(v.begin(), v.end());
  };
  fold(w.run_peak_rss, w.peak_rss_median, w.peak_rss_min, w.peak_rss_max);
  fold(w.run_peak_gpu, w.peak_gpu_median, w.peak_gpu_min, w.peak_gpu_max);
  return w;
}

namespace {

std::optional<Judgement> too_few_runs(const WholeRunStats& b, const WholeRunStats& f) {
  for (const auto& [name, v] : {std::pair<const char*, const WholeRunStats*>{"baseline", &b},
                                {"fixed variant", &f}}) {
    if (v->runs < kMinRuns)
      return Judgement{Verdict::Inconclusive,
                       fmt::format("the {} has {} finished run{} (needs {}: raise --repeats)",
                                   name, v->runs, v->runs == 1 ? "" : "s", kMinRuns),
                       std::nullopt};
  }
  return std::nullopt;
}

// Peak memory: fixed below baseline by more than the noise floor and the wider range.
Judgement judge_peaks(double b_med, double b_min, double b_max, double f_med, double f_min,
                      double f_max, const std::string& what) {
  std::string numbers =
      fmt::format("peak {} baseline {} [{} – {}], fixed {} [{} – {}] (whole runs)", what,
                  format_bytes(b_med), format_bytes(b_min), format_bytes(b_max),
                  format_bytes(f_med), format_bytes(f_min), format_bytes(f_max));
  double gap = b_min - f_max;
  double widest = std::max(b_max - b_min, f_max - f_min);
  if (gap > kPeakMemoryNoiseBytes && gap > widest)
    return {Verdict::Confirmed,
            fmt::format("the fix lowers the peak by {}, beyond the run-to-run spread: {}",
                        format_bytes(b_med - f_med), numbers),
            std::nullopt};
  if (b_med - f_med <= kPeakMemoryNoiseBytes)
    return {Verdict::NotConfirmed,
            fmt::format("the fixed variant's peak is not lower by more than {}: {}",
                        format_bytes(kPeakMemoryNoiseBytes), numbers),
            std::nullopt};
  return {Verdict::NotConfirmed,
          "the peaks differ by less than their run-to-run spread: " + numbers, std::nullopt};
}

}  // namespace

Judgement judge_whole_run_speed(const WholeRunStats& b, const WholeRunStats& f) {
  if (auto j = too_few_runs(b, f)) return *j;
  std::string numbers = fmt::format(
      "baseline {} [{}], fixed {} [{}] per run (whole-run timing)", format_duration(b.median_s),
      format_duration_range(b.min_s, b.max_s), format_duration(f.median_s),
      format_duration_range(f.min_s, f.max_s));
  return judge_sides({b.median_s, b.min_s, b.max_s, b.spread},
                     {f.median_s, f.min_s, f.max_s, f.spread}, numbers);
}

Judgement judge_whole_run_memory(const WholeRunStats& b, const WholeRunStats& f) {
  if (auto j = too_few_runs(b, f)) return *j;
  bool gpu = b.peak_gpu_median && f.peak_gpu_median;
  bool host = b.peak_rss_median && f.peak_rss_median;
  if (!gpu && !host)
    return {Verdict::Inconclusive,
            "no peak memory readings (neither NVML per-process memory nor the run's peak RSS)",
            std::nullopt};
  std::optional<Judgement> on_gpu, on_host;
  if (gpu)
    on_gpu = judge_peaks(*b.peak_gpu_median, *b.peak_gpu_min, *b.peak_gpu_max,
                         *f.peak_gpu_median, *f.peak_gpu_min, *f.peak_gpu_max, "GPU memory");
  if (on_gpu && on_gpu->verdict == Verdict::Confirmed) return *on_gpu;
  if (host)
    on_host = judge_peaks(*b.peak_rss_median, *b.peak_rss_min, *b.peak_rss_max,
                          *f.peak_rss_median, *f.peak_rss_min, *f.peak_rss_max, "host RSS");
  if (on_host && on_host->verdict == Verdict::Confirmed) {
    if (on_gpu) on_host->reason += fmt::format(" (GPU peaks {} baseline, {} fixed)",
                                               format_bytes(*b.peak_gpu_median),
                                               format_bytes(*f.peak_gpu_median));
    return *on_host;
  }
  return on_gpu ? *on_gpu : *on_host;
}

Judgement judge_whole_run_finding(std::string_view code, const WholeRunStats& b,
                                  const WholeRunStats& f, std::string_view device) {
  if (is_memory_rule(code)) return judge_whole_run_memory(b, f);
  Judgement j = judge_whole_run_speed(b, f);
  if (needs_gpu(code) && device != "cuda" && j.verdict != Verdict::Inconclusive) {
    j.verdict = Verdict::Inconclusive;
    j.reason = std::string(device == "cpu" ? "the program ran on the CPU"
                                           : "whether the program used a GPU is not known") +
               ": this fix only changes GPU runs; " + j.reason;
  }
  return j;
}

std::string format_duration(double s) {
  if (!std::isfinite(s)) return "-";
  double a = std::fabs(s);
  if (a >= 1) return fmt::format("{:.2f} s", s);
  if (a >= 1e-3) return fmt::format("{:.{}f} ms", s * 1e3, a >= 0.1 ? 0 : (a >= 0.01 ? 1 : 2));
  return fmt::format("{:.0f} µs", s * 1e6);
}

std::string format_duration_range(double lo, double hi) {
  std::string a = format_duration(lo), b = format_duration(hi);
  // "12.1–12.6 ms" rather than "12.1 ms–12.6 ms" when both have the same unit.
  std::size_t sp = a.rfind(' ');
  if (sp != std::string::npos && b.size() > a.size() - sp &&
      b.compare(b.size() - (a.size() - sp), a.size() - sp, a, sp) == 0)
    a.resize(sp);
  return a + "–" + b;
}

std::string format_bytes(double b) {
  if (!std::isfinite(b)) return "-";
  double a = std::fabs(b);
  if (a < 0.5) return "0 B";
  if (a < 1024) return fmt::format("{:.0f} B", b);
  if (a < 1024.0 * 1024) return fmt::format("{:.1f} KiB", b / 1024);
  if (a < 1024.0 * 1024 * 1024) return fmt::format("{:.1f} MiB", b / (1024.0 * 1024));
  return fmt::format("{:.2f} GiB", b / (1024.0 * 1024 * 1024));
}

}  // namespace gpulint::runtime_check
