#include "runtime_check/confirm.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analyzer/analysis.h"
#include "analyzer/config.h"
#include "analyzer/fixer.h"
#include "analyzer/rule.h"
#include "analyzer/source.h"
#include "runtime_check/gpu_sampler.h"
#include "runtime_check/harness_files.h"
#include "runtime_check/process.h"
#include "runtime_check/report.h"
#include "runtime_check/stats.h"

extern char** environ;

namespace gpulint::runtime_check {

namespace fs = std::filesystem;

namespace {

constexpr int kExitOk = 0;
constexpr int kExitError = 2;
constexpr int kExitInterrupted = 130;

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos
                                                                          : nl - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.emplace_back(line);
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  return out;
}

std::size_t indent_of(const std::string& line) {
  std::size_t n = 0;
  for (char c : line) {
    if (c == ' ') ++n;
    else if (c == '\t') n = (n / 8 + 1) * 8;
    else break;
  }
  return n;
}

bool blank_or_comment(const std::string& line) {
  std::size_t p = line.find_first_not_of(" \t\f");
  return p == std::string::npos || line[p] == '#';
}

bool starts_loop(std::string_view s) {
  for (std::string_view kw : {"for ", "for(", "async for ", "while ", "while("})
    if (s.substr(0, kw.size()) == kw) return true;
  return false;
}

std::string indent_block(const std::string& text, const std::string& prefix = "    ") {
  std::string out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    out += prefix + text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos + 1);
    if (nl == std::string::npos) {
      out += "\n";
      break;
    }
    pos = nl + 1;
  }
  return out;
}

bool write_bytes(const fs::path& p, std::string_view bytes, std::string* error) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  f.close();
  if (!f) {
    *error = fmt::format("cannot write {}", p.string());
    return false;
  }
  return true;
}

std::optional<std::string> read_text(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) return std::nullopt;
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string now_iso8601() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

struct Planned {
  std::string text;
  std::vector<std::size_t> findings;
  bool all_fixed = false;
};

}  // namespace

// --- building blocks -------------------------------------------------------------------------

std::optional<uint32_t> enclosing_loop_line(std::string_view text, uint32_t line0) {
  std::vector<std::string> lines = split_lines(text);
  if (line0 >= lines.size()) return std::nullopt;
  std::size_t cur = indent_of(lines[line0]);
  for (std::size_t k = line0; k-- > 0;) {
    if (cur == 0) break;
    const std::string& l = lines[k];
    if (blank_or_comment(l)) continue;
    std::size_t ind = indent_of(l);
    if (ind >= cur) continue;
    if (starts_loop(std::string_view(l).substr(l.find_first_not_of(" \t"))))
      return static_cast<uint32_t>(k + 1);
    cur = ind;
  }
  return std::nullopt;
}

uint32_t map_line(std::string_view from, uint32_t line, std::string_view to) {
  std::vector<std::string> a = split_lines(from), b = split_lines(to);
  if (line == 0 || line > a.size()) return line;
  const std::string& target = a[line - 1];
  std::optional<std::size_t> best;
  std::size_t best_dist = 0;
  for (std::size_t j = 0; j < b.size(); ++j) {
    if (b[j] != target) continue;
    std::size_t dist = j > line - 1 ? j - (line - 1) : (line - 1) - j;
    if (!best || dist < best_dist) {
      best = j;
      best_dist = dist;
    }
  }
  return best ? static_cast<uint32_t>(*best + 1) : line;
}

