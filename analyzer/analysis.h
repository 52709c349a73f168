// analyze(): one file in, its diagnostics out. Parse once, build facts once, run the enabled
// rules, apply suppressions, sort. Thread-safe: call it from any number of threads.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analyzer/diagnostic.h"
#include "analyzer/facts.h"
#include "analyzer/rule.h"
#include "analyzer/source.h"

struct TSTree;  // tree-sitter (tree_sitter/api.h)

namespace gpulint {

/// Which rules run: Ruff's semantics. `select` replaces the default set (all rules), then
/// `extend_select` adds, then `ignore` removes. Entries are codes ("DL001"), prefixes ("DL",
/// "DEV00") or "ALL".
struct RuleSelection {
  std::vector<std::string> select;         ///< empty: the default set (every rule)
  std::vector<std::string> extend_select;
  std::vector<std::string> ignore;
  /// The codes this selection enables, out of all_rules().
  std::set<std::string> enabled_codes() const;
};

/// The codes enabled by several selections applied in order (Ruff's layering: the config file,
/// then the command line). The first layer starts from every rule when its `select` is empty;
/// a later layer with a non-empty `select` restarts from its own selectors, otherwise it edits
/// the previous result. Within a layer the more specific selector wins ("DL001" over "DL" over
/// "ALL"); at equal specificity `ignore` wins. Unknown selectors simply match nothing.
std::set<std::string> enabled_codes(const std::vector<RuleSelection>& layers);

/// True when `selector` ("ALL", a code, or a code prefix) matches `code`.
bool selector_matches(std::string_view selector, std::string_view code);
/// True when `selector` names at least one known rule (used to reject typos, exit 2).
bool selector_is_known(std::string_view selector);
/// Rule selectors from repeated, comma-separated command-line values: {"DL001, DL", "MEM"} →
/// {"DL001", "DL", "MEM"}; each piece trimmed of blanks and tabs, empty pieces dropped.
std::vector<std::string> split_selectors(const std::vector<std::string>& raw);
/// What is wrong with a `selector` that names no known rule, one clause without a prefix or a
/// newline: "unknown rule selector `X` (expected ALL, a rule code such as DL001, or a prefix
/// such as DL)". The config file's error (with its file, line and key) and the LSP server's
/// settings message are built on it.
std::string unknown_selector_message(std::string_view selector);
/// The error line (ending in a newline) for a selector given with `flag` (e.g. "--select") that
/// names no known rule: "error: FLAG: " and unknown_selector_message(selector); every command
/// that takes selectors on its command line reports typos with it.
std::string unknown_selector_message(std::string_view flag, std::string_view selector);

/// Everything that decides the analysis of one file (resolved config + CLI overrides).
struct FileSettings {
  std::set<std::string> enabled;   ///< rule codes
  RuleOptions options;
  /// Every rule enabled, default options (tests, fuzzing, benchmarks).
  static FileSettings all_rules_enabled();
};

/// A comment and where it is: what suppressions are read from.
struct Comment {
  uint32_t start = 0;
  uint32_t end = 0;
};

/// A suppression comment that is itself wrong (C++: an unmatched NOLINTBEGIN / NOLINTEND).
struct SuppressionError {
  uint32_t offset = 0;   ///< byte offset of the directive's first character ('N' of NOLINT)
  std::string message;   ///< clang-tidy's wording, e.g. "unmatched 'NOLINTEND' comment without …"
};

/// What one file produced.
struct FileReport {
  std::vector<Diagnostic> diagnostics;        ///< sorted by position, suppressions applied
  std::optional<SyntaxErrorNote> syntax_error;
  uint32_t suppressed = 0;                    ///< diagnostics removed by noqa comments
  /// Set when the file was parsed but not analysed for findings, with the reason (e.g. nesting
  /// deeper than the semantic model follows). Output layers print it once as a warning.
  std::optional<std::string> not_analysed;
  /// Set when the file could not be analysed at all for a reason the user must fix (C++: a
  /// malformed compile_commands.json); the driver reports it as `error: PATH: <error>`, exit 2.
  std::optional<std::string> error;
  /// Suppression comments that are themselves wrong (C++: unmatched NOLINTBEGIN / NOLINTEND);
  /// the driver prints each as a warning line.
  std::vector<SuppressionError> suppression_errors;
  /// The front end that produced the report (fix validation counts that language's errors).
  Language language = Language::Python;
  /// Diagnostics that stand only when another file calls their function once per loop
  /// iteration (Diagnostic::needs_call_in_loop set), suppressions applied, sorted. Not in
  /// `diagnostics`: a caller that analyses one file alone (the LSP server, `audit`) stays silent
  /// on them; the driver's run_tasks keeps those that resolve_cross_file confirms.
  std::vector<Diagnostic> pending;
  /// What this file knows about calls between functions (C++ front end; empty for Python).
  CrossFileFacts cross_file;
};

/// Analyses a Python file (C++ files go through analyzer/cpp). Never throws on bad input.
FileReport analyze_python(const SourceFile& source, const FileSettings& settings);

/// What analyze_python_tree computed on the way to its report, for a caller that re-lints the
/// same document after an edit (the LSP server's comment-only re-lint, analyzer/lsp/relint.h).
struct PythonAnalysisDetail {
  /// The rules ran: the file imports torch (or a torch-based framework), parsed without being
  /// too deeply nested. False: the report holds at most a syntax-error note.
  bool rules_ran = false;
  /// The rules' diagnostics before suppressions, in the order the rules produced them.
  std::vector<Diagnostic> unsuppressed;
  /// Byte ranges of every comment of the tree, in file order (filled when rules_ran).
  std::vector<Comment> comments;
};

/// The same analysis on a tree the caller already parsed (the LSP server keeps one tree per
/// document and re-parses it incrementally with ts_tree_edit). `tree` must be a
/// tree-sitter-python tree of exactly `source.text()` (BOM removed); nullptr gives an empty
/// report. The result is identical to analyze_python(source, settings). When `detail` is not
/// null it is reset and then filled with what the analysis computed on the way (the report is
/// the same either way). Never throws on bad input; the tree is only read, so one tree may be
/// analysed from one thread at a time.
FileReport analyze_python_tree(const SourceFile& source, const TSTree* tree,
                               const FileSettings& settings,
                               PythonAnalysisDetail* detail = nullptr);

/// The last step of a Python analysis: removes the `diagnostics` (the rules' output) that
/// `comments` suppress (apply_python_suppressions, counted in report.suppressed) and stores the
/// rest in report.diagnostics, sorted by start offset then code (stable).
void finish_python_report(const SourceFile& source, const std::vector<Comment>& comments,
                          std::vector<Diagnostic> diagnostics, FileReport& report);

/// Removes diagnostics suppressed by `# noqa`, `# noqa: CODE[, CODE]` on their first line
/// or `# gpulint: noqa` anywhere in the file (Python comments only — strings never count).
/// Returns how many were removed.
uint32_t apply_python_suppressions(const SourceFile& source, const std::vector<Comment>& comments,
                                   std::vector<Diagnostic>& diagnostics);

/// Removes C++ diagnostics suppressed by clang-tidy's comments, read as clang-tidy 16 reads
/// them: `// NOLINT` or `// NOLINT(DL001, MEM001)` on a diagnostic's first line,
/// `// NOLINTNEXTLINE(...)` on the line before it, and `// NOLINTBEGIN(...)` …
/// `// NOLINTEND(...)` around it (a region: the diagnostic's start lies after the BEGIN and
/// before its END). Blocks nest; an END closes the innermost open BEGIN only when both name
/// the same check list (whitespace ignored), else it is unmatched; a BEGIN never closed is
/// unmatched; unmatched directives suppress nothing. `/* … */` comments count too.
/// `comments` are the byte ranges of the file's comments from clang's lexer, so text inside
/// string literals never counts. Codes match case-insensitively; other tools' check names in
/// a list are ignored; a `*` in the list suppresses everything. When `errors` is given and at
/// least one diagnostic was not already suppressed by NOLINT / NOLINTNEXTLINE, every unmatched
/// BEGIN / END is appended to it, in file order, with clang-tidy's message (clang-tidy reports
/// them under the same condition, as `[clang-tidy-nolint]` errors). Returns how many
/// diagnostics were removed.
uint32_t apply_cpp_suppressions(const SourceFile& source, const std::vector<Comment>& comments,
                                std::vector<Diagnostic>& diagnostics,
                                std::vector<SuppressionError>* errors = nullptr);

/// The `# noqa` codes on the line of `offset`: nullopt when the line has no noqa comment,
/// an empty vector for a bare `# noqa` (suppresses everything).
std::optional<std::vector<std::string>> parse_noqa(std::string_view comment_text);

}  // namespace gpulint

namespace gpulint {
/// Number of ERROR/MISSING nodes tree-sitter-python finds in `text` (0: parses cleanly).
/// `--fix` refuses to write a result with more errors than the original had.
uint32_t python_syntax_error_count(std::string_view text);
}  // namespace gpulint
