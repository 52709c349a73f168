// The rule interface and the registry. One rule per file under rules/.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/diagnostic.h"
#include "analyzer/facts.h"

namespace gpulint {

enum class FixSafety { None, Safe, Unsafe };

/// Static metadata and documentation of a rule (shown by `gpulint rule CODE`, docs/rules.md,
/// SARIF, LSP hover).
struct RuleInfo {
  std::string_view code;       ///< "DL001"
  std::string_view name;       ///< "dataloader-no-workers"
  std::string_view summary;    ///< one line
  Severity severity = Severity::Warning;
  bool python = true;
  bool cpp = false;
  FixSafety fix = FixSafety::None;
  /// Markdown with the sections: What it does / Why is this bad / Example / Use instead /
  /// Fix safety / Measured cost.
  std::string_view doc;
};

/// Options that change what a rule proposes (from [tool.gpulint] / gpulint.toml).
struct RuleOptions {
  /// The worker count DL001's fix writes. "auto" writes `min(8, os.cpu_count() or 1)`.
  std::string dataloader_num_workers = "auto";
  /// The torch version whose defaults apply ("2.11").
  std::string torch_version = "2.11";
};

/// Where rules put their diagnostics.
using DiagnosticSink = std::vector<Diagnostic>;

class Rule {
 public:
  virtual ~Rule() = default;
  virtual const RuleInfo& info() const = 0;
  /// Appends the rule's diagnostics for one file. Must not throw.
  virtual void check(const FileFacts& facts, const RuleOptions& options,
                     DiagnosticSink& out) const = 0;
};

/// Every rule, sorted by code. The registry lives in rules/registry.cpp.
const std::vector<const Rule*>& all_rules();
/// The rule with this code, or nullptr.
const Rule* find_rule(std::string_view code);

}  // namespace gpulint
