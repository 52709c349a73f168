#include "runtime_check/report.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace gpulint::runtime_check {

using nlohmann::json;

std::size_t display_width(std::string_view s) {
  std::size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}


namespace {

std::string pct(std::optional<double> share) {
  return share ? fmt::format("{:.0f}%", *share * 100) : "-";
}

std::string util(std::optional<double> u) { return u ? fmt::format("{:.0f}%", *u) : "-"; }

std::string growth(const VariantStats& s) {
  if (!s.memory_growth) return "-";
  if (!s.host_memory_growth) return format_bytes(*s.memory_growth);
  return fmt::format("{} (host {})", format_bytes(*s.memory_growth),
                     format_bytes(*s.host_memory_growth));
}

std::string spread(const VariantStats& s) {
  if (s.runs == 0) return "-";
  if (s.runs == 1) return "(1 run)";
  return fmt::format("{} ({:.0f}%)", format_duration_range(s.run_median_min, s.run_median_max),
                     s.spread * 100);
}

// The verdict column of a variant's row; "-" when it has no judged run (`runs`: its step-timed
// runs for Python, its whole runs for C++).
std::string verdict_cell(const ConfirmReport& r, const VariantEntry& v, std::size_t runs) {
  if (v.baseline) return "";
  if (!v.failure.empty()) return "failed";
  if (runs == 0) return "-";
  std::vector<std::string> parts;
  for (std::size_t fi : v.findings) {
    const FindingEntry& f = r.findings[fi];
    if (!f.judgement) continue;
    std::string s = fmt::format("{} {}", f.code, to_string(f.judgement->verdict));
    if (f.judgement->speedup && !is_memory_rule(f.code))
      s += fmt::format(" {:.2f}×", *f.judgement->speedup);
    if (std::find(parts.begin(), parts.end(), s) == parts.end()) parts.push_back(s);
  }
  if (parts.empty() && v.speed) {
    std::string s = std::string(to_string(v.speed->verdict));
    if (v.speed->speedup) s += fmt::format(" {:.2f}×", *v.speed->speedup);
    parts.push_back(s);
  }
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

std::string location(const ConfirmReport& r, const FindingEntry& f) {
  return fmt::format("{}:{}:{}", r.script, f.line, f.column);
}

std::string args_line(const ConfirmReport& r) {
  std::string s = r.script;
  for (const auto& a : r.args) s += " " + a;
  return s;
}


// The findings with their verdicts, the fixes together, those not run, and the notes.
void findings_sections(const ConfirmReport& r, std::ostringstream& out) {
  bool any_run = false;
  for (const FindingEntry& f : r.findings) any_run |= f.variant >= 0;
  if (any_run) {
    out << "\nFindings:\n";
    for (const FindingEntry& f : r.findings) {
      if (f.variant < 0) continue;
      const VariantEntry& v = r.variants[static_cast<std::size_t>(f.variant)];
      out << fmt::format("  {} {} [{}] {}\n", f.code, location(r, f), v.name, f.message);
      if (f.judgement)
        out << fmt::format("    {}: {}\n", to_string(f.judgement->verdict), f.judgement->reason);
      else if (!v.failure.empty())
        out << fmt::format("    not measured: {}\n", v.failure);
      else
        out << "    not measured\n";
    }
  }
  for (const VariantEntry& v : r.variants) {
    if (v.all_fixed && v.speed && v.findings.empty())
      out << fmt::format("  all fixes together: {}: {}\n", to_string(v.speed->verdict),
                         v.speed->reason);
  }
  bool any_skipped = false;
  for (const FindingEntry& f : r.findings) any_skipped |= f.variant < 0;
  if (any_skipped) {
    out << "\nNot run (no runtime-checkable fix):\n";
    for (const FindingEntry& f : r.findings)
      if (f.variant < 0)
        out << fmt::format("  {} {} {} ({})\n", f.code, location(r, f), f.message, f.skipped);
  }
  if (!r.notes.empty()) {
    out << "\n";
    for (const auto& n : r.notes) out << "note: " << n << "\n";
  }
}

// Rows padded to their columns' widths; `right`: the right-aligned columns (data rows only).
void write_rows(std::ostringstream& out, const std::vector<std::vector<std::string>>& rows,
                const std::vector<bool>& right) {
  if (rows.empty()) return;
  std::vector<std::size_t> width(rows.front().size(), 0);
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], display_width(row[c]));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::string line = "  ";
    for (std::size_t c = 0; c < rows[i].size() && c < width.size(); ++c) {
      std::size_t n = display_width(rows[i][c]);
      std::string fill(width[c] > n ? width[c] - n : 0, ' ');
      line += i > 0 && c < right.size() && right[c] ? fill + rows[i][c] : rows[i][c] + fill;
      if (c + 1 < rows[i].size()) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
    if (i == 0) {
      std::size_t total = 0;
      for (std::size_t c = 0; c < width.size(); ++c) total += width[c] + (c + 1 < width.size() ? 2 : 0);
      std::string rule;
      for (std::size_t k = 0; k < total; ++k) rule += "─";
      out << "  " << rule << "\n";
    }
  }
}

