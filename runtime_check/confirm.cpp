#include "runtime_check/confirm.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <set>
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

bool is_cpp_program(const fs::path& file) {
  std::string ext = file.extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".c++";
}

bool declares_project(const fs::path& cmakelists) {
  std::optional<std::string> text = read_text(cmakelists);
  if (!text) return false;
  for (const std::string& raw : split_lines(*text)) {
    std::string_view line = raw;
    line = line.substr(0, line.find('#'));  // a line comment (bracket comments are rare)
    std::size_t p = line.find_first_not_of(" \t");
    if (p == std::string_view::npos) continue;
    line.remove_prefix(p);
    if (line.size() < 7) continue;
    std::string word(line.substr(0, 7));
    for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (word != "project") continue;
    std::size_t q = line.find_first_not_of(" \t", 7);
    if (q != std::string_view::npos && line[q] == '(') return true;
  }
  return false;
}

std::optional<fs::path> find_project_root(const fs::path& file) {
  std::error_code ec;
  const fs::path start = fs::absolute(file, ec).lexically_normal().parent_path();
  // The nearest directory whose CMakeLists.txt calls project(), within the repository.
  for (fs::path dir = start; !dir.empty();) {
    if (fs::is_regular_file(dir / "CMakeLists.txt", ec) && declares_project(dir / "CMakeLists.txt"))
      return dir;
    if (fs::exists(dir / ".git", ec)) break;  // the repository's top: not above it
    fs::path up = dir.parent_path();
    if (up == dir) break;
    dir = up;
  }
  // No project() anywhere: the top of the chain of CMakeLists.txt from the nearest one up.
  std::optional<fs::path> found;
  for (fs::path dir = start; !dir.empty();) {
    bool has = fs::is_regular_file(dir / "CMakeLists.txt", ec);
    if (found && !has) break;
    if (has) found = dir;
    fs::path up = dir.parent_path();
    if (up == dir) break;
    dir = up;
  }
  return found;
}

bool copy_source_tree(const fs::path& from, const fs::path& to, std::vector<std::string>* skipped,
                      std::string* error) {
  std::error_code ec;
  fs::create_directories(to, ec);
  if (ec) {
    *error = fmt::format("cannot make {}: {}", to.string(), ec.message());
    return false;
  }
  fs::recursive_directory_iterator it(from, fs::directory_options::none, ec), end;
  if (ec) {
    *error = fmt::format("cannot read {}: {}", from.string(), ec.message());
    return false;
  }
  for (; it != end; it.increment(ec)) {
    if (ec) break;
    const fs::directory_entry& e = *it;
    fs::path rel = e.path().lexically_relative(from);
    fs::path dest = to / rel;
    std::error_code sec;
    if (e.is_symlink(sec)) {
      fs::copy_symlink(e.path(), dest, ec);
    } else if (e.is_directory(sec)) {
      if (e.path().filename() == ".git" || fs::exists(e.path() / "CMakeCache.txt", sec)) {
        if (e.path().filename() != ".git" && skipped) skipped->push_back(rel.string());
        it.disable_recursion_pending();
        continue;
      }
      fs::create_directory(dest, ec);
    } else if (e.is_regular_file(sec)) {
      if (e.path().filename() == ".git") continue;  // a worktree's .git file
      fs::copy_file(e.path(), dest, fs::copy_options::overwrite_existing, ec);
    }
    // Sockets, FIFOs and devices are not source: left out.
    if (ec) break;
  }
  if (ec) {
    *error = fmt::format("cannot copy {} to {}: {}", from.string(), to.string(), ec.message());
    return false;
  }
  return true;
}

bool write_file_in_copy(const fs::path& copy_root, const fs::path& rel, std::string_view bytes,
                        std::string* error) {
  fs::path normal = rel.lexically_normal();
  if (normal.empty() || normal.is_absolute() || *normal.begin() == "..") {
    *error = fmt::format("{} is not inside {}", rel.string(), copy_root.string());
    return false;
  }
  fs::path at = copy_root;
  std::error_code ec;
  for (auto part = normal.begin(); part != normal.end(); ++part) {
    at /= *part;
    if (!fs::is_symlink(fs::symlink_status(at, ec))) continue;
    if (std::next(part) != normal.end()) {
      *error = fmt::format("{} is a symbolic link in the copied tree: confirm does not write a fix "
                           "through it (it may lead into your own files)", at.string());
      return false;
    }
    fs::remove(at, ec);  // the file itself: a regular file replaces the link
    if (ec) {
      *error = fmt::format("cannot replace the symbolic link {}: {}", at.string(), ec.message());
      return false;
    }
  }
  return write_bytes(at, bytes, error);
}

