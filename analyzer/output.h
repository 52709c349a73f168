// Output formats of `gpulint check` (Ruff-compatible): full, concise, json, statistics, the
// summary lines, and the rule documentation printed by `gpulint rule` / `gpulint rules`.
//
// Text formats print 1-based lines and 1-based columns counted in Unicode code points (as
// Ruff does); paths relative to the working directory when the file is below it. The json
// format is Ruff's: an array of {cell, code, end_location, filename (absolute), fix,
// location, message, noqa_row, url}.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/diagnostic.h"
#include "analyzer/notebook.h"
#include "analyzer/rule.h"
#include "analyzer/source.h"

namespace gpulint {

enum class OutputFormat { Full, Concise, Json, JsonLines, Sarif, Github, Gitlab, Junit };

/// Parses a name of output_format_names() ("full", "json-lines", "sarif", …); false for
/// anything else.
bool parse_output_format(std::string_view name, OutputFormat* out);
/// Every --output-format name, in the order the help lists them.
const std::vector<std::string>& output_format_names();
/// True for the human-readable formats (full, concise), which are followed by the summary
/// lines; the machine formats (json, json-lines, sarif, github, gitlab, junit) are not.
bool format_has_summary(OutputFormat format);

struct OutputOptions {
  OutputFormat format = OutputFormat::Full;
  bool unsafe_fixes = false;   ///< decides the `[*]` marker and the fixable counts
  bool show_fixes = false;     ///< full format: a "help: <fix message>" line per diagnostic
  bool quiet = false;          ///< no summary lines
  std::filesystem::path cwd;   ///< absolute; paths below it print relative
  /// gitlab: the directory report paths are relative to (GitLab's CI_PROJECT_DIR, absolute);
  /// empty: `cwd`.
  std::filesystem::path project_dir;
};

/// The diagnostics of one file, with the source they point into (must outlive the call).
struct FileDiagnostics {
  std::string path;                       ///< as discovered ("-" or the --stdin-filename)
  const SourceFile* source = nullptr;
  const std::vector<Diagnostic>* diagnostics = nullptr;
  /// Set for a notebook: `source` is the module of its code cells; positions print as
  /// `PATH:cell N:LINE:COL` (json: `"cell": N` and rows inside the cell, as Ruff does; a fix
  /// edit's rows are inside the cell the edit falls in, which may be another one, e.g. an
  /// `import os` added after the imports of the first code cell).
  const Notebook* notebook = nullptr;
};

/// `path` relative to `cwd` when it is below it, otherwise absolute; "-" stays "-".
std::string display_path(std::string_view path, const std::filesystem::path& cwd);
/// `path` made absolute (lexically normal) against `cwd`; "-" stays "-".
std::string absolute_path(std::string_view path, const std::filesystem::path& cwd);

/// Where byte `offset` of `src` is, as the text formats print it before a diagnostic:
/// "PATH:LINE:COL" (1-based line, 1-based column in code points), or "PATH:cell N:LINE:COL"
/// for a notebook (`nb` not null: `src` is its module text, the line is inside cell N). An
/// offset past the end is taken as the end. full, concise and github use it.
std::string location_text(std::string_view path, const SourceFile& src, const Notebook* nb,
                          uint32_t offset);

/// The rule's name ("dataloader-no-workers"), or the code in lower case for unknown codes.
std::string rule_name(std::string_view code);
/// "https://gpulint.dev/rules/<name>".
std::string rule_url(std::string_view code);
/// True when the diagnostic carries a fix that --fix would apply under `unsafe_fixes`.
bool fix_available(const Diagnostic& d, bool unsafe_fixes);

/// Writes every diagnostic in the chosen format (json: one array for all files).
void write_diagnostics(std::ostream& out, const std::vector<FileDiagnostics>& files,
                       const OutputOptions& options);

/// `--statistics`: one line per code, most frequent first: "COUNT\tCODE\t[*] name"
/// (json format: an array of {code, name, count, fixable}).
void write_statistics(std::ostream& out, const std::vector<FileDiagnostics>& files,
                      const OutputOptions& options);

/// What the summary lines count.
struct SummaryCounts {
  std::size_t remaining = 0;        ///< diagnostics reported
  std::size_t fixed = 0;            ///< fixes applied (--fix) or that would be (--diff)
  std::size_t fixable = 0;          ///< remaining ones with a fix applicable now
  std::size_t hidden_unsafe = 0;    ///< remaining ones with an unsafe fix (no --unsafe-fixes)
};

/// Ruff's summary after full/concise output: "Found N errors." (with "(F fixed, R remaining)"
/// after --fix), "[*] M fixable with the `--fix` option." and the hint about hidden unsafe
/// fixes; "All checks passed!" when nothing remains. Nothing with `quiet`.
void write_summary(std::ostream& out, const SummaryCounts& counts, const OutputOptions& options);

/// The `--diff` summary (Ruff): "Would fix N errors." / "No errors would be fixed …".
void write_diff_summary(std::ostream& out, const SummaryCounts& counts,
                        const OutputOptions& options);

/// `--fix --show-fixes`: "Fixed N errors:" then "- PATH:" and "    2 × DL002 (name)" lines.
/// `fixed`: display path → (code → count), in output order.
void write_fixed_list(std::ostream& out,
                      const std::vector<std::pair<std::string, std::map<std::string, uint32_t>>>& fixed);

/// `gpulint rule CODE`: "# name (CODE)", the metadata lines, then the rule's doc markdown.
std::string rule_page(const Rule& rule);
/// `gpulint rules`: an aligned table of code, name, fix safety and summary.
std::string rules_table();
/// `gpulint rules --format markdown`: the whole docs/rules.md.
std::string rules_markdown();
/// "safe", "unsafe" or "none".
std::string_view fix_safety_name(FixSafety f);

}  // namespace gpulint
