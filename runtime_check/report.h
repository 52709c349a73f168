// What `gpulint confirm` measured, and its three renderings: the terminal table, --json FILE
// and --html FILE (one self-contained page with inline SVG charts).
#pragma once

#include "analyzer/html.h"

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "runtime_check/gpu_sampler.h"
#include "runtime_check/process.h"
#include "runtime_check/stats.h"

namespace gpulint::runtime_check {

struct FindingEntry {
  std::string code;
  std::string message;
  uint32_t line = 0;    ///< 1-based
  uint32_t column = 0;  ///< 1-based, code points
  std::string fix_message;
  std::string applicability;  ///< "safe", "unsafe", "display-only", "" (no fix)
  int variant = -1;           ///< index into ConfirmReport::variants; -1: not run
  std::string skipped;        ///< why it was not run (no runtime-checkable fix, ...)
  std::optional<Judgement> judgement;
};

struct RunEntry {
  int round = 0;              ///< 1-based
  bool ok = false;            ///< finished with measured steps
  std::string status;         ///< "ok", "crashed", "timed out", "no loop", "no result", ...
  std::string message;        ///< what went wrong (or a note), one or more sentences
  std::string stderr_tail;
  ProcessResult process;
  std::optional<HarnessResult> harness;
  std::vector<GpuSample> samples;
  RunMeasure measure;
  RunStats stats;
  // C++ programs (whole runs):
  bool warmup = false;        ///< an untimed warm-up run (round 0), left out of the statistics
  WholeRunMeasure whole;
};

struct VariantEntry {
  std::string name;                  ///< "baseline", "DL001:47", "all-fixed"
  std::string description;           ///< "the script as is", the fixes' messages
  std::vector<std::size_t> findings; ///< indices into ConfirmReport::findings
  bool baseline = false;
  bool all_fixed = false;            ///< also the result of applying every fix
  std::string diff;                  ///< unified diff against the script
  std::optional<uint32_t> loop_line; ///< GPULINT_HARNESS_LOOP_LINE given to this variant
  std::vector<RunEntry> runs;
  VariantStats stats;
  std::optional<Judgement> speed;    ///< against the baseline (not for the baseline)
  std::string failure;               ///< set when the variant stopped running
  // C++ programs:
  std::optional<double> build_s;     ///< how long --build took in this variant's copy
  std::string build_log_tail;        ///< the end of its output (shown when it failed)
  WholeRunStats whole;
};

struct ConfirmReport {
  std::string script;       ///< as given
  std::string script_path;  ///< absolute
  std::vector<std::string> args;
  std::string python;       ///< the interpreter's resolved path
  std::string cwd;
  int repeats = 0;
  int warmup = 0;
  int steps = 0;
  double timeout_s = 0;
  std::string started_at;   ///< ISO 8601, UTC
  std::string gpulint_version;
  std::string hostname;
  std::string os;
  unsigned cpus = 0;
  // GPU sampling
  bool nvml = false;
  std::string gpu_status;
  std::vector<GpuDeviceInfo> gpus;
  double sample_interval_s = 0;
  // Python: what the baseline's harness saw. C++: device from NVML's per-process memory
  // ("cuda", "cpu", "unknown (no NVML)", ...) and gpu_name the NVML name of every GPU the
  // program's processes used memory on (", "-separated), nullopt when it used none.
  std::string device;
  std::optional<std::string> gpu_name;
  std::string torch_version;
  std::string python_version;
  std::string harness_source;  ///< "dataloader" or "loop_line"

  // C++ programs (language "cpp"): whole runs of a built program.
  std::string language = "python";  ///< "python" or "cpp"
  std::string build_command;
  std::string run_command;
  std::string root;                 ///< the source tree copied per variant (absolute)
  std::vector<std::string> not_copied;  ///< build trees left out of the copies (relative)
  int warmup_runs = 0;
  double build_timeout_s = 0;       ///< --build-timeout, per build
  std::string findings_source;      ///< "the C++ front end" or "--diagnostics FILE"

  std::vector<FindingEntry> findings;
  std::vector<VariantEntry> variants;  ///< [0] is the baseline
  std::vector<std::string> notes;
  std::vector<std::string> errors;
  bool interrupted = false;
};

/// The terminal report: a header, the table (variant, runs, median step, spread, data wait,
/// GPU util, memory growth per step, verdict), the verdict of every finding with its numbers,
/// the findings that were not run, and the notes.
std::string render_table(const ConfirmReport& r);
/// Everything: machine, device, options, findings, variants with their runs (per-run
/// medians, steps, GPU samples), statistics and verdicts. A C++ report (language "cpp") holds
/// what its whole runs measured: options {repeats, timeout_s, warmup_runs, build_timeout_s},
/// device {device, gpu_name} (NVML), runs with wall time, peak RSS, peak GPU memory and
/// utilisation, variants with whole_run_stats; none of the Python harness's step fields
/// (warmup/steps options, torch/Python versions, per-step timings, step statistics).
nlohmann::json report_json(const ConfirmReport& r);
/// One self-contained HTML page (inline CSS and SVG, no external resource): the summary, a
/// step-time chart and a GPU-utilisation chart (or a note when there is no GPU) per fixed
/// variant against the baseline, and each variant's diff.
std::string render_html(const ConfirmReport& r);

/// The NVML names of the GPUs with NVML indices `indices` (of `gpus`, GpuSampler::devices()),
/// ", "-separated in index order; "GPU N" for an index `gpus` does not list; nullopt when
/// `indices` is empty. The C++ report's gpu_name: the GPUs the program's processes used.
std::optional<std::string> gpu_names(const std::set<unsigned>& indices,
                                     const std::vector<GpuDeviceInfo>& gpus);

/// Number of terminal columns `s` takes (UTF-8 code points; no wide characters expected).
std::size_t display_width(std::string_view s);
/// Escapes &, <, >, " and ' (analyzer/html.h).
using gpulint::html_escape;

}  // namespace gpulint::runtime_check
