// Diagnostics, fixes and edits: what rules produce and every output format consumes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpulint {

enum class Severity { Error, Warning, Info };
std::string_view to_string(Severity s);

/// Ruff's applicability levels: a safe fix keeps the program's meaning; an unsafe one may
/// change behaviour (spawns processes, moves data between devices) and needs --unsafe-fixes.
enum class Applicability { Safe, Unsafe, DisplayOnly };
std::string_view to_string(Applicability a);  // "safe", "unsafe", "display-only"
/// The applicability whose to_string is `name` (what the json output writes in
/// fix.applicability); nullopt for any other text.
std::optional<Applicability> parse_applicability(std::string_view name);

/// How sure the rule is. Low-confidence diagnostics are still reported (with a lower severity
/// or an explanation in the message); rules that cannot decide emit nothing.
enum class Confidence { High, Low };

/// Replace bytes [start, end) of the source text with `content` (insertion: start == end).
struct Edit {
  uint32_t start = 0;
  uint32_t end = 0;
  std::string content;
  bool operator==(const Edit&) const = default;
};

struct Fix {
  Applicability applicability = Applicability::Safe;
  std::string message;        ///< e.g. "Add `pin_memory=True`"
  std::vector<Edit> edits;    ///< non-overlapping, any order
  bool operator==(const Fix&) const = default;  ///< the same edits in the same order
};

struct Diagnostic {
  std::string code;           ///< rule code, e.g. "DL001"
  std::string message;        ///< one line, no trailing period
  uint32_t start = 0;         ///< byte range in the SourceFile text
  uint32_t end = 0;
  Severity severity = Severity::Warning;
  Confidence confidence = Confidence::High;
  std::optional<Fix> fix;
  /// Empty for a diagnostic that stands on its own. Otherwise the key of the function holding
  /// the finding (CrossFileFacts, analyzer/facts.h): it stands only when some analysed file
  /// calls that function once per loop iteration. Front ends keep such diagnostics in
  /// FileReport::pending; resolve_cross_file (analyzer/driver.h) decides them once every file
  /// of a run is analysed.
  std::string needs_call_in_loop;
  /// Every field equal (code, message, range, severity, confidence, fix, needs_call_in_loop).
  bool operator==(const Diagnostic&) const = default;
};

/// A parse problem: reported once per file, never blocks the analysis of what parsed.
struct SyntaxErrorNote {
  uint32_t offset = 0;  ///< byte offset of the first error node
  uint32_t error_count = 0;
  /// What went wrong, when the front end knows better than "syntax error" (C++: clang's first
  /// error, e.g. "'foo.h' file not found"); empty for Python.
  std::string message;
};

}  // namespace gpulint
