#include "analyzer/audit.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <fstream>
#include <iostream>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analyzer/audit_report.h"
#include "analyzer/config.h"
#include "analyzer/cpp_paths.h"
#include "analyzer/discovery.h"
#include "analyzer/driver.h"
#include "analyzer/fixer.h"
#include "analyzer/glob.h"
#include "analyzer/notebook.h"
#include "analyzer/output.h"
#include "analyzer/rule.h"

namespace fs = std::filesystem;

namespace gpulint::audit {

namespace {

constexpr int kExitOk = 0;
constexpr int kExitError = 2;

// The fix alone as a small diff: edits on the same or adjacent lines form one hunk, headed
// "@@ LOCATION @@" (`where(offset)` names the hunk's first line), then the touched lines before
// ("-") and after ("+") the fix.
std::string fix_diff(const SourceFile& src, const Fix& fix,
                     const std::function<std::string(uint32_t)>& where) {
  if (fix.edits.empty()) return "";
  std::string_view text = src.text();
  std::vector<Edit> edits = fix.edits;
  std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.start < b.start; });
  for (std::size_t i = 0; i < edits.size(); ++i) {
    if (edits[i].start > edits[i].end || edits[i].end > text.size()) return "";
    if (i && edits[i].start < edits[i - 1].end) return "";  // overlapping edits: not shown
  }
  auto emit = [](std::string& out, std::string_view block, char sign) {
    std::size_t pos = 0;
    while (pos <= block.size()) {
      std::size_t nl = block.find('\n', pos);
      std::string_view line = block.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      out.push_back(sign);
      out.append(line);
      out.push_back('\n');
      if (nl == std::string_view::npos) break;
      pos = nl + 1;
    }
  };
  std::string out;
  std::size_t i = 0;
  while (i < edits.size()) {
    uint32_t first_line = src.line_of(edits[i].start);
    uint32_t ws = src.line_start(first_line);
    std::size_t j = i;
    uint32_t last_line = src.line_of(edits[i].end);
    // Take the following edits that start on this hunk's last line or the next one.
    while (j + 1 < edits.size() && src.line_of(edits[j + 1].start) <= last_line + 1) {
      ++j;
      last_line = std::max(last_line, src.line_of(edits[j].end));
    }
    std::size_t we = text.find('\n', std::max<uint32_t>(edits[j].end, ws));
    if (we == std::string_view::npos) we = text.size();
    // An insertion at a line start ("import os\n") touches no old line.
    bool pure_insert_at_line_start = i == j && edits[i].start == edits[i].end && edits[i].start == ws &&
                                     !edits[i].content.empty() && edits[i].content.back() == '\n';
    std::string before, after;
    if (pure_insert_at_line_start) {
      after = edits[i].content.substr(0, edits[i].content.size() - 1);
    } else {
      before = std::string(text.substr(ws, we - ws));
      after = before;
      for (std::size_t k = j + 1; k-- > i;)
        after.replace(edits[k].start - ws, edits[k].end - edits[k].start, edits[k].content);
    }
    out += "@@ " + where(ws) + " @@\n";
    if (!pure_insert_at_line_start) emit(out, before, '-');
    emit(out, after, '+');
    i = j + 1;
  }
  return out;
}

std::string group_digits(uint64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<std::size_t>(i), ",");
  return s;
}

std::string plural(std::size_t n, std::string_view word) {
  return fmt::format("{} {}{}", group_digits(n), word, n == 1 ? "" : "s");
}

std::string parent_dir(const std::string& path) {
  fs::path p(path);
  std::string d = p.parent_path().generic_string();
  return d.empty() ? "." : d;
}

}  // namespace

