// gpulint: the command line (CLI11).
//
//   gpulint check [PATHS...]   lint (and fix) Python training code; `-` reads stdin
//   gpulint audit [PATHS...]   audit a whole tree: summary, --html/--json/--markdown reports
//   gpulint rule CODE          a rule's documentation
//   gpulint rules [--format table|markdown]
//   gpulint server             language server (LSP) on stdio
//   gpulint --version
//
// Exit codes (Ruff's): 0 no diagnostics, 1 diagnostics (after --fix: remaining ones; with
// --diff: changes would be made), 2 usage, config or I/O error (an unreadable file, a
// binary or invalid UTF-8 file, a file that could not be fixed or written).
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "analyzer/analysis.h"
#include "analyzer/audit.h"
#include "analyzer/config.h"
#include "analyzer/cpp_paths.h"
#include "analyzer/discovery.h"
#include "analyzer/driver.h"
#include "analyzer/fixer.h"
#include "analyzer/output.h"
#include "analyzer/rule.h"
#include "analyzer/lsp/server.h"
#include "runtime_check/confirm.h"
#ifdef GPULINT_CPP
#include "analyzer/cpp/frontend.h"
#endif

namespace fs = std::filesystem;
using namespace gpulint;

namespace {

constexpr int kExitClean = 0;
constexpr int kExitFindings = 1;
constexpr int kExitError = 2;

struct CheckArgs {
  std::vector<std::string> paths;
  std::vector<std::string> select, extend_select, ignore;
  std::string output_format = "full";
  bool fix = false, unsafe_fixes = false, diff = false, statistics = false, show_fixes = false;
  bool exit_zero = false, quiet = false, force_exclude = false;
  std::string config;
  std::string stdin_filename;
  std::string build_dir;  // -p: C++ (the directory holding compile_commands.json)
  unsigned threads = 0;
};


std::string read_stdin() {
  std::string data;
  char buf[1 << 16];
  while (true) {
    ssize_t n = ::read(0, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (n == 0) break;
    data.append(buf, static_cast<std::size_t>(n));
    if (data.size() > SourceFile::kMaxBytes + 1) break;  // from_bytes reports "too large"
  }
  return data;
}

#ifdef GPULINT_CPP
// The C++ front end as one analysis function for C++ files; the project it opens (compile
// commands, PCH cache) lives as long as the function. Empty, with *error set, when it cannot
// be opened (a malformed or missing compile_commands.json under `build_dir`).
std::function<FileReport(const SourceFile&, const FileSettings&)> cpp_analysis(
    const std::string& build_dir, bool quiet, std::string* error) {
  cpp::CppOptions copt;
  copt.build_dir = build_dir;
  if (quiet) copt.note = [](const std::string&) {};
  std::shared_ptr<cpp::CppProject> project = cpp::CppProject::open(copt, error);
  if (!project) return {};
  return [project](const SourceFile& s, const FileSettings& st) { return project->analyze(s, st); };
}
#endif

int run_check(const CheckArgs& a) {
  std::error_code ec;
  fs::path cwd = fs::current_path(ec);
  if (ec) {
    std::cerr << "error: cannot read the working directory: " << ec.message() << "\n";
    return kExitError;
  }
  cwd = absolute_normal(cwd, cwd);

  CliOverrides cli{split_selectors(a.select), split_selectors(a.extend_select),
                   split_selectors(a.ignore)};
  for (const auto& [flag, list] : {std::pair<const char*, const std::vector<std::string>*>{
                                       "--select", &cli.select},
                                   {"--extend-select", &cli.extend_select},
                                   {"--ignore", &cli.ignore}}) {
    for (const auto& s : *list) {
      if (!selector_is_known(s)) {
        std::cerr << unknown_selector_message(flag, s);
        return kExitError;
      }
    }
  }
  OutputOptions out_opt;
  if (!parse_output_format(a.output_format, &out_opt.format)) {
    std::cerr << "error: --output-format: expected one of full, concise, json, json-lines, "
                 "sarif, github, gitlab, junit\n";
    return kExitError;
  }
  out_opt.unsafe_fixes = a.unsafe_fixes;
  out_opt.show_fixes = a.show_fixes;
  out_opt.quiet = a.quiet;
  out_opt.cwd = cwd;
  // gitlab: report paths relative to the GitLab checkout (as Ruff does).
  if (const char* project = std::getenv("CI_PROJECT_DIR"); project && *project)
    out_opt.project_dir = absolute_normal(fs::path(project), cwd);

  FixMode mode = a.diff ? FixMode::Diff : (a.fix ? FixMode::Apply : FixMode::None);
  bool use_stdin = (a.paths.size() == 1 && a.paths[0] == "-") ||
                   (a.paths.empty() && !a.stdin_filename.empty());
  if (!use_stdin && std::find(a.paths.begin(), a.paths.end(), "-") != a.paths.end()) {
    std::cerr << "error: `-` (standard input) cannot be combined with other paths\n";
    return kExitError;
  }

  std::vector<FileTask> tasks;
  std::vector<std::string> early_errors, early_warnings;
  std::string stdin_content;
  try {
    std::optional<fs::path> config;
    if (!a.config.empty()) config = fs::path(a.config);
    ConfigResolver resolver(cwd, config, cli);
    DiscoveryOptions dopt;
    dopt.cwd = cwd;
    dopt.force_exclude = a.force_exclude;
#ifdef GPULINT_CPP
    // C++ sources and headers (a header is analysed as its own main file: analyzer/cpp/frontend.h).
    for (auto exts : {kCppSourceExtensions, kCppHeaderExtensions})
      for (std::string_view ext : exts) dopt.extensions[std::string(ext)] = FileKind::Cpp;
#endif
    dopt.filter_for_dir = [&resolver](const fs::path& dir) -> const ExcludeFilter& {
      return resolver.filter_for_dir(dir);
    };
    if (use_stdin) {
      stdin_content = read_stdin();
      std::string name = a.stdin_filename.empty() ? "-" : a.stdin_filename;
      fs::path abs = name == "-" ? cwd / "-" : absolute_normal(name, cwd);
      if (!a.stdin_filename.empty() && a.force_exclude &&
          is_force_excluded(abs, false, dopt)) {
        if (mode == FixMode::Apply) std::cout << stdin_content << std::flush;
        return kExitClean;
      }
      FileTask t;
      t.path = name;
      t.display = display_path(name, cwd);
      t.settings = resolver.file_settings(abs);
      t.content = stdin_content;
      tasks.push_back(std::move(t));
    } else {
      DiscoveryResult found = discover_files(a.paths, dopt);
      for (auto& w : found.warnings) early_warnings.push_back("warning: " + w);
      for (auto& e : found.errors) early_errors.push_back("error: " + e);
      tasks.reserve(found.files.size());
      for (const DiscoveredFile& f : found.files) {
        FileTask t;
        t.path = f.path;
        t.display = display_path(f.path, cwd);
        t.settings = resolver.file_settings(f.absolute);
        tasks.push_back(std::move(t));
      }
    }
  } catch (const ConfigError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitError;
  }

  DriverOptions dopt;
#ifdef GPULINT_CPP
  // C++ translation units go to the Clang front end (opened only when there is one, or -p).
  bool any_cpp = std::any_of(tasks.begin(), tasks.end(),
                             [](const FileTask& t) { return is_cpp_file_path(t.path); });
  if (any_cpp || !a.build_dir.empty()) {
    std::string err;
    auto analyze_cpp = cpp_analysis(a.build_dir, a.quiet, &err);
    if (!analyze_cpp) {
      std::cerr << "error: " << err << "\n";
      return kExitError;
    }
    dopt.analyze = [analyze_cpp](const SourceFile& s, const FileSettings& st) {
      return is_cpp_file_path(s.path()) ? analyze_cpp(s, st) : analyze_python(s, st);
    };
  }
#else
  if (!a.build_dir.empty()) {
    std::cerr << "error: -p: this gpulint was built without the C++ front end (GPULINT_CPP=OFF)\n";
    return kExitError;
  }
#endif
  dopt.threads = a.threads;
  dopt.fix_mode = mode;
  dopt.unsafe_fixes = a.unsafe_fixes;
  std::vector<FileOutcome> outcomes = run_tasks(tasks, dopt);

  bool failed = !early_errors.empty();
  if (!a.quiet)
    for (const auto& w : early_warnings) std::cerr << w << "\n";
  for (const auto& e : early_errors) std::cerr << e << "\n";
  for (const FileOutcome& o : outcomes) {
    if (!a.quiet)
      for (const auto& w : o.warnings) std::cerr << w << "\n";
    if (o.error) {
      std::cerr << *o.error << "\n";
      failed = true;
    }
  }

  std::vector<FileDiagnostics> files;
  SummaryCounts counts;
  bool any_changed = false;
  std::vector<std::pair<std::string, std::map<std::string, uint32_t>>> fixed_list;
  for (const FileOutcome& o : outcomes) {
    if (o.source && !o.diagnostics.empty())
      files.push_back(FileDiagnostics{o.path, &*o.source, &o.diagnostics, o.notebook.get()});
    counts.remaining += o.diagnostics.size();
    for (const auto& [code, n] : o.fixed) counts.fixed += n;
    if (!o.fixed.empty()) fixed_list.emplace_back(o.display, o.fixed);
    any_changed |= o.changed;
    for (const Diagnostic& d : o.diagnostics) {
      if (fix_available(d, a.unsafe_fixes)) ++counts.fixable;
      else if (d.fix && d.fix->applicability == Applicability::Unsafe && !d.fix->edits.empty())
        ++counts.hidden_unsafe;
    }
  }

  if (mode == FixMode::Diff) {
    for (const FileOutcome& o : outcomes)
      if (o.changed && !o.diff.empty()) std::cout << o.diff << "\n";
    std::cout << std::flush;
    write_diff_summary(std::cerr, counts, out_opt);
    if (failed) return kExitError;
    return any_changed ? kExitFindings : kExitClean;
  }

  // --fix on stdin: the fixed source goes to stdout, the report to stderr (as Ruff does).
  bool fixed_stdin = use_stdin && mode == FixMode::Apply;
  if (fixed_stdin) {
    const FileOutcome& o = outcomes.front();
    std::cout << (o.changed ? o.fixed_bytes : stdin_content) << std::flush;
  }
  std::ostream& report = fixed_stdin ? std::cerr : std::cout;
  if (a.statistics) {
    write_statistics(report, files, out_opt);
  } else {
    write_diagnostics(report, files, out_opt);
    if (format_has_summary(out_opt.format)) {
      if (a.show_fixes && mode == FixMode::Apply && !a.quiet) write_fixed_list(report, fixed_list);
      write_summary(report, counts, out_opt);
    }
  }
  report << std::flush;
  if (failed) return kExitError;
  if (counts.remaining > 0 && !a.exit_zero) return kExitFindings;
  return kExitClean;
}

int run_rule(const std::string& code_in) {
  std::string code = code_in;
  for (char& c : code) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const Rule* r = find_rule(code);
  if (!r) {
    // Also accept the rule's name ("dataloader-no-workers").
    for (const Rule* x : all_rules())
      if (x->info().name == code_in) r = x;
  }
  if (!r) {
    std::cerr << fmt::format("error: unknown rule `{}`; `gpulint rules` lists them\n", code_in);
    return kExitError;
  }
  std::cout << rule_page(*r);
  return kExitClean;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gpulint: finds the PyTorch training code that keeps a GPU idle or wastes its "
               "memory, and fixes it."};
  app.set_version_flag("--version", std::string("gpulint ") + GPULINT_VERSION);
  app.require_subcommand(1);

  CheckArgs a;
  CLI::App* check = app.add_subcommand("check", "Check Python training code (exit 1 on findings)");
  check->add_option("paths", a.paths,
                    "Files or directories to check (default: .); `-` reads standard input");
  check->add_option("--select", a.select,
                    "Rules to enable, replacing the default (codes, prefixes or ALL; "
                    "comma-separated, repeatable)")
      ->delimiter(',')->allow_extra_args(false);
  check->add_option("--extend-select", a.extend_select,
                    "Rules to enable on top of the selection")
      ->delimiter(',')->allow_extra_args(false);
  check->add_option("--ignore", a.ignore, "Rules to disable")->delimiter(',')->allow_extra_args(false);
  check->add_option("--output-format", a.output_format,
                    "Output format: full, concise, json, json-lines, sarif, github, gitlab, junit")
      ->check(CLI::IsMember(output_format_names()));
  check->add_flag("--fix", a.fix, "Apply safe fixes (and unsafe ones with --unsafe-fixes)");
  check->add_flag("--unsafe-fixes", a.unsafe_fixes, "Include unsafe fixes");
  check->add_flag("--diff", a.diff, "Print the diff --fix would make, change nothing "
                                    "(exit 1 when there would be changes)");
  check->add_flag("--statistics", a.statistics, "Print the number of findings per rule");
  check->add_flag("--show-fixes", a.show_fixes,
                  "Show each finding's fix, and the fixes --fix applied");
  check->add_flag("--exit-zero", a.exit_zero, "Exit 0 even when there are findings");
  check->add_option("--config", a.config,
                    "Use this config file (gpulint.toml or pyproject.toml) for every file");
  check->add_option("--threads", a.threads, "Worker threads (default: one per CPU)")
      ->check(CLI::Range(1u, 4096u));
  check->add_flag("-q,--quiet", a.quiet, "Print findings only: no summary, no warnings");
  check->add_flag("--force-exclude", a.force_exclude,
                  "Apply exclude settings and .gitignore to paths named on the command line too");
  check->add_option("--stdin-filename", a.stdin_filename,
                    "The name of the file read from standard input (config, excludes, messages)");
  check->add_option("-p,--build-path", a.build_dir,
                    "C++: the build directory holding compile_commands.json (default: the "
                    "nearest one above each file, else -std=c++17 and LibTorch's include paths)");

  std::string rule_code;
  CLI::App* rule = app.add_subcommand("rule", "Print a rule's documentation");
  rule->add_option("code", rule_code, "Rule code, e.g. DL001")->required();

  std::string rules_format = "table";
  CLI::App* rules = app.add_subcommand("rules", "List the rules");
  rules->add_option("--format", rules_format, "table or markdown (docs/rules.md)")
      ->check(CLI::IsMember({"table", "markdown"}));

  runtime_check::ConfirmOptions confirm_opts;
  CLI::App* confirm = runtime_check::add_confirm_subcommand(app, confirm_opts);
#ifdef GPULINT_CPP
  // confirm FILE.cpp takes its findings from the Clang front end (-p as for check).
  confirm_opts.cpp_front_end = [](const std::string& build_dir, std::string* error) {
    return cpp_analysis(build_dir, false, error);
  };
#endif
  CLI::App* server = lsp::add_server_subcommand(app);

  audit::AuditOptions audit_opts;
  CLI::App* audit_cmd = audit::add_audit_subcommand(app, audit_opts);
#ifdef GPULINT_CPP
  // audit's C++ files go to the Clang front end, with the compile_commands.json audit found.
  audit_opts.cpp_front_end = [](const std::optional<fs::path>& compile_commands)
      -> std::function<FileReport(const SourceFile&, const FileSettings&)> {
    std::string err;
    auto analyze_cpp = cpp_analysis(
        compile_commands ? compile_commands->parent_path().string() : std::string(), false, &err);
    if (!analyze_cpp) std::cerr << "warning: C++ files not analysed: " << err << "\n";
    return analyze_cpp;
  };
#endif

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitClean : kExitError;  // CLI11's own codes (105, 106…) → 2
  }

  try {
    if (check->parsed()) return run_check(a);
    if (confirm->parsed()) return runtime_check::run_confirm_command(confirm_opts);
    if (audit_cmd->parsed()) return audit::run_audit_command(audit_opts);
    if (server->parsed()) return lsp::run_server_command();
    if (rule->parsed()) return run_rule(rule_code);
    if (rules->parsed()) {
      std::cout << (rules_format == "markdown" ? rules_markdown() : rules_table());
      return kExitClean;
    }
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitError;
  }
  return kExitError;
}
