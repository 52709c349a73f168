// The LSP server's re-lint of one open Python document after an edit. Most edits need the
// whole analysis again (facts of one definition depend on the rest of the file: module
// bindings, call sites, attribute stores, the file-wide model list), but an edit that changes
// only a comment or the whitespace after the code on one line — typing `# todo` or
// `# noqa: DL001` after a statement, editing such a comment — changes no token the analysis
// reads: the rules' diagnostics are those of the last analysis with every offset after the edit
// shifted by the edit's change in length, and only the suppressions are applied again (the
// comment may be a `# noqa`). RelintCache keeps what that needs and decides, conservatively,
// when it applies; everything else is analysed from scratch with analyze_python_tree.
// tests/lsp_incremental_test.cpp checks the results against from-scratch analyses.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "analyzer/analysis.h"

namespace gpulint::lsp {

class RelintCache {
 public:
  /// The report of `source` (the document's text now; no BOM) whose tree-sitter-python tree is
  /// `tree` (of exactly source.text(); nullptr gives an empty report), analysed with
  /// `settings`. Equal to analyze_python_tree(source, tree, settings). Reuses the previous call's
  /// analysis when the text differs from the previous call's text only inside one line, after
  /// that line's code, and both versions of that part are whitespace and at most one comment;
  /// the caller must call clear() when the settings change between calls.
  FileReport relint(const SourceFile& source, const TSTree* tree, const FileSettings& settings);

  /// Forgets the previous analysis (settings changed, or the text was analysed another way).
  void clear();

  /// Re-lints done so far without the analysis (comment / trailing-whitespace edits), and with.
  uint32_t reused() const { return reused_; }
  uint32_t analysed() const { return analysed_; }

 private:
  /// The report for `source` built from the cached analysis, or false when the edit is not a
  /// comment-only one (or the cached analysis cannot be shifted over it).
  bool try_reuse(const SourceFile& source, const TSTree* tree, FileReport& out);

  bool valid_ = false;
  std::string text_;              ///< the text of the cached analysis
  PythonAnalysisDetail detail_;   ///< its unsuppressed diagnostics and comments
  FileReport report_;             ///< its report
  uint32_t reused_ = 0;
  uint32_t analysed_ = 0;
};

}  // namespace gpulint::lsp