std::vector<std::string> child_environment(const std::vector<std::string>& base,
                                           const HarnessEnv& h) {
  std::vector<std::string> env;
  std::optional<std::string> old_path;
  for (const std::string& e : base) {
    if (e.rfind("GPULINT_HARNESS_", 0) == 0) continue;
    if (e.rfind("PYTHONPATH=", 0) == 0) {
      old_path = e.substr(11);
      continue;
    }
    env.push_back(e);
  }
  std::string pp = h.harness_dir;
  if (old_path && !old_path->empty()) pp += ":" + *old_path;
  env.push_back("PYTHONPATH=" + pp);
  env.push_back("GPULINT_HARNESS_OUT=" + h.out_json);
  env.push_back(fmt::format("GPULINT_HARNESS_WARMUP={}", h.warmup));
  env.push_back(fmt::format("GPULINT_HARNESS_STEPS={}", h.steps));
  env.push_back("GPULINT_HARNESS_SCRIPT_DIR=" + h.script_dir);
  if (h.loop_line) env.push_back(fmt::format("GPULINT_HARNESS_LOOP_LINE={}", *h.loop_line));
  if (h.sync) env.push_back("GPULINT_HARNESS_SYNC=1");
  return env;
}

// --- the command -----------------------------------------------------------------------------

CLI::App* add_confirm_subcommand(CLI::App& app, ConfirmOptions& o) {
  CLI::App* c = app.add_subcommand(
      "confirm",
      "Re-run a training script with and without each fix and measure what the fix is worth "
      "(exit 2 when a run fails)");
  c->add_option("script", o.script, "The training script (Python)")->required();
  c->add_option("args", o.args,
                "The script's arguments; put them after `--` when they start with `-`");
  c->add_option("--python", o.python, "The Python interpreter (default: python3 on PATH)");
  c->add_option("--repeats", o.repeats, "Rounds: each variant runs this many times, alternating")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  c->add_option("--warmup", o.warmup, "Steps run before measuring")
      ->check(CLI::Range(0, 100000000))
      ->capture_default_str();
  c->add_option("--steps", o.steps, "Steps measured per run")
      ->check(CLI::Range(1, 100000000))
      ->capture_default_str();
  c->add_option("--timeout", o.timeout_s, "Seconds one run may take before it is killed")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  c->add_option("--json", o.json_path, "Write everything measured to FILE (JSON)");
  c->add_option("--html", o.html_path,
                "Write a self-contained HTML report with step-time and GPU charts to FILE");
  c->add_option("--loop-line", o.loop_line,
                "Time the loop whose header is on this line of SCRIPT (default: the loop the "
                "DataLoader drives)")
      ->check(CLI::Range(1, 100000000));
  c->add_option("--select", o.select,
                "Only confirm these rules' findings (codes or prefixes, comma-separated)")
      ->delimiter(',')
      ->allow_extra_args(false);
  c->add_flag("--sync", o.sync,
              "Call torch.cuda.synchronize() at every step boundary (exact GPU step times)");
  c->add_flag("-q,--quiet", o.quiet, "No progress lines");
  c->footer("Example: gpulint confirm train.py -- --epochs 1 --batch-size 64\n");
  return c;
}

int run_confirm_command(const ConfirmOptions& opts) {
  return run_confirm(opts, std::cout, std::cerr);
}

namespace {

class Confirm {
 public:
  Confirm(const ConfirmOptions& o, std::ostream& out, std::ostream& err)
      : o_(o), out_(out), err_(err) {}

  int run();

 private:
  int prepare();        // static check and variants; kExitOk to go on
  int set_up_temp();    // temp dir, harness, variant files
  int run_all();        // the rounds
  RunEntry run_one(std::size_t vi, int round);
  void finish();        // statistics, verdicts
  int write_outputs();
  void progress(const std::string& line) {
    if (!o_.quiet) err_ << line << "\n" << std::flush;
  }

