// The reports of `gpulint audit`: HTML (one self-contained page: inline CSS and SVG, no script,
// nothing fetched), JSON (for machines) and Markdown (for pasting into an issue). All three are
// built from the same AuditResult and count_findings(), so their numbers agree.
#pragma once

#include <cstddef>
#include <string>

#include "analyzer/audit.h"

namespace gpulint::audit {

/// The HTML page: summary cards (files, lines, time, findings, severities), two SVG bar charts
/// (`#chart-rules`: findings per rule; `#chart-dirs`: per directory, the `top` largest), the
/// rules table (`#rules`, one `tr[data-code]` per rule found, with its count, severity, measured
/// cost and a link to its documentation), the top files, and the findings table (`#findings`,
/// one `tr.finding[data-code]` per finding: location, message, source snippet, fix as a diff).
std::string html_report(const AuditResult& r, std::size_t top);

/// The JSON report: {"tool", "version", "summary": {files, python_files, notebooks, cpp_files,
/// cpp_analysed, cpp_note, lines, bytes, seconds, threads, syntax_errors, findings},
/// "by_severity": {severity: n}, "rules": [{code, name, severity, count, url, measured_cost}],
/// "top_files": [{path, findings}], "top_directories": [{path, findings}], "errors": [..],
/// "findings": [{path, cell (null outside notebooks), line, column, code, name, severity,
/// message, snippet, url, fix: {message, applicability, diff} or null}]}. Lines and columns
/// are 1-based (columns in code points), as in `gpulint check` text output.
std::string json_report(const AuditResult& r, std::size_t top);

/// The Markdown report: the summary, the rules table with costs, the top files and
/// directories, and the first 100 findings (the count of the rest is stated).
std::string markdown_report(const AuditResult& r, std::size_t top);

}  // namespace gpulint::audit
