// The driver: analyses (and fixes) many files on a thread pool; results come back in the order
// of the tasks, whatever the thread count. One file's failure (unreadable, binary, invalid
// UTF-8, too large, a refused fix, a failed write) is recorded on that file and never stops
// the others.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/analysis.h"
#include "analyzer/notebook.h"
#include "analyzer/source.h"

namespace gpulint {

enum class FixMode {
  None,   ///< report only
  Apply,  ///< --fix: write the fixed file (or keep it in `fixed_bytes` for stdin)
  Diff,   ///< --diff: compute the diff, write nothing
};

/// One file to analyse.
struct FileTask {
  std::string path;                    ///< for I/O (and SourceFile::path)
  std::string display;                 ///< for messages; `path` when empty
  FileSettings settings;
  std::optional<std::string> content;  ///< stdin bytes; the file is read when absent
};

struct DriverOptions {
  unsigned threads = 0;                ///< 0: std::thread::hardware_concurrency()
  FixMode fix_mode = FixMode::None;
  bool unsafe_fixes = false;
  /// Analysis function; empty: analyze_python. Must be thread-safe and must not throw.
  std::function<FileReport(const SourceFile&, const FileSettings&)> analyze;
};

/// What happened to one file.
struct FileOutcome {
  std::string path;                         ///< FileTask::path
  std::string display;                      ///< FileTask::display (or path)
  /// The file as last analysed (after fixes), kept when it has diagnostics or changed;
  /// output formats point into it.
  std::optional<SourceFile> source;
  std::vector<Diagnostic> diagnostics;      ///< remaining diagnostics, sorted
  std::optional<SyntaxErrorNote> syntax_error;  ///< of the file as read
  std::vector<std::string> warnings;        ///< full lines: "warning: PATH:L:C: syntax error; …"
  std::optional<std::string> error;         ///< full line: "error: PATH: reason"
  std::map<std::string, uint32_t> fixed;    ///< code → fixes applied (Apply) or applicable (Diff)
  bool changed = false;                     ///< the fixes changed the text
  std::string fixed_bytes;                  ///< the fixed file (BOM restored) when changed
  std::string diff;                         ///< FixMode::Diff: unified diff when changed
  /// Set for a notebook (.ipynb): `source` is then the module built from its code cells, and
  /// positions are mapped to cells through it. `fixed_bytes` / `diff` are the notebook JSON.
  std::shared_ptr<const Notebook> notebook;
  /// FileReport::pending of the file as last analysed (their fixes are never applied: whether
  /// they stand is known only after every file is analysed), and its FileReport::cross_file.
  std::vector<Diagnostic> pending;
  CrossFileFacts cross_file;
};

/// Runs every task; outcomes[i] belongs to tasks[i]. With FixMode::Apply, files read from
/// disk are rewritten atomically (write_file_atomically); stdin tasks are not written (the
/// caller prints `fixed_bytes`). The outcomes are then passed through resolve_cross_file.
std::vector<FileOutcome> run_tasks(const std::vector<FileTask>& tasks, const DriverOptions& options);

/// Decides the diagnostics that depend on other files: a function runs once per loop
/// iteration when some outcome's cross_file.called_in_loop names it, or when a function that
/// does calls it (cross_file.calls, followed transitively). Each outcome's `pending`
/// diagnostics whose needs_call_in_loop names such a function move into its `diagnostics`
/// (which stay sorted by start offset, then code); the others are dropped. `pending` is empty
/// afterwards. Files whose outcome has an error take no part.
void resolve_cross_file(std::vector<FileOutcome>& outcomes);

/// Runs every task on the thread pool and hands each outcome to `on_outcome(index, outcome)`
/// as soon as its file is done, then drops it: nothing is kept, so memory stays bounded by
/// the files in flight (`gpulint audit`). Called concurrently from the worker threads, in
/// completion order: `on_outcome` must be thread-safe and must not throw.
void for_each_outcome(const std::vector<FileTask>& tasks, const DriverOptions& options,
                      const std::function<void(std::size_t, FileOutcome&&)>& on_outcome);

/// The syntax-error warning line for `source` ("warning: PATH:LINE:COL: syntax error;
/// analysed the code that parses"), 1-based line and code-point column.
std::string syntax_warning(const std::string& display, const SourceFile& source,
                           const SyntaxErrorNote& note);

}  // namespace gpulint