namespace {

std::optional<uint32_t> location_offset(const SourceFile& src, const nlohmann::json& loc) {
  if (!loc.is_object()) return std::nullopt;
  auto row = loc.find("row"), col = loc.find("column");
  if (row == loc.end() || col == loc.end() || !row->is_number_integer() ||
      !col->is_number_integer())
    return std::nullopt;
  // 1-based row and code-point column (Ruff's json), SourceFile's LineCol is 0-based.
  auto row1 = row->get<int64_t>(), col1 = col->get<int64_t>();
  constexpr int64_t kMax = std::numeric_limits<uint32_t>::max();
  if (row1 < 1 || col1 < 1 || row1 > kMax || col1 > kMax) return std::nullopt;
  return src.offset_from_codepoint(
      LineCol{static_cast<uint32_t>(row1 - 1), static_cast<uint32_t>(col1 - 1)});
}

// `p` made absolute against the working directory and canonical: symbolic links resolved
// as far as the path exists, then lexically normal (weakly_canonical); the lexically normal
// absolute path when even that fails.
fs::path canonical_path(const fs::path& p) {
  std::error_code ec;
  fs::path abs = fs::absolute(p, ec);
  if (ec) abs = p;
  fs::path c = fs::weakly_canonical(abs, ec);
  return ec ? abs.lexically_normal() : c.lexically_normal();
}

// True when the last components of `path` are those of `rel` (a relative path).
bool ends_with_components(const fs::path& path, const fs::path& rel) {
  std::vector<fs::path> a(path.begin(), path.end()), b(rel.begin(), rel.end());
  if (b.empty() || b.size() >= a.size()) return false;
  return std::equal(b.rbegin(), b.rend(), a.rbegin());
}

}  // namespace

std::optional<std::vector<Diagnostic>> diagnostics_from_json(std::string_view json_text,
                                                             const SourceFile& src,
                                                             const fs::path& file,
                                                             const fs::path& root,
                                                             std::vector<std::string>* notes,
                                                             std::string* error) {
  using nlohmann::json;
  auto fail = [&](std::string m) -> std::optional<std::vector<Diagnostic>> {
    *error = std::move(m);
    return std::nullopt;
  };
  json doc = json::parse(json_text.begin(), json_text.end(), nullptr, false);
  if (doc.is_discarded()) return fail("not valid JSON");
  if (!doc.is_array())
    return fail("not a JSON array (expected the output of `gpulint check --output-format json`)");
  // Which filename of the report is `file`: the same canonical path; else, with `root`, a
  // report made in another checkout of the project: a filename ending in the file's path
  // inside the project.
  const fs::path want = canonical_path(file);
  fs::path inside;  // the file's path relative to the project's root; empty: none
  if (!root.empty()) {
    fs::path rel = want.lexically_relative(canonical_path(root));
    if (!rel.empty() && *rel.begin() != "..") inside = rel;
  }
  std::set<std::string> same, moved, others;
  for (const json& d : doc) {
    if (!d.is_object() || !d.contains("filename") || !d["filename"].is_string())
      return fail("an entry without a \"filename\" string");
    const std::string& name = d["filename"].get_ref<const std::string&>();
    if (canonical_path(name) == want) same.insert(name);
    else if (!inside.empty() && ends_with_components(fs::path(name).lexically_normal(), inside))
      moved.insert(name);
    else others.insert(name);
  }
  auto listed = [](const std::set<std::string>& names) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    return list;
  };
  std::set<std::string> chosen_names = same;
  if (same.empty() && moved.size() > 1)
    return fail(fmt::format("{} is not in the report, and several of its files end in {} "
                            "({}): give the report of this file only",
                            want.string(), inside.generic_string(), listed(moved)));
  if (same.empty() && moved.size() == 1) {
    chosen_names = moved;
    if (notes)
      notes->push_back(fmt::format("the report was made in another checkout: its {} is taken "
                                   "as {} ({} inside the project)",
                                   *moved.begin(), want.string(), inside.generic_string()));
  }
  if (chosen_names.empty()) {
    // Another file of the same name: a report made elsewhere, not "no findings".
    std::set<std::string> namesakes;
    for (const auto& n : others)
      if (fs::path(n).filename() == want.filename()) namesakes.insert(n);
    if (!namesakes.empty())
      return fail(fmt::format(
          "the report has no entry for {}, only for {} (another file, or a checkout where its "
          "path inside the project differs): make the report from this file "
          "(`gpulint check {} --output-format json`)",
          want.string(), listed(namesakes), file.filename().string()));
  }
  std::vector<Diagnostic> out;
  for (const json& d : doc) {
    if (!chosen_names.count(d["filename"].get<std::string>())) continue;
    Diagnostic diag;
    if (!d.contains("code") || !d["code"].is_string()) return fail("an entry without a \"code\"");
    diag.code = d["code"].get<std::string>();
    if (d.contains("message") && d["message"].is_string()) diag.message = d["message"].get<std::string>();
    std::optional<uint32_t> start = d.contains("location") ? location_offset(src, d["location"])
                                                           : std::nullopt;
    std::optional<uint32_t> end = d.contains("end_location")
                                      ? location_offset(src, d["end_location"])
                                      : start;
    if (!start || !end || *end < *start)
      return fail(fmt::format("the {} finding's location is not in {} (was the report made from "
                              "another version of the file?)",
                              diag.code, file.filename().string()));
    diag.start = *start;
    diag.end = *end;
    if (!find_rule(diag.code)) {
      if (notes)
        notes->push_back(fmt::format("{} in the diagnostics report is not a rule of this gpulint: "
                                     "left out",
                                     diag.code));
      continue;
    }
    if (d.contains("fix") && d["fix"].is_object()) {
      const json& f = d["fix"];
      Fix fix;
      std::string app = f.value("applicability", std::string(to_string(Applicability::Safe)));
      std::optional<Applicability> level = parse_applicability(app);
      if (!level)
        return fail(fmt::format("the {} finding's fix has applicability \"{}\"", diag.code, app));
      fix.applicability = *level;
      if (f.contains("message") && f["message"].is_string()) fix.message = f["message"].get<std::string>();
      if (f.contains("edits")) {
        if (!f["edits"].is_array()) return fail(fmt::format("the {} finding's fix edits are not an array", diag.code));
        for (const json& e : f["edits"]) {
          if (!e.is_object()) return fail("a fix edit is not an object");
          std::optional<uint32_t> es = e.contains("location") ? location_offset(src, e["location"])
                                                              : std::nullopt;
          std::optional<uint32_t> ee = e.contains("end_location")
                                           ? location_offset(src, e["end_location"])
                                           : std::nullopt;
          if (!es || !ee || *ee < *es)
            return fail(fmt::format("an edit of the {} fix lies outside {} (was the report made "
                                    "from another version of the file?)",
                                    diag.code, file.filename().string()));
          Edit edit;
          edit.start = *es;
          edit.end = *ee;
          if (e.contains("content") && e["content"].is_string()) edit.content = e["content"].get<std::string>();
          fix.edits.push_back(std::move(edit));
        }
      }
      diag.fix = std::move(fix);
    }
    out.push_back(std::move(diag));
  }
  std::sort(out.begin(), out.end(),
            [](const Diagnostic& a, const Diagnostic& b) { return a.start < b.start; });
  return out;
}