std::string measured_cost(std::string_view code) {
  const Rule* r = find_rule(code);
  if (!r) return "";
  std::string_view doc = r->info().doc;
  constexpr std::string_view kHeading = "## Measured cost";
  std::size_t at = doc.find(kHeading);
  if (at == std::string_view::npos) return "";
  std::string_view rest = doc.substr(at + kHeading.size());
  std::size_t next = rest.find("\n## ");
  if (next != std::string_view::npos) rest = rest.substr(0, next);
  // One paragraph: lines joined with spaces, surrounding blanks dropped.
  std::string out;
  std::size_t pos = 0;
  while (pos < rest.size()) {
    std::size_t nl = rest.find('\n', pos);
    std::string_view line = rest.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    std::size_t b = line.find_first_not_of(" \t");
    if (b != std::string_view::npos) {
      if (!out.empty()) out.push_back(' ');
      out.append(line.substr(b));
    }
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  return out;
}


std::vector<fs::path> compile_commands_files(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot read", file.string()));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error(fmt::format("{}: invalid JSON at byte {}", file.string(), e.byte));
  }
  if (!j.is_array())
    throw std::runtime_error(fmt::format("{}: expected a JSON array of compile commands", file.string()));
  std::set<fs::path> out;
  fs::path base = fs::absolute(file).parent_path();
  for (std::size_t i = 0; i < j.size(); ++i) {
    const auto& e = j[i];
    if (!e.is_object() || !e.contains("file") || !e["file"].is_string())
      throw std::runtime_error(
          fmt::format("{}: entry {}: expected an object with a \"file\" string", file.string(), i));
    fs::path dir = base;
    if (e.contains("directory")) {
      if (!e["directory"].is_string())
        throw std::runtime_error(
            fmt::format("{}: entry {}: \"directory\" must be a string", file.string(), i));
      dir = absolute_normal(e["directory"].get<std::string>(), base);
    }
    fs::path f = absolute_normal(e["file"].get<std::string>(), dir);
    std::error_code ec;
    if (fs::is_regular_file(f, ec)) out.insert(f);
  }
  return {out.begin(), out.end()};
}

AuditCounts count_findings(const AuditResult& r) {
  AuditCounts c;
  std::map<std::string, std::size_t> files, dirs;
  for (const Finding& f : r.findings) {
    ++c.by_rule[f.code];
    ++c.by_severity[std::string(to_string(f.severity))];
    ++files[f.path];
    ++dirs[parent_dir(f.path)];
  }
  auto ranked = [](const std::map<std::string, std::size_t>& m) {
    std::vector<std::pair<std::size_t, std::string>> v;
    for (const auto& [k, n] : m) v.emplace_back(n, k);
    std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    return v;
  };
  c.files = ranked(files);
  c.directories = ranked(dirs);
  return c;
}

std::string progress_line(std::size_t done, std::size_t total, double seconds, int width) {
  double frac = total ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
  int filled = static_cast<int>(frac * width + 1e-9);
  filled = std::clamp(filled, 0, width);
  double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0.0;
  return fmt::format("[{}{}] {}/{} files  {} files/s  {:.1f} s", std::string(filled, '#'),
                     std::string(width - filled, ' '), group_digits(done), group_digits(total),
                     group_digits(static_cast<uint64_t>(rate + 0.5)), seconds);
}