std::string peak(const std::optional<double>& median, const std::optional<double>& lo,
                 const std::optional<double>& hi) {
  if (!median) return "-";
  if (!lo || !hi || *lo == *hi) return format_bytes(*median);
  return fmt::format("{} [{}–{}]", format_bytes(*median), format_bytes(*lo), format_bytes(*hi));
}

std::string run_range(const WholeRunStats& w) {
  if (w.runs == 0) return "-";
  if (w.runs == 1) return "(1 run)";
  return fmt::format("{} ({:.0f}%)", format_duration_range(w.min_s, w.max_s), w.spread * 100);
}

std::size_t timed_runs(const VariantEntry& v) {
  std::size_t n = 0;
  for (const RunEntry& run : v.runs) n += run.warmup ? 0 : 1;
  return n;
}

std::string render_table_cpp(const ConfirmReport& r) {
  std::ostringstream out;
  out << fmt::format("gpulint confirm {} (C++ program)\n", r.script);
  out << "  root: " << r.root << " (copied per variant, without .git and CMake build trees)\n";
  std::string builds;
  for (const VariantEntry& v : r.variants)
    if (v.build_s) builds += fmt::format("{}{} {:.1f} s", builds.empty() ? "" : ", ", v.name, *v.build_s);
  out << "  build: " << r.build_command << (builds.empty() ? "" : " (" + builds + ")") << "\n";
  out << "  run: " << r.run_command << "\n";
  out << fmt::format("  whole-run timing: {} untimed warm-up run{} + {} timed round{} per variant, "
                     "timeout {:.0f} s per run\n",
                     r.warmup_runs, r.warmup_runs == 1 ? "" : "s", r.repeats,
                     r.repeats == 1 ? "" : "s", r.timeout_s);
  out << "  findings from: " << r.findings_source << "\n";
  out << "  device: " << (r.device.empty() ? "unknown" : r.device)
      << (r.gpu_name ? " (" + *r.gpu_name + ")" : "") << "\n";
  out << "  GPU sampling: " << r.gpu_status << "\n\n";
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"variant", "runs", "median run", "run times (spread)", "GPU util", "peak RSS",
                  "peak GPU mem", "verdict"});
  for (const VariantEntry& v : r.variants) {
    const WholeRunStats& w = v.whole;
    rows.push_back({v.name + (v.all_fixed && !v.baseline && v.name != "all-fixed" ? " (all-fixed)" : ""),
                    fmt::format("{}/{}", w.runs, timed_runs(v)),
                    w.runs ? format_duration(w.median_s) : "-", run_range(w),
                    util(w.gpu_util_median),
                    w.peak_rss_median ? format_bytes(*w.peak_rss_median) : "-",
                    w.peak_gpu_median ? format_bytes(*w.peak_gpu_median) : "-",
                    verdict_cell(r, v, v.whole.runs)});
  }
  write_rows(out, rows, {false, true, true, true, true, true, true, false});
  out << "\nRun time per round:\n";
  std::size_t name_width = 0;
  for (const VariantEntry& v : r.variants) name_width = std::max(name_width, display_width(v.name));
  for (const VariantEntry& v : r.variants) {
    std::string line;
    for (const RunEntry& run : v.runs) {
      if (run.warmup) continue;
      line += fmt::format("  r{} {}", run.round,
                          run.ok ? format_duration(run.whole.wall_s) : run.status);
    }
    out << "  " << v.name << ":" << std::string(name_width - display_width(v.name), ' ')
        << (line.empty() ? "  -" : line) << "\n";
  }
  findings_sections(r, out);
  return out.str();
}
}  // namespace

std::optional<std::string> gpu_names(const std::set<unsigned>& indices,
                                     const std::vector<GpuDeviceInfo>& gpus) {
  if (indices.empty()) return std::nullopt;
  std::string names;
  for (unsigned index : indices) {
    auto g = std::find_if(gpus.begin(), gpus.end(),
                          [&](const GpuDeviceInfo& d) { return d.index == index; });
    names += (names.empty() ? "" : ", ") +
             (g != gpus.end() ? g->name : fmt::format("GPU {}", index));
  }
  return names;
}

// --- terminal ------------------------------------------------------------------------------

std::string render_table(const ConfirmReport& r) {
  if (r.language == "cpp") return render_table_cpp(r);
  std::ostringstream out;
  out << fmt::format("gpulint confirm {}\n", args_line(r));
  out << fmt::format("  {} warmup + {} measured steps, {} round{}, timeout {:.0f} s per run\n",
                     r.warmup, r.steps, r.repeats, r.repeats == 1 ? "" : "s", r.timeout_s);
  std::string dev = r.device.empty() ? "unknown" : r.device;
  if (r.gpu_name) dev += " (" + *r.gpu_name + ")";
  if (!r.torch_version.empty()) dev += ", torch " + r.torch_version;
  if (!r.python_version.empty()) dev += ", Python " + r.python_version;
  out << "  device: " << dev << "\n";
  out << "  GPU sampling: " << r.gpu_status << "\n\n";

  std::vector<std::vector<std::string>> rows;
  rows.push_back({"variant", "runs", "median step", "run medians (spread)", "data wait",
                  "GPU util", "mem/step", "verdict"});
  for (const VariantEntry& v : r.variants) {
    std::size_t attempted = v.runs.size();
    rows.push_back({v.name + (v.all_fixed && !v.baseline && v.name != "all-fixed" ? " (all-fixed)" : ""),
                    fmt::format("{}/{}", v.stats.runs, attempted),
                    v.stats.runs ? format_duration(v.stats.median_step_s) : "-", spread(v.stats),
                    pct(v.stats.wait_share), util(v.stats.gpu_util_median), growth(v.stats),
                    verdict_cell(r, v, v.stats.runs)});
  }
  // Columns 1-6 (the numbers) right-aligned.
  write_rows(out, rows, {false, true, true, true, true, true, true, false});

  findings_sections(r, out);
  return out.str();
}