// --- the command -----------------------------------------------------------------------------

const std::vector<ConfirmOptionScope>& confirm_option_scopes() {
  using L = ConfirmOptionScope::Language;
  static const std::vector<ConfirmOptionScope> table = {
      {"--python", L::Python},      {"--warmup", L::Python},      {"--steps", L::Python},
      {"--loop-line", L::Python},   {"--sync", L::Python},        {"args", L::Python},
      {"--build", L::Cpp},          {"--run", L::Cpp},            {"--root", L::Cpp},
      {"--diagnostics", L::Cpp},    {"--build-path", L::Cpp},     {"--warmup-runs", L::Cpp},
      {"--build-timeout", L::Cpp}};
  return table;
}

CLI::App* add_confirm_subcommand(CLI::App& app, ConfirmOptions& o) {
  CLI::App* c = app.add_subcommand(
      "confirm",
      "Re-run a training script with and without each fix and measure what the fix is worth "
      "(exit 2 when a run fails)");
  c->add_option("script", o.script,
                "The training script (Python), or a C++ LibTorch program's .cpp file (with "
                "--build and --run)")
      ->required();
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
  c->add_option("--build", o.build_command,
                "C++: the command that builds the program, run with `sh -c` in the root of each "
                "variant's copy of the source tree");
  c->add_option("--run", o.run_command,
                "C++: the command that runs the program, run with `sh -c` in the root of each "
                "copy and timed as a whole run");
  c->add_option("--root", o.root,
                "C++: the source tree to copy per variant (default: the CMake project's top level: "
                "the nearest directory above the file whose CMakeLists.txt calls project())");
  c->add_option("--diagnostics", o.diagnostics_path,
                "C++: take the findings from this `gpulint check --output-format json` report "
                "instead of the C++ front end");
  c->add_option("-p,--build-path", o.build_dir,
                "C++: the build directory holding compile_commands.json, for the C++ front end");
  c->add_option("--warmup-runs", o.warmup_runs,
                "C++: untimed runs of each variant before the timed rounds")
      ->check(CLI::Range(0, 100))
      ->capture_default_str();
  c->add_option("--build-timeout", o.build_timeout_s,
                "C++: seconds one build may take before it is killed")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  c->callback([c, &o] {
    o.given.clear();
    for (const ConfirmOptionScope& scope : confirm_option_scopes())
      if (c->count(std::string(scope.name)) > 0) o.given.emplace_back(scope.name);
  });
  c->footer(
      "Examples:\n  gpulint confirm train.py -- --epochs 1 --batch-size 64\n"
      "  gpulint confirm src/train.cpp --build 'cmake -S . -B build && cmake --build build' \\\n"
      "      --run './build/train 200' [--diagnostics findings.json]\n");
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
  int prepare_cpp();    // the same for a C++ program
  int plan_variants(const FileReport& report,
                    const std::function<std::optional<std::string>()>& all_fixed);
  int set_up_cpp();     // C++: copies of the source tree, builds
  // --select checked and the rule options of the file's config, with every selected rule
  // enabled; nullopt after writing the error (unknown selector, malformed config).
  std::optional<FileSettings> static_check_settings();
  RunEntry run_one_cpp(std::size_t vi, int round, bool warmup);
  void finish_cpp();
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
  // C++ programs
  bool cpp_ = false;
  fs::path root_;
  fs::path file_rel_;
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
  if (int rc = cpp_ ? set_up_cpp() : set_up_temp(); rc != kExitOk) {
    if (tmp_) tmp_->remove();
    if (rep_.interrupted) {
      err_ << "gpulint confirm: interrupted: stopped the build, killed its processes and removed "
              "the temporary files\n";
      return kExitInterrupted;
    }
    return rc;
  }
  int rc = run_all();
  if (rep_.interrupted) {
    tmp_->remove();
    err_ << "gpulint confirm: interrupted: stopped the run, killed its processes and removed "
            "the temporary files\n";
    return kExitInterrupted;
  }
  (void)rc;
  if (cpp_) finish_cpp();
  else finish();
  tmp_->remove();
  out_ << render_table(rep_) << std::flush;
  int wrc = write_outputs();
  if (fatal_ || failed_ || wrc != kExitOk) return kExitError;
  return kExitOk;
}

