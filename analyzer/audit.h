// `gpulint audit PATH…`: every Python file, notebook and C++ file of a tree, on all cores,
// streamed (each file's tree and text are dropped as soon as its findings are recorded), then a
// summary — files, lines, time, findings per rule and severity, the top files and directories,
// and what each rule found costs (the "Measured cost" section of the rule's documentation) —
// and optional reports: `--html` (one self-contained page), `--json`, `--markdown`.
//
// Exit codes: 0 the audit ran (findings or not: an audit is a report, not a gate), 2 usage,
// configuration error, a named path missing, or a report that could not be written.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "analyzer/analysis.h"
#include "analyzer/diagnostic.h"
#include "analyzer/source.h"

namespace CLI {
class App;
}

namespace gpulint::audit {

/// Command-line options of `gpulint audit`.
/// The C++ front end's entry point for audit: given the compile_commands.json found (if any),
/// one analysis function for C++ files, or an empty function when it cannot analyse them
/// (then C++ files are counted, not analysed, and the summary says so). Set in
/// AuditOptions::cpp_front_end by the binary, which links the C++ front end (analyzer/cpp,
/// library gpulint_cpp, which itself depends on this library); empty in builds without it.
using CppFrontEndFactory = std::function<std::function<FileReport(const SourceFile&, const FileSettings&)>(
    const std::optional<std::filesystem::path>& compile_commands)>;

struct AuditOptions {
  std::vector<std::string> paths;              ///< default "."
  std::string html, json, markdown;            ///< report files to write ("" = none)
  std::vector<std::string> select, extend_select, ignore;
  std::string config;                          ///< --config FILE
  std::string build_path;                      ///< -p: directory of compile_commands.json
  unsigned threads = 0;                        ///< 0: one per core
  std::size_t top = 10;                        ///< rows in the top files / directories lists
  /// --progress / --no-progress: force the progress bar on or off (default: on when stdout
  /// is a terminal).
  std::optional<bool> progress;
  /// The C++ front end (see CppFrontEndFactory); empty: C++ files are counted, not analysed.
  CppFrontEndFactory cpp_front_end;
};

/// One finding, with everything a report shows (no pointer into a source: sources are gone).
struct Finding {
  std::string path;           ///< display path (relative to the working directory when below)
  uint32_t cell = 0;          ///< notebook cell (1-based, all cells counted); 0: not a notebook
  uint32_t line = 0;          ///< 1-based line (in the cell for a notebook)
  uint32_t column = 0;        ///< 1-based, Unicode code points
  std::string code;           ///< "DL001"
  std::string message;
  Severity severity = Severity::Warning;
  std::string snippet;        ///< the source line the finding starts on
  std::string fix_message;    ///< "" when the rule has no fix here
  std::string fix_applicability;   ///< "safe" / "unsafe" / "display-only" / ""
  /// The fix alone as a small diff: per group of nearby edits a "@@ line N @@" (notebooks:
  /// "@@ cell C line N @@") header, then "-old" / "+new" lines; "" without a fix.
  std::string fix_diff;
};

/// Everything the summary and the reports show.
struct AuditResult {
  std::vector<std::string> roots;       ///< the audited paths as given
  std::size_t python_files = 0;         ///< .py / .pyi files analysed (read and checked)
  std::size_t notebooks = 0;            ///< .ipynb files analysed
  std::size_t cpp_files = 0;            ///< C++ files found
  std::size_t cpp_analysed = 0;         ///< … of which analysed (0 without a C++ front end)
  std::string cpp_note;                 ///< why C++ files were not analysed ("" when they were)
  std::string cpp_source;               ///< "compile_commands.json (PATH)" or "file extensions"
  uint64_t lines = 0;                   ///< lines of the analysed files (notebooks: cell lines)
  uint64_t bytes = 0;                   ///< bytes of the analysed files
  double seconds = 0;                   ///< wall time from discovery to the last file
  unsigned threads = 0;
  std::size_t syntax_errors = 0;        ///< files analysed as far as they parse
  std::vector<std::string> errors;      ///< "PATH: reason" of files that could not be read
  std::vector<Finding> findings;        ///< sorted by path, cell, line, column, code
};

/// Per-rule, per-severity, per-file and per-directory counts of `r.findings`.
struct AuditCounts {
  std::map<std::string, std::size_t> by_rule;       ///< code → findings
  std::map<std::string, std::size_t> by_severity;   ///< "error" / "warning" / "info" → findings
  /// (findings, path), most first then by path.
  std::vector<std::pair<std::size_t, std::string>> files;
  /// (findings, directory of the file, "." for the working directory), most first.
  std::vector<std::pair<std::size_t, std::string>> directories;
};
AuditCounts count_findings(const AuditResult& r);

/// The "Measured cost" section of rule `code`'s documentation (rules/*.cpp), joined into one
/// paragraph; "" for an unknown code or a doc without that section. The single source of the
/// costs the summary and the reports quote.
std::string measured_cost(std::string_view code);


/// The C++ translation units listed in `compile_commands` (absolute, lexically normal, sorted,
/// without duplicates, existing files only). Throws std::runtime_error with the file name when
/// it is not a JSON array of objects with a "file" (and "directory") string.
std::vector<std::filesystem::path> compile_commands_files(const std::filesystem::path& compile_commands);

/// Runs the audit (no printing besides the progress bar on `progress_out` when `progress`).
/// Throws ConfigError on an invalid configuration and std::runtime_error on an unusable
/// compile_commands.json; per-file problems land in `errors`.
AuditResult run_audit(const AuditOptions& options, const std::filesystem::path& cwd,
                      bool progress, std::ostream& progress_out);

/// The terminal summary (see the file comment), ending in a newline.
void write_summary(std::ostream& out, const AuditResult& r, std::size_t top);

/// The progress line drawn on a terminal: "[#####     ] 1,234/5,678 files  812 files/s  3.2 s"
/// (`width` characters of bar). Exposed for tests.
std::string progress_line(std::size_t done, std::size_t total, double seconds, int width = 30);

/// Registers `audit` on `app`, filling `options`; returns the subcommand.
CLI::App* add_audit_subcommand(CLI::App& app, AuditOptions& options);

/// Runs `gpulint audit` as the command line does: the audit, the summary on stdout, the
/// reports; returns the exit code.
int run_audit_command(const AuditOptions& options);

}  // namespace gpulint::audit