// --- JSON ----------------------------------------------------------------------------------

namespace {

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json judgement_json(const std::optional<Judgement>& j) {
  if (!j) return nullptr;
  return json{{"verdict", std::string(to_string(j->verdict))},
              {"reason", j->reason},
              {"speedup", opt(j->speedup)}};
}

json stats_json(const VariantStats& s) {
  return json{{"runs", s.runs},
              {"min_steps", s.min_steps},
              {"median_step_s", s.runs ? json(s.median_step_s) : json(nullptr)},
              {"run_median_min_s", s.runs ? json(s.run_median_min) : json(nullptr)},
              {"run_median_max_s", s.runs ? json(s.run_median_max) : json(nullptr)},
              {"spread", s.runs ? json(s.spread) : json(nullptr)},
              {"run_medians_s", s.run_medians},
              {"data_wait_share", opt(s.wait_share)},
              {"gpu_util_median", opt(s.gpu_util_median)},
              {"memory_growth_bytes_per_step", opt(s.memory_growth)},
              {"memory_growth_min", opt(s.memory_growth_min)},
              {"memory_growth_max", opt(s.memory_growth_max)},
              {"run_memory_growth", s.run_memory_growth},
              {"memory_source", s.memory_source},
              {"host_memory_growth_bytes_per_step", opt(s.host_memory_growth)},
              {"host_memory_growth_min", opt(s.host_memory_growth_min)},
              {"host_memory_growth_max", opt(s.host_memory_growth_max)},
              {"run_host_memory_growth", s.run_host_memory_growth}};
}

json steps_json(const HarnessResult& h) {
  json a = json::array();
  for (const StepRecord& s : h.steps)
    a.push_back(json{{"step", s.step},
                     {"wall_s", s.wall_s},
                     {"wait_s", opt(s.wait_s)},
                     {"cuda_allocated", opt(s.cuda_allocated)},
                     {"cuda_max_allocated", opt(s.cuda_max_allocated)},
                     {"rss_bytes", opt(s.rss_bytes)}});
  return a;
}

json samples_json(const std::vector<GpuSample>& samples) {
  // Columns, not one object per sample: a 10-minute run at 20 Hz has 12 000 of them.
  json t = json::array(), dev = json::array(), u = json::array(), um = json::array(),
       mem = json::array(), pm = json::array();
  for (const GpuSample& s : samples) {
    t.push_back(std::round(s.t_s * 1000) / 1000);
    dev.push_back(s.device);
    u.push_back(s.util_gpu);
    um.push_back(s.util_memory);
    mem.push_back(s.memory_used);
    pm.push_back(s.process_memory ? json(*s.process_memory) : json(nullptr));
  }
  return json{{"t_s", t},         {"device", dev},          {"util_gpu", u},
              {"util_memory", um}, {"memory_used", mem}, {"process_memory", pm}};
}

}  // namespace

