// Jupyter notebooks (.ipynb, nbformat 4): the code cells analysed as one Python module.
//
// The module text is built from the notebook's code cells in order. Before each cell comes one
// separator comment line (`# <nonce>:cell <k>`); the cell's lines follow unchanged, so every
// module line maps to exactly one (cell, line-in-cell). IPython syntax that is not Python —
// line magics (`%time f()`), shell lines (`!pip install x`, `x = !ls`), help lines (`obj?`),
// and every line of a cell that starts with a cell magic other than %%time / %%timeit /
// %%capture (whose body is Python) — is replaced by a placeholder line of the same
// indentation (`pass  # <nonce>:magic <id>`), so it is never parsed as Python, never produces a
// diagnostic, and is restored byte for byte when the notebook is written back.
//
// Writing back (`--fix`): the fixed module text is split at the separators, placeholders are
// restored, and only the cells whose text changed get a new `source`; everything else of the
// JSON document (key order, metadata, outputs, the file's indent and final newline) is kept,
// so a diff of the notebook shows only the fixed cells. Cells are numbered 1-based over every
// cell of the notebook (markdown and raw cells counted), the order JupyterLab shows them in.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/source.h"

namespace gpulint {

/// True when `path` names a notebook (extension `.ipynb`, any case).
bool is_notebook_path(std::string_view path);

/// Where a module position lies in the notebook.
struct CellPosition {
  uint32_t cell = 0;    ///< 1-based index in the notebook's `cells` array (all cell types)
  uint32_t line = 0;    ///< 0-based line inside that cell's source
  uint32_t column = 0;  ///< 0-based column in Unicode code points (same as in the module)
};

class Notebook {
 public:
  /// Parses notebook bytes (`path` only names the file in errors). Errors (nullopt, `*error`
  /// set to a sentence): invalid JSON (with its byte position), no `cells` list, nbformat
  /// older than 4, a cell whose `source` is neither a string nor a list of strings, text that
  /// is not UTF-8. A notebook whose kernel language is not Python parses, with
  /// `not_python()` naming that language and an empty module.
  static std::optional<Notebook> parse(std::string_view bytes, LoadError* error);

  /// The code cells as one Python module (see the file comment); ends with '\n' unless empty.
  const std::string& module_text() const { return module_; }
  /// The kernel language when it is not Python (e.g. "R"), else empty.
  const std::string& not_python() const { return not_python_; }
  /// Number of code cells.
  std::size_t code_cells() const { return spans_.size(); }
  /// Number of cell lines in the module (separator lines not counted).
  std::size_t cell_lines() const;

  /// The cell and in-cell line of a 0-based line of `module_text()` (a module parsed from it,
  /// or from a fixed text that kept the separators). Separator lines map to the first line of
  /// the cell that follows them. `module` must be the SourceFile built from that text.
  CellPosition cell_position(const SourceFile& module, uint32_t offset) const;

  /// True when 0-based module `line` of `module` is a placeholder for IPython syntax.
  bool is_placeholder_line(const SourceFile& module, uint32_t line) const;

  /// The notebook bytes with the code cells replaced by those of `fixed_module` (a version of
  /// module_text() with fix edits applied). Cells whose text did not change keep their JSON
  /// untouched. nullopt with `*error` when the separators were damaged (an edit removed one).
  std::optional<std::string> write_back(std::string_view fixed_module, std::string* error) const;

  /// Notebook bytes serialised as this notebook's file is (indent, final newline); exposed for
  /// the round-trip test: serialize(parse(bytes)) == bytes for an nbformat-written file.
  std::string serialize() const;

 private:
  struct Span {
    std::size_t json_index = 0;   ///< index in `cells`
    std::string original;         ///< the cell's source joined into one string
    bool source_was_string = false;
  };
  struct Impl;
  std::shared_ptr<const Impl> doc_;   ///< the parsed JSON document (immutable, shared by copies)
  std::vector<Span> spans_;
  std::vector<uint32_t> separator_lines_;   ///< module line of each code cell's separator
  std::vector<std::string> placeholders_;   ///< original text of placeholder id i
  std::string nonce_;
  std::string module_;
  std::string not_python_;
  int indent_ = 1;                ///< -1: compact (no newlines)
  bool final_newline_ = true;
};

}  // namespace gpulint
