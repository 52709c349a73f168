// C++ AST → language-neutral facts (analyzer/facts.h). Every decision is made on clang's
// resolved declarations and types — `torch::data::make_data_loader`, `torch::data::
// DataLoaderOptions`, `torch::nn::Module` / `torch::nn::ModuleHolder<…>`, `at::Tensor`,
// `std::vector<at::Tensor>`, `c10::NoGradGuard` — never on the spelling of names in the text.
#pragma once

#include "analyzer/facts.h"

namespace clang {
class ASTContext;
}

namespace gpulint::cpp {

/// Builds the facts of the main file of `ctx` (whose traversal scope the caller may have
/// limited to the main file's top-level declarations). Byte ranges are offsets into the main
/// file's buffer, which is the analysed SourceFile's text. Edits are built as clang
/// tooling::Replacements and carried as plain byte-range Edits, so they outlive the AST.
/// Never throws.
FileFacts build_facts(clang::ASTContext& ctx);

}  // namespace gpulint::cpp