json report_json(const ConfirmReport& r) {
  json j;
  j["schema"] = 1;
  j["tool"] = json{{"name", "gpulint"}, {"version", r.gpulint_version}};
  j["started_at"] = r.started_at;
  j["script"] = r.script;
  j["script_path"] = r.script_path;
  j["args"] = r.args;
  j["python"] = r.python;
  j["cwd"] = r.cwd;
  j["language"] = r.language;
  if (r.language == "cpp")
    j["cpp"] = json{{"root", r.root},
                    {"build_command", r.build_command},
                    {"run_command", r.run_command},
                    {"warmup_runs", r.warmup_runs},
                    {"timing", "whole runs"},
                    {"findings_source", r.findings_source},
                    {"not_copied", r.not_copied}};
  const bool cpp = r.language == "cpp";
  if (cpp)
    j["options"] = json{{"repeats", r.repeats}, {"timeout_s", r.timeout_s},
                        {"warmup_runs", r.warmup_runs}, {"build_timeout_s", r.build_timeout_s}};
  else
    j["options"] = json{{"repeats", r.repeats}, {"warmup", r.warmup}, {"steps", r.steps},
                        {"timeout_s", r.timeout_s}};
  j["machine"] = json{{"hostname", r.hostname}, {"os", r.os}, {"cpus", r.cpus}};
  json gpus = json::array();
  for (const auto& g : r.gpus)
    gpus.push_back(json{{"index", g.index}, {"name", g.name}, {"memory_total", g.memory_total}});
  j["gpu_sampling"] = json{{"nvml", r.nvml}, {"status", r.gpu_status}, {"gpus", std::move(gpus)},
                           {"interval_s", r.sample_interval_s}};
  j["device"] = json{{"device", r.device},
                     {"gpu_name", r.gpu_name ? json(*r.gpu_name) : json(nullptr)}};
  if (cpp) {
    j["device"]["source"] = "NVML per-process memory";
  } else {
    j["device"]["torch_version"] = r.torch_version;
    j["device"]["python_version"] = r.python_version;
    j["device"]["harness_source"] = r.harness_source;
  }
  json findings = json::array();
  for (const FindingEntry& f : r.findings) {
    findings.push_back(json{
        {"code", f.code},
        {"message", f.message},
        {"line", f.line},
        {"column", f.column},
        {"fix", f.fix_message.empty() ? json(nullptr)
                                      : json{{"message", f.fix_message},
                                             {"applicability", f.applicability}}},
        {"variant", f.variant >= 0 ? json(r.variants[static_cast<std::size_t>(f.variant)].name)
                                   : json(nullptr)},
        {"skipped", f.skipped.empty() ? json(nullptr) : json(f.skipped)},
        {"verdict", f.judgement ? json(std::string(to_string(f.judgement->verdict))) : json(nullptr)},
        {"judgement", judgement_json(f.judgement)}});
  }
  j["findings"] = std::move(findings);
  json variants = json::array();
  for (const VariantEntry& v : r.variants) {
    json runs = json::array();
    for (const RunEntry& run : v.runs) {
      json h = nullptr;
      if (run.harness) {
        h = json{{"completed", run.harness->completed},
                 {"reason", run.harness->reason},
                 {"warmup", run.harness->warmup},
                 {"device", run.harness->device},
                 {"gpu_name", run.harness->gpu_name ? json(*run.harness->gpu_name) : json(nullptr)},
                 {"torch_version", run.harness->torch_version},
                 {"python", run.harness->python},
                 {"pid", run.harness->pid},
                 {"source", run.harness->source},
                 {"steps", steps_json(*run.harness)}};
      }
      const ProcessResult& p = run.process;
      json e = {
          {"round", run.round},
          {"ok", run.ok},
          {"status", run.status},
          {"message", run.message},
          {"stderr_tail", run.stderr_tail},
          {"process", json{{"exit_code", p.started && !p.timed_out && !p.interrupted &&
                                                 p.term_signal == 0
                                             ? json(p.exit_code)
                                             : json(nullptr)},
                           {"signal", p.term_signal ? json(signal_name(p.term_signal)) : json(nullptr)},
                           {"timed_out", p.timed_out},
                           {"interrupted", p.interrupted},
                           {"wall_s", p.wall_s},
                           {"leftover_processes_killed", p.leftover},
                           {"sigkill_needed", p.sigkill_needed}}},
          {"gpu_samples", samples_json(run.samples)}};
      if (cpp) {  // a whole run: no harness, no steps
        e["warmup"] = run.warmup;
        e["wall_s"] = run.ok ? json(run.whole.wall_s) : json(nullptr);
        e["peak_rss_bytes"] = opt(run.whole.peak_rss_bytes);
        e["peak_gpu_bytes"] = opt(run.whole.peak_gpu_bytes);
        e["gpu_util_median"] = run.whole.gpu_util.empty() ? json(nullptr)
                                                          : json(median(run.whole.gpu_util));
      } else {
        e["measured_steps"] = run.stats.steps;
        e["median_step_s"] = run.stats.steps ? json(run.stats.median_step_s) : json(nullptr);
        e["data_wait_share"] = opt(run.stats.wait_share);
        e["memory_growth_bytes_per_step"] = opt(run.stats.memory_growth);
        e["memory_source"] = run.measure.memory_source;
        e["host_memory_growth_bytes_per_step"] = opt(run.stats.host_memory_growth);
        e["gpu_util_median"] = opt(run.stats.gpu_util_median);
        e["harness"] = std::move(h);
      }
      runs.push_back(std::move(e));
    }
    std::vector<std::string> fnames;
    for (std::size_t fi : v.findings)
      fnames.push_back(fmt::format("{}:{}:{}", r.findings[fi].code, r.findings[fi].line,
                                   r.findings[fi].column));
    variants.push_back(json{{"name", v.name},
                            {"description", v.description},
                            {"baseline", v.baseline},
                            {"all_fixed", v.all_fixed},
                            {"findings", fnames},
                            {"diff", v.diff},
                            {"failure", v.failure.empty() ? json(nullptr) : json(v.failure)},
                            {"speed", judgement_json(v.speed)},
                            {"runs", std::move(runs)}});
    if (!cpp) {
      json& last = variants.back();
      last["loop_line"] = v.loop_line ? json(*v.loop_line) : json(nullptr);
      last["stats"] = stats_json(v.stats);
    } else {
      const WholeRunStats& w = v.whole;
      json& last = variants.back();
      last["build_s"] = opt(v.build_s);
      last["build_log_tail"] = v.build_log_tail;
      last["whole_run_stats"] = json{
          {"runs", w.runs},
          {"run_wall_s", w.run_wall_s},
          {"median_s", w.runs ? json(w.median_s) : json(nullptr)},
          {"min_s", w.runs ? json(w.min_s) : json(nullptr)},
          {"max_s", w.runs ? json(w.max_s) : json(nullptr)},
          {"spread", w.runs ? json(w.spread) : json(nullptr)},
          {"gpu_util_median", opt(w.gpu_util_median)},
          {"run_peak_rss_bytes", w.run_peak_rss},
          {"peak_rss_median", opt(w.peak_rss_median)},
          {"run_peak_gpu_bytes", w.run_peak_gpu},
          {"peak_gpu_median", opt(w.peak_gpu_median)}};
    }
  }
  j["variants"] = std::move(variants);
  j["notes"] = r.notes;
  j["errors"] = r.errors;
  j["interrupted"] = r.interrupted;
  return j;
}

