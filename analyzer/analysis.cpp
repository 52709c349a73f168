#include "analyzer/analysis.h"

#include <algorithm>
#include <cstring>

#include "analyzer/python/facts_builder.h"
#include "analyzer/python/semantic_model.h"
#include "analyzer/python/syntax.h"

namespace gpulint {
namespace {

// One pass over the statements (never into expressions), a small part of the parse's cost:
// does the module import torch or a torch-based framework, and does it use Python 2 statements
// (`print x`, `exec code`), which tree-sitter-python parses without error nodes?
struct StatementScan {
  bool imports_torch = false;
  /// `from M import *` of a module outside torch's family (a project's `from utils import *`
  /// that re-exports `torch`: SemanticModel::unbound_name reads the name `torch` then).
  bool star_import = false;
  uint32_t python2_statements = 0;
  uint32_t first_python2 = 0;
};

bool is_torch_import(TSNode ch, const char* t, std::string_view src) {
  static const char* kFamily[] = {"torch", "torchvision", "lightning", "pytorch_lightning",
                                  "transformers", "accelerate", "timm", "torchaudio", "torchtext"};
  // The first identifier of each imported module path (`import torch.nn as nn`,
  // `from transformers import Trainer`): relative imports never count.
  bool from = std::strcmp(t, "import_from_statement") == 0;
  uint32_t k = ts_node_child_count(ch);
  for (uint32_t j = 0; j < k; ++j) {
    const char* fname = ts_node_field_name_for_child(ch, j);
    if (!fname) continue;
    std::string_view fn(fname);
    if ((from && fn != "module_name") || (!from && fn != "name")) continue;
    TSNode mod = ts_node_child(ch, j);
    if (std::strcmp(ts_node_type(mod), "aliased_import") == 0) mod = python::field(mod, "name");
    if (std::strcmp(ts_node_type(mod), "dotted_name") != 0) continue;
    std::string_view first = python::text(ts_node_named_child(mod, 0), src);
    for (const char* fam : kFamily)
      if (first == fam) return true;
  }
  return false;
}

void scan_statements(TSNode n, std::string_view src, StatementScan& out, int depth = 0) {
  if (depth > 200) return;
  python::for_each_named_child(n, [&](TSNode ch) {
    const char* t = ts_node_type(ch);
    if (std::strcmp(t, "import_statement") == 0 || std::strcmp(t, "import_from_statement") == 0) {
      bool torch_import = is_torch_import(ch, t, src);
      if (torch_import) out.imports_torch = true;
      if (!torch_import && std::strcmp(t, "import_from_statement") == 0)
        python::for_each_named_child(ch, [&](TSNode c) {
          if (std::strcmp(ts_node_type(c), "wildcard_import") == 0) out.star_import = true;
        });
      return;
    }
    if (std::strcmp(t, "print_statement") == 0 || std::strcmp(t, "exec_statement") == 0) {
      if (out.python2_statements++ == 0) out.first_python2 = ts_node_start_byte(ch);
      return;
    }
    if (std::strcmp(t, "expression_statement") == 0 || std::strcmp(t, "comment") == 0 ||
        std::strcmp(t, "return_statement") == 0 || std::strcmp(t, "pass_statement") == 0)
      return;
    scan_statements(ch, src, out, depth + 1);
  });
}

}  // namespace

uint32_t python_syntax_error_count(std::string_view text) {
  auto tree = python::Tree::parse(text);
  if (!tree.valid()) return 1;
  TSNode root = tree.root();
  StatementScan scan;
  scan_statements(root, text, scan);
  if (!ts_node_has_error(root)) return scan.python2_statements;
  return std::max<uint32_t>(python::summarize(root).error_count, 1) + scan.python2_statements;
}

// Every rule needs an import of torch or a torch-based framework (or a star import that may
// re-export `torch`, which the file must then name), and an import statement names its module: a file whose bytes contain none of these names cannot have one. This is a
// necessary condition only (the import itself is then decided on the syntax tree), and it spares
// the parse of most files in a mixed repository.
bool may_import_torch_family(std::string_view text) {
  static const std::string_view kNames[] = {"torch", "lightning", "transformers", "accelerate", "timm"};
  for (std::string_view n : kNames)
    if (text.find(n) != std::string_view::npos) return true;
  return false;
}

namespace {
FileReport analyze_root(const SourceFile& source, TSNode root, const FileSettings& settings,
                        PythonAnalysisDetail* detail = nullptr);
}  // namespace

FileReport analyze_python(const SourceFile& source, const FileSettings& settings) {
  if (!may_import_torch_family(source.text())) return {};
  auto tree = python::Tree::parse(source.text());
  if (!tree.valid()) return {};
  return analyze_root(source, tree.root(), settings);
}

FileReport analyze_python_tree(const SourceFile& source, const TSTree* tree,
                               const FileSettings& settings, PythonAnalysisDetail* detail) {
  if (detail) *detail = PythonAnalysisDetail{};
  if (!may_import_torch_family(source.text()) || tree == nullptr) return {};
  return analyze_root(source, ts_tree_root_node(tree), settings, detail);
}

void finish_python_report(const SourceFile& source, const std::vector<Comment>& comments,
                          std::vector<Diagnostic> diagnostics, FileReport& report) {
  report.diagnostics = std::move(diagnostics);
  if (!report.diagnostics.empty())
    report.suppressed = apply_python_suppressions(source, comments, report.diagnostics);
  std::stable_sort(report.diagnostics.begin(), report.diagnostics.end(),
                   [](const Diagnostic& a, const Diagnostic& b) {
                     if (a.start != b.start) return a.start < b.start;
                     return a.code < b.code;
                   });
  // Findings in a function another file may call once per step wait for the whole run
  // (resolve_cross_file, analyzer/driver.h); alone, the file does not show them.
  auto cross = std::stable_partition(report.diagnostics.begin(), report.diagnostics.end(),
                                     [](const Diagnostic& d) { return d.needs_call_in_loop.empty(); });
  report.pending.assign(std::make_move_iterator(cross), std::make_move_iterator(report.diagnostics.end()));
  report.diagnostics.erase(cross, report.diagnostics.end());
}

namespace {
FileReport analyze_root(const SourceFile& source, TSNode root, const FileSettings& settings,
                        PythonAnalysisDetail* detail) {
  FileReport report;
  // Every walk below (the statement scan, the summary, the semantic model, the facts) reads
  // the tree through this index.
  python::NodeIndex index(root);
  python::ScopedNodeIndex use_index(&index);
  StatementScan scan;
  scan_statements(root, source.text(), scan);
  // One walk gives errors and comments; it is taken only when needed, and at most once.
  std::optional<python::TreeSummary> summary;
  if (ts_node_has_error(root)) {
    summary = python::summarize(root);
    uint32_t off = summary->first_error;
    if (scan.python2_statements && scan.first_python2 < off) off = scan.first_python2;
    report.syntax_error =
        SyntaxErrorNote{off, std::max<uint32_t>(summary->error_count, 1) + scan.python2_statements, {}};
  } else if (scan.python2_statements) {
    // Python 2 only: `print x` / `exec code` are not Python 3.
    report.syntax_error = SyntaxErrorNote{scan.first_python2, scan.python2_statements, {}};
  }
  // A file that only star-imports a project module (`from cgan import *`, which re-exports
  // torch) is analysed too: its `torch.` names resolve to torch (SemanticModel::unbound_name).
  if (!scan.imports_torch && !scan.star_import) return report;

  python::SemanticModel model(source.text(), root);
  if (model.too_deep()) {
    report.not_analysed = "nesting deeper than " + std::to_string(python::SemanticModel::kMaxNesting) +
                          " levels; not analysed for findings";
    return report;
  }
  FileFacts facts = python::build_facts(model, source);
  std::vector<Diagnostic> diagnostics;
  for (const Rule* rule : all_rules()) {
    const RuleInfo& info = rule->info();
    if (!info.python || !settings.enabled.count(std::string(info.code))) continue;
    rule->check(facts, settings.options, diagnostics);
  }
  std::vector<Comment> comments;
  if (!diagnostics.empty() || detail) {
    if (!summary) summary = python::summarize(root);
    comments.reserve(summary->comments.size());
    for (auto [s, e] : summary->comments) comments.push_back({s, e});
  }
  if (detail) {
    detail->rules_ran = true;
    detail->unsuppressed = diagnostics;
    detail->comments = comments;
  }
  finish_python_report(source, comments, std::move(diagnostics), report);
  report.cross_file = std::move(facts.cross_file);
  return report;
}
}  // namespace

}  // namespace gpulint