std::optional<FileSettings> Confirm::static_check_settings() {
  for (const auto& sel : o_.select) {
    if (!selector_is_known(sel)) {
      err_ << unknown_selector_message("--select", sel);
      return std::nullopt;
    }
  }
  FileSettings settings;
  try {
    ConfigResolver resolver(cwd_, std::nullopt, CliOverrides{});
    settings.options = resolver.file_settings(script_abs_).options;
  } catch (const ConfigError& e) {
    err_ << "error: " << e.what() << "\n";
    return std::nullopt;
  }
  RuleSelection selection;
  selection.select = o_.select;  // empty: every rule
  settings.enabled = selection.enabled_codes();
  return settings;
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
  cpp_ = is_cpp_program(script_abs_);
  std::string ext = script_abs_.extension().string();
  for (const char* other : {".c", ".h", ".hpp", ".hh", ".cu", ".cuh"}) {
    if (ext == other) {
      err_ << fmt::format("error: {}: `gpulint confirm` runs Python scripts and C++ programs "
                          "given by a translation unit (.cpp, .cc, .cxx) with --build and --run\n",
                          o_.script);
      return kExitError;
    }
  }
  // An option of the other language is an error (confirm_option_scopes says which is which).
  using L = ConfirmOptionScope::Language;
  for (const ConfirmOptionScope& scope : confirm_option_scopes()) {
    if (scope.language == (cpp_ ? L::Cpp : L::Python)) continue;
    if (std::find(o_.given.begin(), o_.given.end(), scope.name) == o_.given.end()) continue;
    if (cpp_)
      err_ << fmt::format(
          "error: {}: {} for Python scripts; a C++ program runs as --run says and is timed "
          "as whole runs\n",
          o_.script,
          scope.name == "args" ? std::string("arguments after the file are")
                               : std::string(scope.name) + " is");
    else
      err_ << fmt::format("error: {} is for C++ programs (a .cpp file); {} is a Python script\n",
                          scope.name, o_.script);
    return kExitError;
  }
  if (cpp_) return prepare_cpp();
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
  // The static check: every rule (or --select), the rule options of the script's config.
  std::optional<FileSettings> checked = static_check_settings();
  if (!checked) return kExitError;
  FileSettings settings = std::move(*checked);
  FileReport report = analyze_python(*src_, settings);
  if (report.not_analysed) rep_.notes.push_back("the script was not analysed: " + *report.not_analysed);
  if (report.syntax_error)
    rep_.notes.push_back(fmt::format("the script has {} syntax error(s); findings may be missing",
                                     report.syntax_error->error_count));

  if (int rc = plan_variants(report, [&]() -> std::optional<std::string> {
        FixResult all = fix_source(*src_, report, true, [&settings](const SourceFile& f) {
          return analyze_python(f, settings);
        });
        if (!all.changed || all.error) return std::nullopt;
        return all.text;
      });
      rc != kExitOk || planned_.size() <= 1)
    return rc;

  // The loop the harness times: the DataLoader's (default), or a loop header line.
  if (o_.loop_line > 0) {
    if (static_cast<std::size_t>(o_.loop_line) > src_->line_count()) {
      err_ << fmt::format("error: --loop-line {}: {} has {} lines\n", o_.loop_line, o_.script,
                          src_->line_count());
      return kExitError;
    }
    loop_candidate_ = static_cast<uint32_t>(o_.loop_line);
    use_loop_line_ = true;
  } else if (loop_candidate_ && src_->text().find("DataLoader") == std::string_view::npos) {
    use_loop_line_ = true;
  }
  return kExitOk;
}