// --- HTML ----------------------------------------------------------------------------------

namespace {

struct Series {
  std::string label;
  std::string color;
  std::vector<std::pair<double, double>> points;
  bool dashed = false;
};

double nice_step(double range, int target) {
  if (!(range > 0)) return 1;
  double raw = range / target;
  double mag = std::pow(10, std::floor(std::log10(raw)));
  double f = raw / mag;
  double nice = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
  return nice * mag;
}

std::string tick_label(double v, double step) {
  if (std::fabs(v) < step * 1e-6) return "0";
  int decimals = step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  return fmt::format("{:.{}f}", v, std::clamp(decimals, 0, 6));
}

std::string svg_chart(const std::string& title, const std::string& xlabel,
                      const std::string& ylabel, const std::vector<Series>& series,
                      std::optional<double> fixed_ymax = std::nullopt, bool from_zero = true) {
  const double W = 760, H = 300, L = 68, R = 16, T = 30, B = 46;
  double xmin = std::numeric_limits<double>::infinity(), xmax = -xmin, ymax = 0,
         ydata_min = std::numeric_limits<double>::infinity();
  for (const auto& s : series)
    for (const auto& [x, y] : s.points) {
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      xmin = std::min(xmin, x);
      xmax = std::max(xmax, x);
      ymax = std::max(ymax, y);
      ydata_min = std::min(ydata_min, y);
    }
  if (!std::isfinite(xmin)) {
    xmin = 0;
    xmax = 1;
  }
  if (xmax <= xmin) xmax = xmin + 1;
  if (fixed_ymax) ymax = *fixed_ymax;
  if (!(ymax > 0)) ymax = 1;
  double ymin = 0;
  if (!from_zero && std::isfinite(ydata_min) && ydata_min < ymax) {
    double step0 = nice_step(ymax - ydata_min, 5);
    ymin = std::floor(ydata_min / step0) * step0;
  }
  double ystep = nice_step(ymax - ymin, 5);
  ymax = ymin + std::ceil((ymax - ymin) / ystep - 1e-9) * ystep;
  if (ymax <= ymin) ymax = ymin + ystep;
  double xstep = nice_step(xmax - xmin, 8);
  auto px = [&](double x) { return L + (x - xmin) / (xmax - xmin) * (W - L - R); };
  auto py = [&](double y) { return T + (1 - (y - ymin) / (ymax - ymin)) * (H - T - B); };

  std::string s = fmt::format(
      "<svg class=\"chart\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" role=\"img\" "
      "aria-label=\"{2}\">\n",
      W, H, html_escape(title));
  s += fmt::format("<text x=\"{}\" y=\"18\" class=\"title\">{}</text>\n", L, html_escape(title));
  for (double y = ymin; y <= ymax + ystep * 1e-6; y += ystep) {
    s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" class=\"grid\"/>"
                     "<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tick\" text-anchor=\"end\">{}</text>\n",
                     L, py(y), W - R, py(y), L - 6, py(y) + 4, tick_label(y, ystep));
  }
  for (double x = std::ceil(xmin / xstep) * xstep; x <= xmax + xstep * 1e-6; x += xstep) {
    s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" class=\"axis\"/>"
                     "<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tick\" text-anchor=\"middle\">{}</text>\n",
                     px(x), H - B, px(x), H - B + 5, px(x), H - B + 18, tick_label(x, xstep));
  }
  s += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" class=\"axis\"/>"
                   "<line x1=\"{0}\" y1=\"{3}\" x2=\"{0}\" y2=\"{1}\" class=\"axis\"/>\n",
                   L, H - B, W - R, T);
  s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"label\" text-anchor=\"middle\">{}</text>\n",
                   (L + W - R) / 2, H - 8, html_escape(xlabel));
  s += fmt::format("<text x=\"14\" y=\"{:.1f}\" class=\"label\" text-anchor=\"middle\" "
                   "transform=\"rotate(-90 14 {:.1f})\">{}</text>\n",
                   (T + H - B) / 2, (T + H - B) / 2, html_escape(ylabel));
  for (const auto& ser : series) {
    if (ser.points.empty()) continue;
    std::string pts;
    for (const auto& [x, y] : ser.points) {
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      pts += fmt::format("{:.1f},{:.1f} ", px(x), py(std::clamp(y, ymin, ymax)));
    }
    s += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.6\"{} points=\"{}\">"
                     "<title>{}</title></polyline>\n",
                     ser.color, ser.dashed ? " stroke-dasharray=\"5 3\"" : "", pts,
                     html_escape(ser.label));
  }
  // Legend: one entry per label.
  std::vector<std::pair<std::string, std::string>> legend;
  for (const auto& ser : series) {
    bool seen = false;
    for (const auto& [l, c] : legend) seen |= l == ser.label;
    if (!seen) legend.emplace_back(ser.label, ser.color);
  }
  double lx = W - R - 200, ly = T + 4;
  for (const auto& [label, color] : legend) {
    s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"12\" height=\"4\" fill=\"{}\"/>"
                     "<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"legend\">{}</text>\n",
                     lx, ly, color, lx + 18, ly + 5, html_escape(label));
    ly += 16;
  }
  s += "</svg>\n";
  return s;
}