AuditResult run_audit(const AuditOptions& o, const fs::path& cwd, bool progress,
                      std::ostream& progress_out) {
  auto t0 = std::chrono::steady_clock::now();
  AuditResult r;
  r.roots = o.paths.empty() ? std::vector<std::string>{"."} : o.paths;

  CliOverrides cli{split_selectors(o.select), split_selectors(o.extend_select),
                   split_selectors(o.ignore)};
  std::optional<fs::path> config;
  if (!o.config.empty()) config = fs::path(o.config);
  ConfigResolver resolver(cwd, config, cli);
  DiscoveryOptions dopt;
  dopt.cwd = cwd;
  dopt.filter_for_dir = [&resolver](const fs::path& dir) -> const ExcludeFilter& {
    return resolver.filter_for_dir(dir);
  };
  for (auto exts : {kCppSourceExtensions, kCppHeaderExtensions})
    for (std::string_view e : exts) dopt.extensions[std::string(e)] = FileKind::Cpp;
  DiscoveryResult found = discover_files(r.roots, dopt);
  if (!found.errors.empty()) throw std::runtime_error(found.errors.front());
  for (const auto& w : found.warnings) r.errors.push_back(w);

  // C++: the translation units of compile_commands.json when there is one (-p DIR, or in a
  // root directory or its build/) and the headers found under the roots (the database has no
  // entry for them: their commands are interpolated), else the C++ files found by extension.
  std::optional<fs::path> cc;
  std::vector<fs::path> candidates;
  if (!o.build_path.empty()) {
    candidates.push_back(absolute_normal(o.build_path, cwd) / "compile_commands.json");
    if (!fs::exists(candidates.back()))
      throw std::runtime_error(fmt::format("-p {}: no compile_commands.json there", o.build_path));
  }
  for (const auto& root : r.roots) {
    fs::path abs = absolute_normal(root, cwd);
    std::error_code ec;
    if (!fs::is_directory(abs, ec)) continue;
    candidates.push_back(abs / "compile_commands.json");
    candidates.push_back(abs / "build" / "compile_commands.json");
  }
  for (const auto& c : candidates) {
    std::error_code ec;
    if (fs::is_regular_file(c, ec)) {
      cc = c;
      break;
    }
  }
  std::vector<fs::path> cpp_files;
  if (cc) {
    r.cpp_source = fmt::format("compile_commands.json ({})", display_path(cc->string(), cwd));
    for (const fs::path& f : compile_commands_files(*cc)) {
      // Only translation units under an audited path.
      for (const auto& root : r.roots) {
        std::string rs = absolute_normal(root, cwd).generic_string();
        std::string fsd = f.generic_string();
        if (fsd == rs || (fsd.size() > rs.size() && fsd.compare(0, rs.size(), rs) == 0 &&
                          (rs.back() == '/' || fsd[rs.size()] == '/'))) {
          cpp_files.push_back(f);
          break;
        }
      }
    }
  } else {
    r.cpp_source = "file extensions";
  }

  std::function<FileReport(const SourceFile&, const FileSettings&)> cpp_analyze;
  if (o.cpp_front_end) cpp_analyze = o.cpp_front_end(cc);
  std::vector<FileTask> tasks;
  std::size_t python_like = 0;
  for (const DiscoveredFile& f : found.files) python_like += f.kind != FileKind::Cpp;
  tasks.reserve(python_like);
  auto add_task = [&](const std::string& path, const fs::path& abs) {
    FileTask t;
    t.path = abs.string();  // I/O through the absolute path: `cwd` need not be the process's
    t.display = display_path(path, cwd);
    t.settings = resolver.file_settings(abs);
    tasks.push_back(std::move(t));
  };
  const std::set<fs::path> in_database(cpp_files.begin(), cpp_files.end());
  for (const DiscoveredFile& f : found.files) {
    if (f.kind == FileKind::Cpp) {
      if (!cc || (is_cpp_header_path(f.absolute) && !in_database.count(f.absolute))) cpp_files.push_back(f.absolute);
      continue;
    }
    add_task(f.path, f.absolute);
  }
  // The file list is not needed any more: only the tasks (and findings) live on.
  found.files = {};
  r.cpp_files = cpp_files.size();
  if (!cpp_files.empty()) {
    if (cpp_analyze) {
      for (const fs::path& f : cpp_files) add_task(display_path(f.string(), cwd), f);
      r.cpp_analysed = cpp_files.size();
    } else {
      r.cpp_note = "C++ files found, not analysed: this build has no C++ front end";
    }
  }

  std::atomic<uint64_t> lines{0}, bytes{0};
  DriverOptions drv;
  drv.threads = o.threads;
  r.threads = o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  drv.analyze = [&](const SourceFile& s, const FileSettings& settings) -> FileReport {
    bytes += s.text().size();
    // Lines as `wc -l` counts them, plus an unterminated last line.
    std::string_view text = s.text();
    if (!is_notebook_path(s.path()) && !text.empty())
      lines += s.line_count() - (text.back() == '\n' ? 1 : 0);
    if (cpp_analyze && is_cpp_file_path(s.path())) return cpp_analyze(s, settings);
    return analyze_python(s, settings);
  };

  std::mutex mu;
  std::atomic<std::size_t> done{0};
  auto on_outcome = [&](std::size_t, FileOutcome&& out) {
    std::vector<Finding> local;
    if (out.source) {
      const SourceFile& src = *out.source;
      const Notebook* nb = out.notebook.get();
      for (const Diagnostic& d : out.diagnostics) {
        Finding f;
        f.path = out.display;
        uint32_t start = std::min<uint32_t>(d.start, static_cast<uint32_t>(src.text().size()));
        if (nb) {
          CellPosition p = nb->cell_position(src, start);
          f.cell = p.cell;
          f.line = p.line + 1;
          f.column = p.column + 1;
        } else {
          LineCol lc = src.codepoint_position(start);
          f.line = lc.line + 1;
          f.column = lc.column + 1;
        }
        f.code = d.code;
        f.message = d.message;
        f.severity = d.severity;
        std::string_view line = src.line_text(src.line_of(start));
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        f.snippet = std::string(line);
        if (d.fix) {
          f.fix_message = d.fix->message;
          f.fix_applicability = std::string(to_string(d.fix->applicability));
          f.fix_diff = fix_diff(src, *d.fix, [&](uint32_t off) {
            if (nb) {
              CellPosition p = nb->cell_position(src, off);
              return fmt::format("cell {} line {}", p.cell, p.line + 1);
            }
            return fmt::format("line {}", src.line_of(off) + 1);
          });
        }
        local.push_back(std::move(f));
      }
    }
    {
      std::lock_guard<std::mutex> lock(mu);
      if (out.error) {
        std::string e = *out.error;
        if (e.rfind("error: ", 0) == 0) e = e.substr(7);
        r.errors.push_back(std::move(e));
      } else if (out.notebook) {
        ++r.notebooks;
        r.lines += out.notebook->cell_lines();
      } else if (!is_cpp_file_path(out.path)) {
        ++r.python_files;
      }
      if (out.syntax_error) ++r.syntax_errors;
      for (auto& f : local) r.findings.push_back(std::move(f));
    }
    ++done;
  };

  // The progress bar: a ticker thread redraws one line ten times a second.
  std::mutex tick_mu;
  std::condition_variable tick_cv;
  bool finished = false;
  std::thread ticker;
  if (progress) {
    ticker = std::thread([&] {
      std::unique_lock<std::mutex> lock(tick_mu);
      do {
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        progress_out << "\r" << progress_line(done.load(), tasks.size(), s) << "\033[K" << std::flush;
      } while (!tick_cv.wait_for(lock, std::chrono::milliseconds(100), [&] { return finished; }));
    });
  }
  for_each_outcome(tasks, drv, on_outcome);
  if (progress) {
    {
      std::lock_guard<std::mutex> lock(tick_mu);
      finished = true;
    }
    tick_cv.notify_all();
    ticker.join();
    progress_out << "\r\033[K" << std::flush;  // the summary replaces the bar
  }

  r.lines += lines.load();
  r.bytes = bytes.load();
  std::sort(r.findings.begin(), r.findings.end(), [](const Finding& a, const Finding& b) {
    return std::tie(a.path, a.cell, a.line, a.column, a.code) <
           std::tie(b.path, b.cell, b.line, b.column, b.code);
  });
  std::sort(r.errors.begin(), r.errors.end());
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

void write_summary(std::ostream& out, const AuditResult& r, std::size_t top) {
  AuditCounts c = count_findings(r);
  std::vector<std::string> kinds;
  kinds.push_back(fmt::format("{} Python", group_digits(r.python_files)));
  kinds.push_back(plural(r.notebooks, "notebook"));
  if (r.cpp_files) kinds.push_back(fmt::format("{} C++", group_digits(r.cpp_files)));
  std::size_t analysed = r.python_files + r.notebooks + r.cpp_analysed;
  double lps = r.seconds > 0 ? static_cast<double>(r.lines) / r.seconds : 0;
  out << fmt::format("gpulint audit: {} ({}), {} in {:.2f} s ({} lines/s, {})\n",
                     plural(analysed, "file"), fmt::join(kinds, ", "), plural(r.lines, "line"),
                     r.seconds, group_digits(static_cast<uint64_t>(lps)), plural(r.threads, "thread"));
  if (!r.cpp_note.empty())
    out << fmt::format("C++: {} ({}): {}\n", plural(r.cpp_files, "file"), r.cpp_source, r.cpp_note);
  if (!r.errors.empty())
    out << fmt::format("Not read: {} (listed on stderr)\n", plural(r.errors.size(), "file"));
  if (r.syntax_errors)
    out << fmt::format("Syntax errors: {} analysed as far as they parse\n",
                       plural(r.syntax_errors, "file"));
  out << "\n";
  if (r.findings.empty()) {
    out << "No findings.\n";
    return;
  }
  std::vector<std::string> sev;
  for (const char* s : {"error", "warning", "info"}) {
    auto it = c.by_severity.find(s);
    if (it != c.by_severity.end()) sev.push_back(fmt::format("{} {}", group_digits(it->second), s));
  }
  out << fmt::format("Findings: {} ({})\n", group_digits(r.findings.size()), fmt::join(sev, ", "));
  std::vector<std::pair<std::size_t, std::string>> rules;
  for (const auto& [code, n] : c.by_rule) rules.emplace_back(n, code);
  std::stable_sort(rules.begin(), rules.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (const auto& [n, code] : rules) {
    const Rule* rule = find_rule(code);
    std::string sevs = rule ? std::string(to_string(rule->info().severity)) : "";
    out << fmt::format("  {:>7}  {:<7} {:<28} {}\n", group_digits(n), code, rule_name(code), sevs);
  }
  out << "\nTop files:\n";
  for (std::size_t i = 0; i < c.files.size() && i < top; ++i)
    out << fmt::format("  {:>7}  {}\n", group_digits(c.files[i].first), c.files[i].second);
  out << "\nTop directories:\n";
  for (std::size_t i = 0; i < c.directories.size() && i < top; ++i)
    out << fmt::format("  {:>7}  {}/\n", group_digits(c.directories[i].first),
                       c.directories[i].second);
  out << "\nWhat these cost (measured, from each rule's documentation):\n";
  for (const auto& [n, code] : rules) {
    std::string cost = measured_cost(code);
    if (cost.empty()) continue;
    out << fmt::format("  {} ({}): each of these costs: {}\n", code, group_digits(n), cost);
  }
}

CLI::App* add_audit_subcommand(CLI::App& app, AuditOptions& o) {
  CLI::App* a = app.add_subcommand(
      "audit", "Audit a whole tree (Python, notebooks, C++): a summary, and HTML/JSON/Markdown reports");
  a->add_option("paths", o.paths, "Directories or files to audit (default: .)");
  a->add_option("--html", o.html, "Write a self-contained HTML report to this file");
  a->add_option("--json", o.json, "Write a JSON report to this file");
  a->add_option("--markdown", o.markdown, "Write a Markdown report (for an issue) to this file");
  a->add_option("--select", o.select, "Rules to enable, replacing the default")
      ->delimiter(',')->allow_extra_args(false);
  a->add_option("--extend-select", o.extend_select, "Rules to enable on top of the selection")
      ->delimiter(',')->allow_extra_args(false);
  a->add_option("--ignore", o.ignore, "Rules to disable")->delimiter(',')->allow_extra_args(false);
  a->add_option("--config", o.config, "Use this config file for every file");
  a->add_option("-p,--build-path", o.build_path, "C++: the directory of compile_commands.json");
  a->add_option("--threads", o.threads, "Worker threads (default: one per CPU)")
      ->check(CLI::Range(1u, 4096u));
  a->add_option("--top", o.top, "Rows in the top files and directories lists (default 10)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{100000}));
  a->add_flag_function("--progress", [&o](std::int64_t) { o.progress = true; },
                       "Draw the progress bar even when stdout is not a terminal");
  a->add_flag_function("--no-progress", [&o](std::int64_t) { o.progress = false; },
                       "Never draw the progress bar");
  return a;
}

int run_audit_command(const AuditOptions& o) {
  std::error_code ec;
  fs::path cwd = fs::current_path(ec);
  if (ec) {
    std::cerr << "error: cannot read the working directory: " << ec.message() << "\n";
    return kExitError;
  }
  cwd = absolute_normal(cwd, cwd);
  for (const auto& [flag, list] : {std::pair<const char*, const std::vector<std::string>*>{
                                       "--select", &o.select},
                                   {"--extend-select", &o.extend_select},
                                   {"--ignore", &o.ignore}})
    for (const auto& s : split_selectors(*list))
      if (!selector_is_known(s)) {
        std::cerr << unknown_selector_message(flag, s);
        return kExitError;
      }
  bool progress = o.progress.value_or(::isatty(STDOUT_FILENO) == 1);
  AuditResult r;
  try {
    r = run_audit(o, cwd, progress, std::cout);
  } catch (const ConfigError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitError;
  } catch (const std::runtime_error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitError;
  }
  for (const auto& e : r.errors) std::cerr << "error: " << e << "\n";
  write_summary(std::cout, r, o.top);
  int rc = kExitOk;
  auto write = [&](const std::string& file, const std::string& what, const std::string& bytes) {
    if (file.empty()) return;
    std::string err;
    std::error_code exists_ec;
    bool existed = fs::exists(file, exists_ec);
    if (!write_file_atomically(file, bytes, &err)) {
      std::cerr << fmt::format("error: {}: cannot write the {} report: {}\n", file, what, err);
      rc = kExitError;
      return;
    }
    if (!existed) {
      // A new report gets the usual mode for new files (0666 minus the umask), not the
      // temporary file's 0600.
      mode_t mask = ::umask(0);
      ::umask(mask);
      ::chmod(file.c_str(), 0666 & ~mask);
    }
    std::cout << fmt::format("Wrote the {} report: {}\n", what, file);
  };
  if (!o.html.empty() || !o.json.empty() || !o.markdown.empty()) std::cout << "\n";
  write(o.html, "HTML", html_report(r, o.top));
  write(o.json, "JSON", json_report(r, o.top));
  write(o.markdown, "Markdown", markdown_report(r, o.top));
  std::cout << std::flush;
  return rc;
}

}  // namespace gpulint::audit
