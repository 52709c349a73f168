#include "analyzer/analysis.h"

#include <algorithm>
#include <cstring>

#include "analyzer/python/facts_builder.h"
#include "analyzer/python/semantic_model.h"
#include "analyzer/python/syntax.h"

namespace gpulint {
namespace {

// Cheap pre-check: does the module import torch or a torch-based framework? Visits statements
// only (imports are statements), never expressions, so it costs a small part of the parse.
bool imports_torch_family(TSNode n, std::string_view src, int depth = 0) {
  static const char* kFamily[] = {"torch", "torchvision", "lightning", "pytorch_lightning",
                                  "transformers", "accelerate", "timm", "torchaudio", "torchtext"};
  if (depth > 200) return false;
  uint32_t c = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < c; ++i) {
    TSNode ch = ts_node_named_child(n, i);
    const char* t = ts_node_type(ch);
    if (std::strcmp(t, "import_statement") == 0 || std::strcmp(t, "import_from_statement") == 0) {
      // The first identifier of each imported module path (`import torch.nn as nn`,
      // `from transformers import Trainer`): relative imports never count.
      uint32_t k = ts_node_child_count(ch);
      for (uint32_t j = 0; j < k; ++j) {
        const char* fname = ts_node_field_name_for_child(ch, j);
        if (!fname) continue;
        std::string_view fn(fname);
        bool from = std::strcmp(t, "import_from_statement") == 0;
        if ((from && fn != "module_name") || (!from && fn != "name")) continue;
        TSNode mod = ts_node_child(ch, j);
        if (std::strcmp(ts_node_type(mod), "aliased_import") == 0) mod = python::field(mod, "name");
        if (std::strcmp(ts_node_type(mod), "dotted_name") != 0) continue;
        std::string_view first = python::text(ts_node_named_child(mod, 0), src);
        for (const char* fam : kFamily)
          if (first == fam) return true;
      }
      continue;
    }
    if (std::strcmp(t, "expression_statement") == 0 || std::strcmp(t, "comment") == 0 ||
        std::strcmp(t, "return_statement") == 0 || std::strcmp(t, "pass_statement") == 0)
      continue;
    if (imports_torch_family(ch, src, depth + 1)) return true;
  }
  return false;
}

uint32_t first_error_offset(TSNode root, uint32_t* count) {
  python::TreeSummary s = python::summarize(root);
  *count = s.error_count;
  return s.first_error;
}

}  // namespace

uint32_t python_syntax_error_count(std::string_view text) {
  auto tree = python::Tree::parse(text);
  if (!tree.valid()) return 1;
  TSNode root = tree.root();
  if (!ts_node_has_error(root)) return 0;
  uint32_t count = 0;
  first_error_offset(root, &count);
  return std::max<uint32_t>(count, 1);
}

FileReport analyze_python(const SourceFile& source, const FileSettings& settings) {
  FileReport report;
  auto tree = python::Tree::parse(source.text());
  if (!tree.valid()) return report;
  TSNode root = tree.root();
  if (ts_node_has_error(root)) {
    uint32_t count = 0;
    uint32_t off = first_error_offset(root, &count);
    report.syntax_error = SyntaxErrorNote{off, std::max<uint32_t>(count, 1)};
  }
  if (!imports_torch_family(root, source.text())) return report;

  python::SemanticModel model(source.text(), root);
  if (model.too_deep()) {
    report.not_analysed = "nesting deeper than " + std::to_string(python::SemanticModel::kMaxNesting) +
                          " levels; not analysed for findings";
    return report;
  }
  FileFacts facts = python::build_facts(model, source);
  for (const Rule* rule : all_rules()) {
    const RuleInfo& info = rule->info();
    if (!info.python || !settings.enabled.count(std::string(info.code))) continue;
    rule->check(facts, settings.options, report.diagnostics);
  }
  if (!report.diagnostics.empty()) {
    python::TreeSummary sum = python::summarize(root);
    std::vector<Comment> comments;
    comments.reserve(sum.comments.size());
    for (auto [s, e] : sum.comments) comments.push_back({s, e});
    report.suppressed = apply_python_suppressions(source, comments, report.diagnostics);
  }
  std::stable_sort(report.diagnostics.begin(), report.diagnostics.end(),
                   [](const Diagnostic& a, const Diagnostic& b) {
                     if (a.start != b.start) return a.start < b.start;
                     return a.code < b.code;
                   });
  return report;
}

}  // namespace gpulint