const char* kBaseColor = "#4e79a7";
const char* kFixedColor = "#e15759";

std::vector<Series> step_series(const VariantEntry& v, const std::string& color) {
  std::vector<Series> out;
  for (const RunEntry& run : v.runs) {
    if (!run.ok) continue;
    Series s;
    s.label = v.name;
    s.color = color;
    for (std::size_t i = 0; i < run.measure.wall_s.size(); ++i)
      s.points.emplace_back(static_cast<double>(i), run.measure.wall_s[i] * 1000);
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<Series> memory_series(const VariantEntry& v, const std::string& color) {
  std::vector<Series> out;
  for (const RunEntry& run : v.runs) {
    if (!run.ok || run.measure.memory.empty()) continue;
    Series s;
    s.label = fmt::format("{} ({})", v.name, run.measure.memory_source);
    s.color = color;
    for (std::size_t i = 0; i < run.measure.memory.size(); ++i)
      s.points.emplace_back(static_cast<double>(i), run.measure.memory[i] / (1024.0 * 1024.0));
    out.push_back(std::move(s));
  }
  return out;
}

std::optional<Series> util_series(const VariantEntry& v, const std::string& color,
                                  std::optional<unsigned> device) {
  for (const RunEntry& run : v.runs) {
    if (!run.ok || run.samples.empty()) continue;
    Series s;
    s.label = fmt::format("{} (round {})", v.name, run.round);
    s.color = color;
    unsigned dev = device.value_or(run.samples.front().device);
    for (const GpuSample& g : run.samples)
      if (g.device == dev) s.points.emplace_back(g.t_s, g.util_gpu);
    return s;
  }
  return std::nullopt;
}

std::string html_table(const ConfirmReport& r) {
  std::string s =
      "<table><thead><tr><th>variant</th><th>runs</th><th>median step</th><th>run medians "
      "(spread)</th><th>data wait</th><th>GPU util</th><th>memory / step</th><th>verdict</th>"
      "</tr></thead><tbody>\n";
  for (const VariantEntry& v : r.variants) {
    s += fmt::format(
        "<tr><td>{}</td><td class=\"n\">{}/{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
        "<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td></tr>\n",
        html_escape(v.name), v.stats.runs, v.runs.size(),
        v.stats.runs ? format_duration(v.stats.median_step_s) : "-", html_escape(spread(v.stats)),
        pct(v.stats.wait_share), util(v.stats.gpu_util_median), growth(v.stats),
        html_escape(verdict_cell(r, v, v.stats.runs)));
  }
  s += "</tbody></table>\n";
  return s;
}

std::string html_table_cpp(const ConfirmReport& r) {
  std::string s =
      "<table><thead><tr><th>variant</th><th>build</th><th>runs</th><th>median run</th><th>run "
      "times (spread)</th><th>GPU util</th><th>peak RSS</th><th>peak GPU memory</th><th>verdict"
      "</th></tr></thead><tbody>\n";
  for (const VariantEntry& v : r.variants) {
    const WholeRunStats& w = v.whole;
    s += fmt::format(
        "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}/{}</td><td class=\"n\">{}</td>"
        "<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}"
        "</td><td>{}</td></tr>\n",
        html_escape(v.name), v.build_s ? fmt::format("{:.1f} s", *v.build_s) : "-", w.runs,
        timed_runs(v), w.runs ? format_duration(w.median_s) : "-", html_escape(run_range(w)),
        util(w.gpu_util_median), html_escape(peak(w.peak_rss_median, w.peak_rss_min, w.peak_rss_max)),
        html_escape(peak(w.peak_gpu_median, w.peak_gpu_min, w.peak_gpu_max)),
        html_escape(verdict_cell(r, v, v.whole.runs)));
  }
  s += "</tbody></table>\n";
  return s;
}

// Run time per round of one variant (whole runs).
Series run_time_series(const VariantEntry& v, const std::string& color) {
  Series s;
  s.label = v.name;
  s.color = color;
  for (const RunEntry& run : v.runs)
    if (run.ok && !run.warmup) s.points.emplace_back(run.round, run.whole.wall_s);
  return s;
}

// GPU utilisation of every timed run (one line per run).
std::vector<Series> util_series_per_run(const VariantEntry& v, const std::string& color,
                                        std::optional<unsigned> device, bool dashed) {
  std::vector<Series> out;
  for (const RunEntry& run : v.runs) {
    if (!run.ok || run.warmup || run.samples.empty()) continue;
    Series s;
    s.label = v.name;
    s.color = color;
    s.dashed = dashed;
    unsigned dev = device.value_or(run.samples.front().device);
    for (const GpuSample& g : run.samples)
      if (g.device == dev) s.points.emplace_back(g.t_s, g.util_gpu);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

std::string render_html(const ConfirmReport& r) {
  std::string h;
  h += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  h += fmt::format("<title>gpulint confirm: {}</title>\n", html_escape(r.script));
  h += R"(<style>
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 980px; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: left; vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
code, pre { font-family: ui-monospace, monospace; font-size: 0.85em; }
pre { background: #f6f8fa; padding: 8px; overflow-x: auto; }
.confirmed { color: #1a7f37; font-weight: bold; } .not-confirmed { color: #9a6700; font-weight: bold; }
.inconclusive { color: #57606a; font-weight: bold; } .error { color: #cf222e; }
svg.chart { max-width: 100%; height: auto; display: block; margin: 1em 0; }
svg .title { font-size: 14px; font-weight: bold; } svg .tick { font-size: 11px; fill: #555; }
svg .label { font-size: 12px; fill: #333; } svg .legend { font-size: 12px; }
svg .grid { stroke: #eee; } svg .axis { stroke: #888; }
.note { color: #555; }
</style>
</head>
<body>
)";
  bool cpp = r.language == "cpp";
  h += fmt::format("<h1>gpulint confirm: <code>{}</code>{}</h1>\n", html_escape(args_line(r)),
                   cpp ? " (C++ program)" : "");
  std::string dev = r.device.empty() ? "unknown" : r.device;
  if (r.gpu_name) dev += " (" + *r.gpu_name + ")";
  h += "<ul>\n";
  h += fmt::format("<li>device: {}{}{}</li>\n", html_escape(dev),
                   r.torch_version.empty() ? "" : ", torch " + html_escape(r.torch_version),
                   r.python_version.empty() ? "" : ", Python " + html_escape(r.python_version));
  h += fmt::format("<li>GPU sampling: {}</li>\n", html_escape(r.gpu_status));
  if (cpp) {
    h += fmt::format("<li>source tree: <code>{}</code> (copied per variant, without .git and CMake "
                     "build trees)</li>\n",
                     html_escape(r.root));
    h += fmt::format("<li>build: <code>{}</code></li>\n", html_escape(r.build_command));
    h += fmt::format("<li>run: <code>{}</code></li>\n", html_escape(r.run_command));
    h += fmt::format("<li>whole-run timing: {} untimed warm-up run{} + {} timed round{} per "
                     "variant (variants alternate), timeout {:.0f} s per run</li>\n",
                     r.warmup_runs, r.warmup_runs == 1 ? "" : "s", r.repeats,
                     r.repeats == 1 ? "" : "s", r.timeout_s);
    h += fmt::format("<li>findings from: {}</li>\n", html_escape(r.findings_source));
  } else {
    h += fmt::format("<li>{} warmup + {} measured steps, {} round{} (variants alternate), timeout "
                     "{:.0f} s per run</li>\n",
                     r.warmup, r.steps, r.repeats, r.repeats == 1 ? "" : "s", r.timeout_s);
  }
  h += fmt::format("<li>machine: {} ({}, {} CPUs), {}, gpulint {}</li>\n", html_escape(r.hostname),
                   html_escape(r.os), r.cpus, html_escape(r.started_at),
                   html_escape(r.gpulint_version));
  h += "</ul>\n";
  if (r.interrupted) h += "<p class=\"error\">Interrupted: the results are partial.</p>\n";
  for (const auto& e : r.errors) h += fmt::format("<p class=\"error\">{}</p>\n", html_escape(e));

  h += "<h2>Summary</h2>\n" + (cpp ? html_table_cpp(r) : html_table(r));
  h += "<h2>Findings</h2>\n<table><thead><tr><th>finding</th><th>variant</th><th>verdict</th>"
       "<th>numbers</th></tr></thead><tbody>\n";
  for (const FindingEntry& f : r.findings) {
    std::string variant = f.variant >= 0 ? r.variants[static_cast<std::size_t>(f.variant)].name : "-";
    std::string verdict, cls, reason;
    if (f.judgement) {
      verdict = std::string(to_string(f.judgement->verdict));
      cls = verdict == "confirmed" ? "confirmed" : verdict == "not confirmed" ? "not-confirmed"
                                                                               : "inconclusive";
      reason = f.judgement->reason;
    } else if (f.variant < 0) {
      verdict = "not run";
      cls = "inconclusive";
      reason = f.skipped;
    } else {
      verdict = "not measured";
      cls = "error";
      reason = r.variants[static_cast<std::size_t>(f.variant)].failure;
    }
    h += fmt::format("<tr><td><b>{}</b> line {}:{}<br>{}</td><td>{}</td><td class=\"{}\">{}</td>"
                     "<td>{}</td></tr>\n",
                     html_escape(f.code), f.line, f.column, html_escape(f.message),
                     html_escape(variant), cls, html_escape(verdict), html_escape(reason));
  }
  h += "</tbody></table>\n";

  const VariantEntry* base = r.variants.empty() ? nullptr : &r.variants.front();
  std::optional<unsigned> gpu;
  if (!r.gpus.empty()) gpu = r.gpus.front().index;
  for (const VariantEntry& v : r.variants) {
    if (v.baseline || base == nullptr) continue;
    h += fmt::format("<h2>{} against the baseline</h2>\n", html_escape(v.name));
    h += fmt::format("<p>{}</p>\n", html_escape(v.description));
    if (!v.failure.empty())
      h += fmt::format("<p class=\"error\">{}</p>\n", html_escape(v.failure));
    if (cpp) {
      if (v.build_s == std::nullopt && !v.build_log_tail.empty())
        h += fmt::format("<pre>{}</pre>\n", html_escape(v.build_log_tail));
      std::vector<Series> times{run_time_series(*base, kBaseColor), run_time_series(v, kFixedColor)};
      if (times[0].points.empty() && times[1].points.empty())
        h += "<p class=\"note\">No finished runs to chart.</p>\n";
      else
        h += svg_chart(fmt::format("Run time per round: baseline vs {} (whole runs)", v.name),
                       "round", "run time (s)", times);
      if (!r.nvml) {
        h += fmt::format("<p class=\"note\">No GPU utilisation chart: {}.</p>\n",
                         html_escape(r.gpu_status));
      } else {
        std::vector<Series> lines = util_series_per_run(*base, kBaseColor, gpu, false);
        for (auto& u : util_series_per_run(v, kFixedColor, gpu, true)) lines.push_back(std::move(u));
        if (lines.empty())
          h += "<p class=\"note\">No GPU samples were taken during these runs.</p>\n";
        else
          h += svg_chart(fmt::format("GPU utilisation per run: baseline vs {}", v.name),
                         "time since the run started (s)", "GPU utilisation (%)", lines, 100.0);
      }
      if (!v.diff.empty())
        h += fmt::format("<details><summary>diff</summary><pre>{}</pre></details>\n",
                         html_escape(v.diff));
      continue;
    }
    std::vector<Series> steps = step_series(*base, kBaseColor);
    for (auto& s : step_series(v, kFixedColor)) steps.push_back(std::move(s));
    if (steps.empty()) {
      h += "<p class=\"note\">No measured steps to chart.</p>\n";
    } else {
      h += svg_chart(fmt::format("Step time: baseline vs {} (every run)", v.name),
                     "measured step", "step time (ms)", steps);
    }
    bool memory_finding = false;
    for (std::size_t fi : v.findings) memory_finding |= is_memory_rule(r.findings[fi].code);
    if (memory_finding) {
      std::vector<Series> mem = memory_series(*base, kBaseColor);
      for (auto& s : memory_series(v, kFixedColor)) mem.push_back(std::move(s));
      if (!mem.empty())
        h += svg_chart(fmt::format("Memory: baseline vs {} (every run)", v.name), "measured step",
                       "memory (MiB)", mem, std::nullopt, false);
    }
    if (!r.nvml) {
      h += fmt::format("<p class=\"note\">No GPU utilisation chart: {}.</p>\n",
                       html_escape(r.gpu_status));
    } else {
      std::vector<Series> util_lines;
      if (auto s = util_series(*base, kBaseColor, gpu)) util_lines.push_back(std::move(*s));
      if (auto s = util_series(v, kFixedColor, gpu)) util_lines.push_back(std::move(*s));
      if (util_lines.empty())
        h += "<p class=\"note\">No GPU samples were taken during these runs.</p>\n";
      else
        h += svg_chart(fmt::format("GPU utilisation: baseline vs {} (whole run)", v.name),
                       "time since start (s)", "GPU utilisation (%)", util_lines, 100.0);
    }
    if (!v.diff.empty())
      h += fmt::format("<details><summary>diff</summary><pre>{}</pre></details>\n",
                       html_escape(v.diff));
  }

  bool failures = false;
  for (const VariantEntry& v : r.variants)
    for (const RunEntry& run : v.runs) failures |= !run.ok;
  if (failures) {
    h += "<h2>Failed runs</h2>\n";
    for (const VariantEntry& v : r.variants)
      for (const RunEntry& run : v.runs) {
        if (run.ok) continue;
        h += fmt::format("<p><b>{}</b>, {}: {}</p>\n", html_escape(v.name),
                         run.warmup ? std::string("warm-up run") : fmt::format("round {}", run.round),
                         html_escape(run.message));
        if (!run.stderr_tail.empty())
          h += fmt::format("<pre>{}</pre>\n", html_escape(run.stderr_tail));
      }
  }
  if (!r.notes.empty()) {
    h += "<h2>Notes</h2>\n<ul>\n";
    for (const auto& n : r.notes) h += fmt::format("<li>{}</li>\n", html_escape(n));
    h += "</ul>\n";
  }
  h += "</body>\n</html>\n";
  return h;
}

}  // namespace gpulint::runtime_check