  const ConfirmOptions& o_;
  std::ostream& out_;
  std::ostream& err_;
  ConfirmReport rep_;
  std::optional<SourceFile> src_;
  fs::path cwd_;
  fs::path script_abs_;
  std::string python_;
  std::vector<Planned> planned_;  // [0] baseline
  std::optional<uint32_t> loop_candidate_;  // 1-based, in the script
  bool use_loop_line_ = false;
  std::optional<TempDir> tmp_;
  fs::path harness_dir_;
  std::vector<fs::path> variant_paths_;
  std::unique_ptr<GpuSampler> sampler_;
  std::vector<std::string> base_env_;
  bool failed_ = false;
  bool fatal_ = false;
  std::size_t runs_done_ = 0;
  std::size_t runs_total_ = 0;
};

int Confirm::run() {
  clear_interrupt();
  InterruptGuard guard;
  rep_.gpulint_version = GPULINT_VERSION;
  rep_.started_at = now_iso8601();
  rep_.repeats = o_.repeats;
  rep_.warmup = o_.warmup;
  rep_.steps = o_.steps;
  rep_.timeout_s = o_.timeout_s;
  rep_.args = o_.args;
  rep_.script = o_.script;
  char host[256] = {0};
  if (::gethostname(host, sizeof host - 1) == 0) rep_.hostname = host;
  struct utsname u {};
  if (::uname(&u) == 0) rep_.os = fmt::format("{} {} {}", u.sysname, u.release, u.machine);
  rep_.cpus = std::thread::hardware_concurrency();

  if (int rc = prepare(); rc != kExitOk || planned_.size() <= 1) return rc;
  if (int rc = set_up_temp(); rc != kExitOk) return rc;
  int rc = run_all();
  if (rep_.interrupted) {
    tmp_->remove();
    err_ << "gpulint confirm: interrupted: stopped the run, killed its processes and removed "
            "the temporary files\n";
    return kExitInterrupted;
  }
  (void)rc;
  finish();
  tmp_->remove();
  out_ << render_table(rep_) << std::flush;
  int wrc = write_outputs();
  if (fatal_ || failed_ || wrc != kExitOk) return kExitError;
  return kExitOk;
}

int Confirm::prepare() {
  if (o_.repeats < 1 || o_.warmup < 0 || o_.steps < 1 || !(o_.timeout_s > 0)) {
    err_ << "error: --repeats and --steps must be at least 1, --warmup at least 0, --timeout "
            "positive\n";
    return kExitError;
  }
  std::error_code ec;
  cwd_ = fs::current_path(ec);
  if (ec) {
    err_ << "error: cannot read the working directory: " << ec.message() << "\n";
    return kExitError;
  }
  rep_.cwd = cwd_.string();
  if (o_.script.empty()) {
    err_ << "error: no script given\n";
    return kExitError;
  }
  script_abs_ = fs::absolute(o_.script, ec).lexically_normal();
  rep_.script_path = script_abs_.string();
  std::string ext = script_abs_.extension().string();
  for (const char* cpp : {".cpp", ".cc", ".cxx", ".cu", ".c", ".h", ".hpp"}) {
    if (ext == cpp) {
      err_ << fmt::format("error: {}: `gpulint confirm` runs Python scripts; C++ programs "
                          "(--build/--run) are not supported yet\n",
                          o_.script);
      return kExitError;
    }
  }
  LoadError le;
  src_ = SourceFile::load(script_abs_.string(), &le);
  if (!src_) {
    err_ << fmt::format("error: {}: {}\n", o_.script, le.message);
    return kExitError;
  }
  std::optional<std::string> py = find_executable(o_.python);
  if (!py) {
    err_ << fmt::format("error: --python: {}\n",
                        o_.python.find('/') != std::string::npos
                            ? fmt::format("`{}` is not an executable file", o_.python)
                            : fmt::format("`{}` not found on PATH", o_.python));
    return kExitError;
  }
  python_ = *py;
  rep_.python = python_;
  if (harness_files().empty()) {
    err_ << "error: this gpulint was built without its runtime harness "
            "(runtime_check/harness/*.py): rebuild it\n";
    return kExitError;
  }
  for (const auto& s : o_.select) {
    if (!selector_is_known(s)) {
      err_ << fmt::format("error: --select: unknown rule selector `{}`\n", s);
      return kExitError;
    }
  }

  // The static check: every rule (or --select), the rule options of the script's config.
  FileSettings settings;
  try {
    ConfigResolver resolver(cwd_, std::nullopt, CliOverrides{});
    settings.options = resolver.file_settings(script_abs_).options;
  } catch (const ConfigError& e) {
    err_ << "error: " << e.what() << "\n";
    return kExitError;
  }
  RuleSelection selection;
  selection.select = o_.select;  // empty: every rule
  settings.enabled = selection.enabled_codes();
  FileReport report = analyze_python(*src_, settings);
  if (report.not_analysed) rep_.notes.push_back("the script was not analysed: " + *report.not_analysed);
  if (report.syntax_error)
    rep_.notes.push_back(fmt::format("the script has {} syntax error(s); findings may be missing",
                                     report.syntax_error->error_count));

  std::string_view original = src_->text();
  uint32_t original_errors = python_syntax_error_count(original);
  planned_.push_back(Planned{std::string(original), {}, false});
  for (const Diagnostic& d : report.diagnostics) {
    FindingEntry f;
    f.code = d.code;
    f.message = d.message;
    LineCol lc = src_->codepoint_position(d.start);
    f.line = lc.line + 1;
    f.column = lc.column + 1;
    if (d.fix) {
      f.fix_message = d.fix->message;
      f.applicability = std::string(to_string(d.fix->applicability));
    }
    std::size_t fi = rep_.findings.size();
    if (!d.fix) {
      f.skipped = "no runtime-checkable fix: the rule proposes none";
    } else if (d.fix->applicability == Applicability::DisplayOnly || d.fix->edits.empty()) {
      f.skipped = "no runtime-checkable fix: its fix is display-only";
    } else {
      std::optional<std::string> text = apply_fixes_once(original, {d}, true, nullptr);
      if (!text || *text == original) {
        f.skipped = "no runtime-checkable fix: its fix changes nothing";
      } else if (python_syntax_error_count(*text) > original_errors) {
        f.skipped = "no runtime-checkable fix: the fixed script would not parse";
      } else {
        auto same = std::find_if(planned_.begin(), planned_.end(),
                                 [&](const Planned& p) { return p.text == *text; });
        if (same == planned_.end()) {
          planned_.push_back(Planned{std::move(*text), {fi}, false});
        } else {
          same->findings.push_back(fi);
        }
      }
    }
    rep_.findings.push_back(std::move(f));
    if (!loop_candidate_) loop_candidate_ = enclosing_loop_line(original, src_->line_of(d.start));
  }
  if (planned_.size() > 1) {
    FileSettings s = settings;
    FixResult all = fix_source(*src_, report, true,
                               [&s](const SourceFile& f) { return analyze_python(f, s); });
    if (all.changed && !all.error) {
      auto same = std::find_if(planned_.begin() + 1, planned_.end(),
                               [&](const Planned& p) { return p.text == all.text; });
      if (same != planned_.end()) same->all_fixed = true;
      else planned_.push_back(Planned{all.text, {}, true});
    }
  }

  // Variant names: CODE:LINE (+ more findings), CODE:LINE:COL where two would clash.
  std::map<std::string, int> uses;
  auto base_name = [&](const Planned& p, bool with_col) {
    std::string n;
    for (std::size_t fi : p.findings) {
      const FindingEntry& f = rep_.findings[fi];
      n += (n.empty() ? "" : "+") +
           (with_col ? fmt::format("{}:{}:{}", f.code, f.line, f.column)
                     : fmt::format("{}:{}", f.code, f.line));
    }
    return n.empty() ? std::string("all-fixed") : n;
  };
  for (std::size_t i = 1; i < planned_.size(); ++i) ++uses[base_name(planned_[i], false)];
  for (std::size_t i = 0; i < planned_.size(); ++i) {
    VariantEntry v;
    const Planned& p = planned_[i];
    v.baseline = i == 0;
    v.all_fixed = p.all_fixed;
    v.findings = p.findings;
    if (i == 0) {
      v.name = "baseline";
      v.description = "the script as it is";
    } else {
      std::string n = base_name(p, false);
      v.name = uses[n] > 1 ? base_name(p, true) : n;
      std::string desc;
      for (std::size_t fi : p.findings) {
        const FindingEntry& f = rep_.findings[fi];
        desc += (desc.empty() ? "" : "; ") + fmt::format("{} (line {}): {}", f.code, f.line,
                                                         f.fix_message);
      }
      if (p.findings.empty()) desc = "every fix applied (gpulint check --fix --unsafe-fixes)";
      else if (p.all_fixed) desc += " (also what every fix together gives)";
      v.description = desc;
      v.diff = unified_diff(src_->text(), p.text, "a/" + script_abs_.filename().string(),
                            "b/" + script_abs_.filename().string());
    }
    for (std::size_t fi : v.findings) rep_.findings[fi].variant = static_cast<int>(i);
    rep_.variants.push_back(std::move(v));
  }

  if (planned_.size() <= 1) {
    out_ << fmt::format("gpulint confirm {}: nothing to run: ", o_.script);
    if (rep_.findings.empty()) {
      out_ << "no findings\n";
    } else {
      out_ << "no finding has a runtime-checkable fix\n";
      for (const FindingEntry& f : rep_.findings)
        out_ << fmt::format("  {} {}:{}:{} {} ({})\n", f.code, o_.script, f.line, f.column,
                            f.message, f.skipped);
    }
    return write_outputs();
  }

  // The loop the harness times: the DataLoader's (default), or a loop header line.
  if (o_.loop_line > 0) {
    if (static_cast<std::size_t>(o_.loop_line) > src_->line_count()) {
      err_ << fmt::format("error: --loop-line {}: {} has {} lines\n", o_.loop_line, o_.script,
                          src_->line_count());
      return kExitError;
    }
    loop_candidate_ = static_cast<uint32_t>(o_.loop_line);
    use_loop_line_ = true;
  } else if (loop_candidate_ && original.find("DataLoader") == std::string_view::npos) {
    use_loop_line_ = true;
  }
  return kExitOk;
}

int Confirm::set_up_temp() {
  std::string error;
  tmp_ = TempDir::create("gpulint-confirm-", &error);
  if (!tmp_) {
    err_ << "error: " << error << "\n";
    return kExitError;
  }
  fs::path root = tmp_->path();
  harness_dir_ = root / "harness";
  std::error_code ec;
  fs::create_directories(harness_dir_, ec);
  fs::create_directories(root / "out", ec);
  if (ec) {
    err_ << "error: cannot make directories under " << root.string() << ": " << ec.message() << "\n";
    return kExitError;
  }
  for (const EmbeddedFile& f : harness_files()) {
    if (!write_bytes(harness_dir_ / std::string(f.name), f.content, &error)) {
      err_ << "error: " << error << "\n";
      return kExitError;
    }
  }
  std::string name = script_abs_.filename().string();
  for (std::size_t i = 0; i < planned_.size(); ++i) {
    fs::path dir = root / (i == 0 ? std::string("baseline") : fmt::format("v{}", i));
    fs::create_directories(dir, ec);
    fs::path p = dir / name;
    if (ec || !write_bytes(p, src_->bytes_for_writing(planned_[i].text), &error)) {
      err_ << "error: " << (ec ? ec.message() : error) << "\n";
      return kExitError;
    }
    variant_paths_.push_back(p);
  }
  for (char** e = environ; e && *e; ++e) base_env_.emplace_back(*e);
  sampler_ = std::make_unique<GpuSampler>(o_.nvml_library);
  rep_.nvml = sampler_->available();
  rep_.gpu_status = sampler_->status();
  rep_.gpus = sampler_->devices();
  rep_.sample_interval_s = sampler_->interval_s();
  return kExitOk;
}

RunEntry Confirm::run_one(std::size_t vi, int round) {
  VariantEntry& v = rep_.variants[vi];
  RunEntry e;
  e.round = round;
  fs::path out_dir = fs::path(tmp_->path()) / "out";
  std::string stem = fmt::format("{}-r{}", vi == 0 ? std::string("baseline") : fmt::format("v{}", vi),
                                 round);
  fs::path json_path = out_dir / (stem + ".json");
  fs::path err_path = out_dir / (stem + ".stderr");
  std::error_code ec;
  fs::remove(json_path, ec);

  HarnessEnv he;
  he.harness_dir = harness_dir_.string();
  he.out_json = json_path.string();
  he.warmup = o_.warmup;
  he.steps = o_.steps;
  he.script_dir = script_abs_.parent_path().string();
  he.sync = o_.sync;
  if (use_loop_line_ && loop_candidate_) {
    he.loop_line = map_line(src_->text(), *loop_candidate_, planned_[vi].text);
    v.loop_line = he.loop_line;
  }
  ProcessSpec spec;
  spec.argv.push_back(python_);
  spec.argv.push_back(variant_paths_[vi].string());
  for (const auto& a : o_.args) spec.argv.push_back(a);
  spec.env = child_environment(base_env_, he);
  spec.cwd = cwd_.string();
  spec.stdout_path = (out_dir / (stem + ".stdout")).string();
  spec.stderr_path = err_path.string();
  spec.timeout_s = o_.timeout_s;
  spec.kill_grace_s = o_.kill_grace_s;

  ++runs_done_;
  progress(fmt::format("[{}/{}] {} (round {}) ...", runs_done_, runs_total_, v.name, round));
  e.process = run_process(
      spec, [this](pid_t pid) { sampler_->start(pid); },
      [this, &e] { e.samples = sampler_->stop(); });
  e.stderr_tail = file_tail(err_path.string());
  const ProcessResult& p = e.process;
  std::string who = vi == 0 ? std::string("the script") : fmt::format("the {} variant", v.name);

  if (!p.started) {
    e.status = "error";
    e.message = fmt::format("cannot run {}: {}", python_, p.error);
  } else if (p.interrupted) {
    e.status = "interrupted";
    e.message = "interrupted";
  } else if (p.timed_out) {
    e.status = "timed out";
    e.message = fmt::format(
        "{} did not finish within --timeout {:.0f} s and was killed: it hangs, never reaches "
        "its training loop, or needs longer for {} steps (lower --warmup/--steps or raise "
        "--timeout)",
        who, o_.timeout_s, o_.warmup + o_.steps);
  } else if (p.exit_code != 0 || p.term_signal != 0) {
    e.status = "crashed";
    e.message = fmt::format("{} crashed ({})", who, p.describe());
  } else {
    std::optional<std::string> text = read_text(json_path);
    std::string perr;
    if (!text) {
      e.status = "no result";
      e.message = fmt::format(
          "{} exited without the gpulint harness reporting: the harness was not loaded (an "
          "interpreter that ignores PYTHONPATH or sitecustomize?) or the script left through "
          "os._exit()",
          who);
    } else if (auto h = parse_harness_json(*text, &perr); !h) {
      e.status = "no result";
      e.message = fmt::format("the harness's result is unreadable: {}", perr);
    } else {
      e.harness = std::move(*h);
      const HarnessResult& hr = *e.harness;
      if (hr.steps.empty()) {
        e.status = "no loop";
        if (hr.reason == "no loop found") {
          e.message =
              he.loop_line
                  ? fmt::format("{} ended without running its loop on line {} twice", who,
                                *he.loop_line)
                  : fmt::format("{} ended without reaching a training loop: no DataLoader handed "
                                "out two batches; name the loop's header line with --loop-line N",
                                who);
        } else {
          e.message = fmt::format(
              "{} ended before the first measured step ({}): all its steps were warmup (--warmup "
              "{}); lower --warmup or let it run more steps",
              who, hr.reason.empty() ? "no reason given" : hr.reason, o_.warmup);
        }
      } else {
        e.ok = true;
        e.status = "ok";
        if (!hr.completed)
          e.message = fmt::format("{} ended after {} measured steps (fewer than --steps {})", who,
                                  hr.steps.size(), o_.steps);
        e.measure = measure_run(hr, e.samples, sampler_->primary_device(), p.wall_s);
        e.stats = run_stats(e.measure);
      }
    }
  }
  if (p.leftover > 0) {
    std::string note = fmt::format(
        "{} (round {}) left {} process{} behind (DataLoader workers?): killed{}", v.name, round,
        p.leftover, p.leftover == 1 ? "" : "es", p.sigkill_needed ? " with SIGKILL" : "");
    progress("  " + note);
    rep_.notes.push_back(note);
  }
  if (e.ok) {
    std::string extra;
    if (e.stats.wait_share) extra += fmt::format(", data wait {:.0f}%", *e.stats.wait_share * 100);
    if (e.stats.gpu_util_median) extra += fmt::format(", GPU {:.0f}%", *e.stats.gpu_util_median);
    progress(fmt::format("  {} per step over {} steps{} ({:.1f} s)",
                         format_duration(e.stats.median_step_s), e.stats.steps, extra, p.wall_s));
    if (!e.message.empty()) progress("  note: " + e.message);
  } else if (e.status != "interrupted") {
    progress(fmt::format("  {}: {}", e.status, e.message));
  }
  return e;
}

int Confirm::run_all() {
  runs_total_ = planned_.size() * static_cast<std::size_t>(o_.repeats);
  progress(fmt::format(
      "gpulint confirm {}: {} finding(s), {} variant(s) besides the baseline, {} round(s): {} runs "
      "of {} + {} steps",
      o_.script, rep_.findings.size(), planned_.size() - 1, o_.repeats, runs_total_, o_.warmup,
      o_.steps));
  progress("GPU sampling: " + rep_.gpu_status);
  if (use_loop_line_ && loop_candidate_)
    progress(fmt::format("timing the loop on line {} (no DataLoader drives it)", *loop_candidate_));
  bool fallback_tried = false;
  for (int round = 1; round <= o_.repeats && !fatal_; ++round) {
    for (std::size_t vi = 0; vi < rep_.variants.size() && !fatal_; ++vi) {
      VariantEntry& v = rep_.variants[vi];
      if (!v.failure.empty()) continue;
      if (interrupt_requested()) {
        rep_.interrupted = true;
        return kExitInterrupted;
      }
      RunEntry e = run_one(vi, round);
      if (e.status == "interrupted" || interrupt_requested()) {
        rep_.interrupted = true;
        return kExitInterrupted;
      }
      // No DataLoader loop in the baseline: time the loop around the findings instead.
      if (vi == 0 && round == 1 && e.status == "no loop" && !use_loop_line_ && loop_candidate_ &&
          !fallback_tried) {
        fallback_tried = true;
        use_loop_line_ = true;
        std::string note = fmt::format(
            "no DataLoader loop in the baseline: timing the loop on line {} instead", *loop_candidate_);
        progress(note);
        rep_.notes.push_back(note);
        --runs_done_;
        e = run_one(vi, round);
        if (e.status == "interrupted" || interrupt_requested()) {
          rep_.interrupted = true;
          return kExitInterrupted;
        }
      }
      bool ok = e.ok;
      std::string message = e.message, tail = e.stderr_tail, status = e.status;
      v.runs.push_back(std::move(e));
      if (ok) continue;
      failed_ = true;
      std::string text = fmt::format("{} (round {}): {}", v.name, round, message);
      if (!tail.empty() && status != "ok") text += "\n" + indent_block(tail);
      rep_.errors.push_back(fmt::format("{} (round {}): {}", v.name, round, message));
      err_ << "error: " << text << (text.back() == '\n' ? "" : "\n") << std::flush;
      if (vi == 0 || status == "error") {
        fatal_ = true;  // nothing to compare against (or no interpreter): stop
        v.failure = message;
      } else {
        v.failure = message;
        err_ << fmt::format("  ({}'s remaining runs are skipped; the other variants go on)\n",
                            v.name);
      }
    }
  }
  return kExitOk;
}

void Confirm::finish() {
  for (VariantEntry& v : rep_.variants) {
    std::vector<RunMeasure> measures;
    for (const RunEntry& e : v.runs)
      if (e.ok) measures.push_back(e.measure);
    v.stats = variant_stats(measures);
  }
  const VariantEntry& base = rep_.variants.front();
  for (const RunEntry& e : base.runs) {
    if (!e.harness) continue;
    rep_.device = e.harness->device;
    rep_.gpu_name = e.harness->gpu_name;
    rep_.torch_version = e.harness->torch_version;
    rep_.python_version = e.harness->python;
    rep_.harness_source = e.harness->source;
    break;
  }
  // Where each variant ran: a DEV001 baseline runs on the CPU by definition, its fixed
  // variant on the GPU.
  auto ran_on = [](const VariantEntry& v) {
    for (const RunEntry& e : v.runs)
      if (e.harness) return e.harness->device;
    return std::string();
  };
  bool any_cuda = rep_.device == "cuda";
  for (const VariantEntry& v : rep_.variants) any_cuda |= ran_on(v) == "cuda";
  if (rep_.device == "cpu" && !any_cuda) {
    rep_.notes.push_back(rep_.nvml ? "the script ran on the CPU although NVML sees a GPU (a "
                                     "torch without CUDA?)"
                                   : "no GPU: the script ran on the CPU; fixes that only matter on a "
                                     "GPU (DL002, DEV*) are inconclusive there");
  } else if (rep_.device == "cpu") {
    rep_.notes.push_back("the baseline ran on the CPU and a fixed variant on the GPU");
  }
  if (base.stats.runs == 0) return;
  for (std::size_t vi = 1; vi < rep_.variants.size(); ++vi) {
    VariantEntry& v = rep_.variants[vi];
    if (v.stats.runs == 0) continue;
    v.speed = judge_speed(base.stats, v.stats);
    // A GPU-only fix is judged as a GPU run when either side of the comparison used the GPU.
    std::string device = rep_.device == "cuda" || ran_on(v) == "cuda" ? "cuda" : rep_.device;
    for (std::size_t fi : v.findings)
      rep_.findings[fi].judgement = judge_finding(rep_.findings[fi].code, base.stats, v.stats,
                                                  device);
  }
}

int Confirm::write_outputs() {
  int rc = kExitOk;
  if (!o_.json_path.empty()) {
    std::string error;
    if (!write_bytes(o_.json_path, report_json(rep_).dump(1) + "\n", &error)) {
      err_ << "error: --json: " << error << "\n";
      rc = kExitError;
    }
  }
  if (!o_.html_path.empty()) {
    std::string error;
    if (!write_bytes(o_.html_path, render_html(rep_), &error)) {
      err_ << "error: --html: " << error << "\n";
      rc = kExitError;
    }
  }
  return rc;
}

}  // namespace

int run_confirm(const ConfirmOptions& opts, std::ostream& out, std::ostream& err) {
  try {
    Confirm c(opts, out, err);
    return c.run();
  } catch (const std::exception& e) {
    err << "error: " << e.what() << "\n";
    return kExitError;
  }
}

}  // namespace gpulint::runtime_check