int Confirm::plan_variants(const FileReport& report,
                           const std::function<std::optional<std::string>()>& all_fixed) {
  std::string diff_name = cpp_ ? file_rel_.generic_string() : script_abs_.filename().string();
  std::string_view original = src_->text();
  uint32_t original_errors = cpp_ ? 0 : python_syntax_error_count(original);
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
      } else if (!cpp_ && python_syntax_error_count(*text) > original_errors) {
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
    if (!cpp_ && !loop_candidate_)
      loop_candidate_ = enclosing_loop_line(original, src_->line_of(d.start));
  }
  if (planned_.size() > 1) {
    if (std::optional<std::string> all = all_fixed(); all && *all != original) {
      auto same = std::find_if(planned_.begin() + 1, planned_.end(),
                               [&](const Planned& p) { return p.text == *all; });
      if (same != planned_.end()) same->all_fixed = true;
      else planned_.push_back(Planned{*all, {}, true});
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
      v.description = cpp_ ? "the program as it is" : "the script as it is";
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
      v.diff = unified_diff(src_->text(), p.text, "a/" + diff_name, "b/" + diff_name);
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
  return kExitOk;

}

int Confirm::prepare_cpp() {
  rep_.language = "cpp";
  rep_.build_command = o_.build_command;
  rep_.run_command = o_.run_command;
  rep_.warmup_runs = o_.warmup_runs;
  rep_.build_timeout_s = o_.build_timeout_s;
  rep_.warmup = rep_.steps = 0;  // whole runs: the harness's step counts do not apply
  if (o_.build_command.empty() || o_.run_command.empty()) {
    err_ << fmt::format("error: {}: a C++ program needs --build 'CMD' (how to build it) and "
                        "--run 'CMD' (how to run it), both run with `sh -c` in the root of a "
                        "copy of its source tree\n",
                        o_.script);
    return kExitError;
  }
  if (o_.warmup_runs < 0 || !(o_.build_timeout_s > 0)) {
    err_ << "error: --warmup-runs must be at least 0, --build-timeout positive\n";
    return kExitError;
  }
  LoadError le;
  src_ = SourceFile::load(script_abs_.string(), &le);
  if (!src_) {
    err_ << fmt::format("error: {}: {}\n", o_.script, le.message);
    return kExitError;
  }
  std::error_code ec;
  if (!o_.root.empty()) {
    root_ = fs::absolute(o_.root, ec).lexically_normal();
    if (!fs::is_directory(root_, ec)) {
      err_ << fmt::format("error: --root {}: not a directory\n", o_.root);
      return kExitError;
    }
  } else if (std::optional<fs::path> r = find_project_root(script_abs_)) {
    root_ = *r;
  } else {
    err_ << fmt::format("error: {}: no CMakeLists.txt in its directory or above: name the source "
                        "tree to copy with --root DIR\n",
                        o_.script);
    return kExitError;
  }
  if (!root_.has_filename() && root_ != root_.root_path()) root_ = root_.parent_path();  // "dir/"
  file_rel_ = script_abs_.lexically_relative(root_);
  if (file_rel_.empty() || *file_rel_.begin() == "..") {
    err_ << fmt::format("error: {} is not inside --root {}\n", o_.script, root_.string());
    return kExitError;
  }
  rep_.root = root_.string();
  std::optional<FileSettings> checked = static_check_settings();
  if (!checked) return kExitError;
  FileSettings settings = std::move(*checked);

  FileReport report;
  report.language = Language::Cpp;
  std::function<FileReport(const SourceFile&, const FileSettings&)> analyze;
  if (!o_.diagnostics_path.empty()) {
    std::optional<std::string> text = read_text(o_.diagnostics_path);
    if (!text) {
      err_ << fmt::format("error: --diagnostics {}: cannot read it\n", o_.diagnostics_path);
      return kExitError;
    }
    std::string error;
    std::optional<std::vector<Diagnostic>> diags =
        diagnostics_from_json(*text, *src_, script_abs_, root_, &rep_.notes, &error);
    if (!diags) {
      err_ << fmt::format("error: --diagnostics {}: {}\n", o_.diagnostics_path, error);
      return kExitError;
    }
    for (Diagnostic& d : *diags)
      if (settings.enabled.count(d.code)) report.diagnostics.push_back(std::move(d));
    rep_.findings_source = "--diagnostics " + o_.diagnostics_path;
  } else if (o_.cpp_front_end) {
    std::string error;
    analyze = o_.cpp_front_end(o_.build_dir, &error);
    if (!analyze) {
      err_ << "error: " << error << "\n";
      return kExitError;
    }
    report = analyze(*src_, settings);
    if (report.error) {
      err_ << fmt::format("error: {}: {}\n", o_.script, *report.error);
      return kExitError;
    }
    if (report.syntax_error)
      rep_.notes.push_back(fmt::format(
          "clang reported {} error(s) in {} ({}); findings may be missing",
          report.syntax_error->error_count, o_.script,
          report.syntax_error->message.empty() ? "syntax" : report.syntax_error->message));
    rep_.findings_source = "the C++ front end (Clang)";
  } else {
    err_ << fmt::format(
        "error: {}: this gpulint was built without the C++ front end (GPULINT_CPP=OFF, as "
        "`make dist` builds it): lint the file where a full gpulint is, `gpulint check {} "
        "--output-format json > findings.json`, and give that report here with --diagnostics "
        "findings.json\n",
        o_.script, file_rel_.generic_string());
    return kExitError;
  }
  return plan_variants(report, [&]() -> std::optional<std::string> {
    if (analyze) {
      FixResult all = fix_source(*src_, report, true, [&](const SourceFile& f) {
        return analyze(f, settings);
      });
      if (!all.changed || all.error) return std::nullopt;
      return all.text;
    }
    // From a report: one round of every fix that does not overlap another.
    return apply_fixes_once(src_->text(), report.diagnostics, true, nullptr);
  });
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

int Confirm::set_up_cpp() {
  std::string error;
  tmp_ = TempDir::create("gpulint-confirm-", &error);
  if (!tmp_) {
    err_ << "error: " << error << "\n";
    return kExitError;
  }
  fs::path tmp = tmp_->path();
  std::error_code ec;
  fs::create_directories(tmp / "out", ec);
  if (ec) {
    err_ << "error: cannot make directories under " << tmp.string() << ": " << ec.message() << "\n";
    return kExitError;
  }
  for (char** e = environ; e && *e; ++e) base_env_.emplace_back(*e);
  sampler_ = std::make_unique<GpuSampler>(o_.nvml_library);
  rep_.nvml = sampler_->available();
  rep_.gpu_status = sampler_->status();
  rep_.gpus = sampler_->devices();
  rep_.sample_interval_s = sampler_->interval_s();

  for (std::size_t i = 0; i < planned_.size(); ++i) {
    fs::path dir = tmp / (i == 0 ? std::string("baseline") : fmt::format("v{}", i));
    std::vector<std::string> skipped;
    if (!copy_source_tree(root_, dir, &skipped, &error) ||
        !write_file_in_copy(dir, file_rel_, src_->bytes_for_writing(planned_[i].text), &error)) {
      err_ << "error: " << error << "\n";
      return kExitError;
    }
    if (i == 0) rep_.not_copied = std::move(skipped);
    variant_paths_.push_back(dir);
  }
  if (!rep_.not_copied.empty()) {
    std::string list;
    for (const auto& d : rep_.not_copied) list += (list.empty() ? "" : ", ") + d;
    rep_.notes.push_back(fmt::format("not copied into the variants: {} (CMake build tree{})", list,
                                     rep_.not_copied.size() == 1 ? "" : "s"));
  }

  // Every copy is built before the first run: a fix that breaks the build shows at once.
  for (std::size_t i = 0; i < planned_.size(); ++i) {
    VariantEntry& v = rep_.variants[i];
    if (interrupt_requested()) {
      rep_.interrupted = true;
      return kExitInterrupted;
    }
    std::string stem = i == 0 ? std::string("baseline") : fmt::format("v{}", i);
    fs::path log = fs::path(tmp) / "out" / ("build-" + stem + ".log");
    ProcessSpec spec;
    spec.argv = {"/bin/sh", "-c", o_.build_command};
    spec.env = base_env_;
    spec.cwd = variant_paths_[i].string();
    spec.stdout_path = log.string();
    spec.stderr_to_stdout = true;
    spec.timeout_s = o_.build_timeout_s;
    spec.kill_grace_s = o_.kill_grace_s;
    progress(fmt::format("building {} ({}/{}) ...", v.name, i + 1, planned_.size()));
    ProcessResult p = run_process(spec);
    if (p.interrupted || interrupt_requested()) {
      rep_.interrupted = true;
      return kExitInterrupted;
    }
    v.build_log_tail = file_tail(log.string(), 40, 8000);
    if (p.ok()) {
      v.build_s = p.wall_s;
      progress(fmt::format("  built in {:.1f} s", p.wall_s));
      continue;
    }
    std::string what = !p.started ? p.error
                       : p.timed_out
                           ? fmt::format("did not finish within --build-timeout {:.0f} s", o_.build_timeout_s)
                           : p.describe();
    std::string text = i == 0
                           ? fmt::format("the build failed ({}): `{}` in a copy of {}", what,
                                         o_.build_command, root_.string())
                           : fmt::format("the {} variant does not build ({}): its fix breaks the "
                                         "build",
                                         v.name, what);
    err_ << "error: " << text << "\n";
    if (!v.build_log_tail.empty())
      err_ << "  the build's output ends with:\n" << indent_block(v.build_log_tail);
    err_ << std::flush;
    rep_.errors.push_back(text);
    if (i == 0) return kExitError;  // nothing to compare against
    failed_ = true;
    v.failure = text;
  }
  return kExitOk;
}

RunEntry Confirm::run_one_cpp(std::size_t vi, int round, bool warmup) {
  VariantEntry& v = rep_.variants[vi];
  RunEntry e;
  e.round = warmup ? 0 : round;
  e.warmup = warmup;
  fs::path out_dir = fs::path(tmp_->path()) / "out";
  std::string stem = fmt::format("{}-{}{}", vi == 0 ? std::string("baseline") : fmt::format("v{}", vi),
                                 warmup ? "w" : "r", round);
  fs::path err_path = out_dir / (stem + ".stderr");
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", o_.run_command};
  spec.env = base_env_;
  spec.cwd = variant_paths_[vi].string();
  spec.stdout_path = (out_dir / (stem + ".stdout")).string();
  spec.stderr_path = err_path.string();
  spec.timeout_s = o_.timeout_s;
  spec.kill_grace_s = o_.kill_grace_s;

  ++runs_done_;
  progress(fmt::format("[{}/{}] {} ({}) ...", runs_done_, runs_total_, v.name,
                       warmup ? fmt::format("warm-up {}", round) : fmt::format("round {}", round)));
  e.process = run_process(
      spec, [this](pid_t pid) { sampler_->start(pid); },
      [this, &e] { e.samples = sampler_->stop(); });
  e.stderr_tail = file_tail(err_path.string());
  if (e.stderr_tail.empty()) e.stderr_tail = file_tail(spec.stdout_path);
  const ProcessResult& p = e.process;
  std::string who = vi == 0 ? std::string("the program") : fmt::format("the {} variant", v.name);
  if (!p.started) {
    e.status = "error";
    e.message = fmt::format("cannot run `{}`: {}", o_.run_command, p.error);
  } else if (p.interrupted) {
    e.status = "interrupted";
    e.message = "interrupted";
  } else if (p.timed_out) {
    e.status = "timed out";
    e.message = fmt::format("{} did not finish within --timeout {:.0f} s and was killed", who,
                            o_.timeout_s);
  } else if (p.exit_code != 0 || p.term_signal != 0) {
    e.status = "crashed";
    e.message = fmt::format("{} failed ({}): `{}`", who, p.describe(), o_.run_command);
  } else {
    e.ok = true;
    e.status = "ok";
    e.whole = whole_run_measure(p.wall_s, p.max_rss_bytes, e.samples, sampler_->primary_device());
  }
  if (p.leftover > 0) {
    std::string note = fmt::format("{} ({}) left {} process{} behind: killed{}", v.name,
                                   warmup ? "warm-up" : fmt::format("round {}", round), p.leftover,
                                   p.leftover == 1 ? "" : "es", p.sigkill_needed ? " with SIGKILL" : "");
    progress("  " + note);
    rep_.notes.push_back(note);
  }
  if (e.ok) {
    std::string extra;
    if (e.whole.peak_rss_bytes) extra += ", peak RSS " + format_bytes(*e.whole.peak_rss_bytes);
    if (e.whole.peak_gpu_bytes) extra += ", GPU memory " + format_bytes(*e.whole.peak_gpu_bytes);
    if (!e.whole.gpu_util.empty())
      extra += fmt::format(", GPU {:.0f}%", median(e.whole.gpu_util));
    progress(fmt::format("  {}{}{}", format_duration(p.wall_s), extra,
                         warmup ? " (untimed warm-up)" : ""));
  } else if (e.status != "interrupted") {
    progress(fmt::format("  {}: {}", e.status, e.message));
  }
  return e;
}

void Confirm::finish_cpp() {
  bool any_gpu_memory = false, any_attributed = false;
  std::set<unsigned> used;  // NVML indices of the GPUs the program's processes used memory on
  for (VariantEntry& v : rep_.variants) {
    std::vector<WholeRunMeasure> measures;
    for (const RunEntry& e : v.runs) {
      for (const GpuSample& g : e.samples) {
        if (!g.process_memory) continue;
        any_attributed = true;
        if (*g.process_memory > 0) {
          any_gpu_memory = true;
          used.insert(g.device);
        }
      }
      if (e.ok && !e.warmup) measures.push_back(e.whole);
    }
    v.whole = whole_run_stats(measures);
  }
  // Where the program ran: NVML's per-process memory says whether it touched a GPU.
  std::string judge_device;
  if (!rep_.nvml) {
    // No NVML library: almost always a machine without an NVIDIA GPU, but not a proof of one.
    rep_.device = "unknown (no NVML)";
    judge_device = "unknown";
    rep_.notes.push_back("NVML is not available, so whether the program used a GPU is not known; "
                         "fixes that only matter on a GPU (DL002, DEV*) are inconclusive");
  } else if (any_gpu_memory) {
    rep_.device = "cuda";
    judge_device = "cuda";
    rep_.gpu_name = gpu_names(used, rep_.gpus);
  } else if (any_attributed) {
    rep_.device = "cpu";
    judge_device = "cpu";
    rep_.notes.push_back("NVML sees a GPU but the program's processes used none: it ran on the "
                         "CPU (a LibTorch without CUDA?)");
  } else {
    rep_.device = "gpu present (use not attributed)";
    judge_device = "unknown";
    rep_.notes.push_back("NVML cannot attribute GPU memory to the program's processes (another "
                         "PID namespace?): whether it used the GPU is not known; fixes that only "
                         "matter on a GPU (DL002, DEV*) are inconclusive");
  }
  rep_.notes.push_back(fmt::format(
      "whole-run timing: each timed run is the wall time of `{}` from start to end (start-up, "
      "data loading and training together), after {} untimed warm-up run{} per variant; peak "
      "RSS is wait4's ru_maxrss of the run command (the largest process it waited for; Linux "
      "keeps the high-water mark across exec, so gpulint's own RSS at the fork is its floor)",
      o_.run_command, o_.warmup_runs, o_.warmup_runs == 1 ? "" : "s"));
  const VariantEntry& base = rep_.variants.front();
  if (base.whole.runs == 0) return;
  for (std::size_t vi = 1; vi < rep_.variants.size(); ++vi) {
    VariantEntry& v = rep_.variants[vi];
    if (v.whole.runs == 0) continue;
    v.speed = judge_whole_run_speed(base.whole, v.whole);
    for (std::size_t fi : v.findings)
      rep_.findings[fi].judgement =
          judge_whole_run_finding(rep_.findings[fi].code, base.whole, v.whole, judge_device);
  }
}

int Confirm::run_all() {
  int first = cpp_ ? 1 - o_.warmup_runs : 1;  // passes <= 0: C++ warm-up runs
  runs_total_ = planned_.size() * static_cast<std::size_t>(o_.repeats - first + 1);
  if (cpp_) {
    progress(fmt::format(
        "gpulint confirm {} (C++): {} finding(s), {} variant(s) besides the baseline: {} "
        "warm-up run(s) and {} timed round(s) each, {} runs of `{}` (whole-run timing)",
        o_.script, rep_.findings.size(), planned_.size() - 1, o_.warmup_runs, o_.repeats,
        runs_total_, o_.run_command));
  } else {
    progress(fmt::format(
        "gpulint confirm {}: {} finding(s), {} variant(s) besides the baseline, {} round(s): {} "
        "runs of {} + {} steps",
        o_.script, rep_.findings.size(), planned_.size() - 1, o_.repeats, runs_total_, o_.warmup,
        o_.steps));
  }
  progress("GPU sampling: " + rep_.gpu_status);
  if (use_loop_line_ && loop_candidate_)
    progress(fmt::format("timing the loop on line {} (no DataLoader drives it)", *loop_candidate_));
  bool fallback_tried = false;
  for (int pass = first; pass <= o_.repeats && !fatal_; ++pass) {
    bool warmup = pass <= 0;
    int round = warmup ? pass + o_.warmup_runs : pass;
    for (std::size_t vi = 0; vi < rep_.variants.size() && !fatal_; ++vi) {
      VariantEntry& v = rep_.variants[vi];
      if (!v.failure.empty()) continue;
      if (interrupt_requested()) {
        rep_.interrupted = true;
        return kExitInterrupted;
      }
      RunEntry e = cpp_ ? run_one_cpp(vi, round, warmup) : run_one(vi, round);
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
      v.runs.push_back(std::move(e));
      const RunEntry& done = v.runs.back();
      if (done.ok) continue;
      const std::string &message = done.message, &tail = done.stderr_tail, &status = done.status;
      failed_ = true;
      std::string when = warmup ? std::string("warm-up run") : fmt::format("round {}", round);
      std::string text = fmt::format("{} ({}): {}", v.name, when, message);
      if (!tail.empty() && status != "ok") text += "\n" + indent_block(tail);
      rep_.errors.push_back(fmt::format("{} ({}): {}", v.name, when, message));
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
