// Applying fixes (`--fix`, `--diff`): choose non-overlapping fixes, apply them, re-analyse and
// repeat until nothing applicable remains (at most kMaxRounds rounds), so a second `--fix`
// changes nothing. A result with more syntax errors than the original is refused. Files are
// written atomically (temp file in the same directory, fsync, original mode, rename).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/analysis.h"
#include "analyzer/diagnostic.h"
#include "analyzer/source.h"

namespace gpulint {

/// True when `fix` may be applied: safe fixes always, unsafe ones with --unsafe-fixes,
/// display-only ones never.
bool fix_applies(const Fix& fix, bool unsafe_fixes);

/// One round over `text`: fixes are taken in order of their first edit; a fix whose edits
/// overlap or touch an edit already taken is left for the next round (edits identical to one
/// already taken are shared, e.g. the same import added by two fixes). Adds the number of
/// fixes applied per rule code to `*fixed` (may be null). Returns the new text, or nullopt
/// when no fix applied. Edit offsets are byte offsets into `text`; out-of-range or
/// self-overlapping fixes are skipped.
std::optional<std::string> apply_fixes_once(std::string_view text,
                                            const std::vector<Diagnostic>& diagnostics,
                                            bool unsafe_fixes,
                                            std::map<std::string, uint32_t>* fixed);

/// Analyses a (possibly fixed) source; must not throw.
using AnalyzeFn = std::function<FileReport(const SourceFile&)>;

struct FixResult {
  std::string text;                        ///< the fixed text (no BOM); the original if unchanged
  bool changed = false;
  std::map<std::string, uint32_t> fixed;   ///< rule code → fixes applied
  FileReport report;                       ///< the analysis of `text`
  uint32_t rounds = 0;                     ///< rounds that applied something
  std::optional<std::string> error;        ///< set when the result was refused (text unchanged)
};

constexpr uint32_t kMaxFixRounds = 10;

/// Fixes `source` whose analysis is `initial`: rounds of apply_fixes_once + `analyze` until
/// none applies or kMaxFixRounds. Refuses (error set, original kept) when the result has
/// more tree-sitter syntax errors than the original (python_syntax_error_count).
FixResult fix_source(const SourceFile& source, const FileReport& initial, bool unsafe_fixes,
                     const AnalyzeFn& analyze);

/// Writes `bytes` to `path` atomically: a temp file in the same directory (the target's when
/// `path` is a symbolic link), fsync, the original file's permission bits (and owner when
/// allowed), rename over the original. On failure the original is untouched, the temp file is
/// removed, and false is returned with `*error` set to a sentence.
bool write_file_atomically(const std::string& path, std::string_view bytes, std::string* error);

/// A unified diff (3 lines of context, `--- old_name` / `+++ new_name` headers, "\ No newline
/// at end of file" markers) of two texts split on '\n'; empty when they are equal.
std::string unified_diff(std::string_view old_text, std::string_view new_text,
                         std::string_view old_name, std::string_view new_name,
                         int context = 3);

}  // namespace gpulint
