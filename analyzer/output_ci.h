// The CI output formats of `gpulint check --output-format`: json-lines, sarif, github, gitlab
// and junit. `write_diagnostics` (output.h) dispatches here for these formats; the functions
// are public so that tests and other front ends (audit, server) can call one directly.
//
// Positions: github, gitlab and junit print 1-based lines and 1-based columns in Unicode code
// points (as the text formats and Ruff do); SARIF uses 1-based lines and 1-based columns in
// UTF-16 code units (SARIF's default `columnKind`, stated explicitly in the run). Every
// function writes valid output for an empty `files` list (json-lines and github: nothing).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzer/output.h"

namespace gpulint {

/// One diagnostic as an object of Ruff's JSON format (`--output-format json`, one per line in
/// json-lines): {cell, code, end_location, filename, fix, location, message, noqa_row, url}.
/// `filename` is written as given (the callers pass the absolute path); locations are 1-based
/// rows and code-point columns. With `nb` (a notebook's module text), `cell` is the 1-based
/// cell and rows are rows in that cell (analyzer/notebook.h).
nlohmann::json diagnostic_to_json(const SourceFile& source, const Diagnostic& d,
                                  const std::string& filename, const Notebook* nb = nullptr);

/// json-lines (Ruff's): one diagnostic_to_json object per line, no enclosing array.
void write_json_lines(std::ostream& out, const std::vector<FileDiagnostics>& files,
                      const OutputOptions& options);

/// SARIF 2.1.0: one run whose tool.driver lists every registered rule (id, name,
/// shortDescription = summary, fullDescription = the doc's "What it does" section, help.text
/// and help.markdown = the whole doc, helpUri = rule_url, defaultConfiguration.level) and one
/// result per diagnostic (ruleId, ruleIndex, level from the diagnostic's severity: error /
/// warning / note, message ending in a period, a physicalLocation whose region carries the
/// flagged text as its snippet and whose contextRegion is the whole flagged line(s), and, when
/// the diagnostic has a fix with edits, `fixes[0]` with the fix's replacements and its
/// applicability in `properties.applicability`). URIs are relative to `options.cwd` with uriBaseId
/// "%SRCROOT%" (declared in originalUriBaseIds as the cwd's file:// URI) for files below the
/// working directory, absolute file:// URIs otherwise; both are percent-encoded.
void write_sarif(std::ostream& out, const std::vector<FileDiagnostics>& files,
                 const OutputOptions& options);

/// GitHub Actions workflow commands (Ruff's layout), one line per diagnostic:
/// `::warning title=gpulint (CODE),file=ABS,line=L,col=C,endLine=L2,endColumn=C2::PATH:L:C: CODE message`.
/// The command is `error`, `warning` or `notice` after the diagnostic's severity; property
/// values and the message are escaped as @actions/core does (% \r \n, and : , in properties).
void write_github(std::ostream& out, const std::vector<FileDiagnostics>& files,
                  const OutputOptions& options);

/// GitLab Code Quality report: a JSON array of {check_name, description ("CODE: message"),
/// fingerprint, severity (critical / major / minor after the diagnostic's severity),
/// categories ["Performance"], location{path, lines{begin, end}}}. Paths are relative to
/// `options.project_dir` (GitLab's CI_PROJECT_DIR; the cwd when empty). The fingerprint is the
/// hex FNV-1a-64 hash of the code, path, message and the flagged source text, so it does not
/// change when lines move; identical findings in one file get distinct fingerprints through
/// an occurrence counter in the hash.
void write_gitlab(std::ostream& out, const std::vector<FileDiagnostics>& files,
                  const OutputOptions& options);

/// JUnit XML (Ruff's layout): <testsuites name="gpulint"> with one <testsuite> per file
/// (name = display path, package "org.gpulint") and one failing <testcase
/// name="org.gpulint.CODE" classname="DIR/STEM" line column> per diagnostic, whose
/// <failure message="MESSAGE"> text is "line L, col C, MESSAGE". No diagnostics: one suite
/// "gpulint" with a passing case "No errors found".
void write_junit(std::ostream& out, const std::vector<FileDiagnostics>& files,
                 const OutputOptions& options);

/// Percent-encodes a path for a URI (RFC 3986: everything but unreserved characters and '/').
std::string uri_encode_path(std::string_view path);

/// FNV-1a, 64 bits, of `bytes` continuing from `seed` (the standard offset basis by default).
uint64_t fnv1a64(std::string_view bytes, uint64_t seed = 0xcbf29ce484222325ULL);

}  // namespace gpulint
