// The LSP server's open documents: the text the editor has (kept in sync through incremental
// `didChange` edits), its tree-sitter tree (edited with ts_tree_edit and re-parsed
// incrementally from the old tree), and file:// URI <-> path conversion.
//
// LSP positions are 0-based lines and UTF-16 code-unit columns (the default
// `positionEncoding`, the only one this server announces); everything else in gpulint uses byte
// offsets into the UTF-8 text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/python/syntax.h"
#include "analyzer/source.h"

namespace gpulint::lsp {

/// An LSP Range: [start, end) as 0-based line / UTF-16 column pairs.
struct Range {
  LineCol start;
  LineCol end;
};

/// The local path of a `file://` URI (percent-decoding applied, `file:///C:/…` kept as is);
/// nullopt for other schemes (`untitled:`) or a malformed URI.
std::optional<std::string> uri_to_path(std::string_view uri);
/// A `file://` URI for an absolute path (RFC 3986 percent-encoding of everything but
/// unreserved characters and '/').
std::string path_to_uri(std::string_view path);

class Document {
 public:
  /// `uri` as the client sent it; `path`: uri_to_path(uri) or the URI itself for other schemes
  /// (used for configuration lookup and SourceFile::path). `text` is the full content.
  Document(std::string uri, std::string path, std::string language_id, int64_t version,
           std::string text);

  const std::string& uri() const { return uri_; }
  const std::string& path() const { return path_; }
  const std::string& language_id() const { return language_id_; }
  int64_t version() const { return version_; }
  void set_version(int64_t v) { version_ = v; }
  const std::string& text() const { return text_; }

  /// Applies one `TextDocumentContentChangeEvent`: replaces `range` (UTF-16 positions; a
  /// position past a line's end means that line's end, a line past the last means the end
  /// of the text, a reversed range is swapped) with `new_text`, and records the edit on the
  /// tree with ts_tree_edit; or, with no range, replaces the whole text (the tree is then
  /// re-parsed from scratch). Never throws on bad positions.
  void apply_change(const std::optional<Range>& range, std::string_view new_text);

  /// The byte offset of an LSP position in the current text (clamped as in apply_change).
  uint32_t offset_of(LineCol pos) const;

  /// The tree of the current text: re-parsed here if edits arrived since the last call
  /// (incrementally when the old tree was edited, otherwise from scratch). nullptr only if
  /// tree-sitter gave up (it does not on any input, so this is defensive).
  const python::Tree* tree();

  /// Number of parses done, and how many of them reused the old tree (tests, benchmarks).
  uint32_t parses() const { return parses_; }
  uint32_t incremental_parses() const { return incremental_parses_; }

 private:
  void index_lines();

  std::string uri_;
  std::string path_;
  std::string language_id_;
  int64_t version_ = 0;
  std::string text_;
  std::vector<uint32_t> line_starts_;  ///< byte offset of each line of text_
  python::Tree tree_;                  ///< of text_ when !stale_, edited otherwise
  bool has_tree_ = false;
  bool stale_ = true;
  bool tree_edited_ = false;           ///< tree_ was edited with ts_tree_edit (reusable)
  uint32_t parses_ = 0;
  uint32_t incremental_parses_ = 0;
};

}  // namespace gpulint::lsp
