// Thin C++ layer over tree-sitter's C API for the Python grammar: an owning Tree, and Node
// helpers that read types, fields and text. Nothing here knows about PyTorch.
//
// Grammar: tree-sitter-python 0.25.0 (node types in its src/node-types.json).
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <tree_sitter/api.h>

namespace gpulint::python {

/// An owned tree-sitter syntax tree over `text` (which must outlive it).
class Tree {
 public:
  /// Parses `text` (UTF-8). Never fails on bad syntax: error nodes mark what did not parse.
  /// `old` (optional) enables incremental re-parse after ts_tree_edit.
  static Tree parse(std::string_view text, const Tree* old = nullptr);
  TSNode root() const { return ts_tree_root_node(tree_.get()); }
  TSTree* raw() const { return tree_.get(); }
  bool valid() const { return tree_ != nullptr; }

 private:
  struct Deleter { void operator()(TSTree* t) const { ts_tree_delete(t); } };
  std::unique_ptr<TSTree, Deleter> tree_;
};

/// The Python grammar (tree_sitter_python()).
const TSLanguage* python_language();

inline bool is_null(TSNode n) { return ts_node_is_null(n); }
inline std::string_view type(TSNode n) { return ts_node_type(n); }
/// The grammar's symbols named `name`: a table indexed by symbol id (ts_node_symbol), 1 where
/// ts_language_symbol_name(python_language(), symbol) equals `name`. Built once per distinct name
/// (thread-safe); the result lives as long as the program.
const std::vector<uint8_t>& symbols_named(const char* name);
namespace detail {
// is()'s per-thread cache of symbols_named, keyed by the address of the literal it is given.
struct SymbolSlot {
  const char* name = nullptr;
  const uint8_t* table = nullptr;
  uint32_t size = 0;
};
inline thread_local SymbolSlot symbol_slots[512];
}  // namespace detail
/// True when `n` is not null and its type (ts_node_type) is `t`, which must be a string literal
/// (or any string that never changes while the thread lives: the answer is cached by its
/// address, as field_id's ids are). Reads the node's symbol id instead of comparing its type's
/// name: the analysis asks this for nearly every node it visits.
inline bool is(TSNode n, const char* t) {
  if (ts_node_is_null(n)) return false;
  std::uintptr_t h = (reinterpret_cast<std::uintptr_t>(t) * 0x9E3779B97F4A7C15ull) >> 55;  // 9 bits
  detail::SymbolSlot& slot = detail::symbol_slots[h];
  if (slot.name != t) {
    const std::vector<uint8_t>& table = symbols_named(t);
    slot = detail::SymbolSlot{t, table.data(), static_cast<uint32_t>(table.size())};
  }
  TSSymbol sym = ts_node_symbol(n);
  return sym < slot.size ? slot.table[sym] != 0 : std::strcmp(ts_node_type(n), t) == 0;
}
/// The grammar's id of a field name (cached per name; names are string literals).
TSFieldId field_id(const char* name);
/// The first child of `n` in field `name` (a string literal), or a null node.
inline TSNode field(TSNode n, const char* name);
inline uint32_t start(TSNode n) { return ts_node_start_byte(n); }
inline uint32_t end(TSNode n) { return ts_node_end_byte(n); }
inline std::string_view text(TSNode n, std::string_view src) {
  return src.substr(start(n), end(n) - start(n));
}
/// True for the grammar's extras, which tree-sitter places among the children of whatever
/// node is open where they occur: `comment` and `line_continuation` (a backslash-newline;
/// tree-sitter-python grammar.js, `extras`). `a, b = \\\n c, d` has a line_continuation
/// between the assignment's left and right, and one inside a tuple spread over lines.
inline bool is_extra(TSNode n) { return ts_node_is_extra(n); }
/// The number of named children of `n` that are not extras (comments, line continuations).
uint32_t named_count(TSNode n);
/// The `i`-th named child of `n` that is not an extra (0-based), or a null node.
TSNode named(TSNode n, uint32_t i);
/// The parent of `n` (null for the root).
inline TSNode parent(TSNode n);
inline bool same(TSNode a, TSNode b) { return ts_node_eq(a, b); }

/// A flat index of every node of one tree (named and anonymous, extras included): each node's
/// parent, first child, next sibling and the field it fills in its parent, in arrays, with a
/// hash table from a node's id to its entry. tree-sitter computes a node's children, field
/// children and parent by walking its subtrees on every call (ts_node_child_by_field_id,
/// ts_node_parent, cursor iteration); the analysis asks for the same ones many times, so the
/// helpers below read this index instead while a ScopedNodeIndex for the node's tree is open on
/// the thread. It answers exactly as tree-sitter does (tests/syntax_index_test.cpp compares
/// every node and field of the fixtures). Built in one cursor walk: O(nodes), no recursion.
class NodeIndex {
 public:
  struct Entry {
    TSNode node;
    int32_t parent = -1;
    int32_t first_child = -1;
    int32_t next_sibling = -1;
    TSFieldId field = 0;  // the field this node fills in its parent (0: none)
    bool named = false;
  };
  explicit NodeIndex(TSNode root);
  /// The tree this index describes.
  const TSTree* tree() const { return tree_; }
  /// The entry of `n`, or -1 when `n` is null or not a node of this tree.
  int32_t find(TSNode n) const {
    if (table_.empty() || n.tree != tree_ || !n.id) return -1;
    std::size_t h = slot(n.id);
    for (;;) {
      int32_t i = table_[h];
      if (i < 0) return -1;
      if (entries_[static_cast<std::size_t>(i)].node.id == n.id) return i;
      h = (h + 1) & mask_;
    }
  }
  const Entry& at(int32_t i) const { return entries_[static_cast<std::size_t>(i)]; }
  std::size_t size() const { return entries_.size(); }

 private:
  std::size_t slot(const void* id) const {
    return static_cast<std::size_t>((reinterpret_cast<std::uintptr_t>(id) * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  const TSTree* tree_ = nullptr;
  std::vector<Entry> entries_;
  std::vector<int32_t> table_;
  std::size_t mask_ = 0;
  unsigned shift_ = 63;
};

/// The index the helpers use on this thread (null when none is open).
const NodeIndex*& current_node_index();
/// Makes `index` the helpers' index on this thread for this object's lifetime (restoring the
/// previous one after).
class ScopedNodeIndex {
 public:
  explicit ScopedNodeIndex(const NodeIndex* index) : saved_(current_node_index()) { current_node_index() = index; }
  ~ScopedNodeIndex() { current_node_index() = saved_; }
  ScopedNodeIndex(const ScopedNodeIndex&) = delete;
  ScopedNodeIndex& operator=(const ScopedNodeIndex&) = delete;

 private:
  const NodeIndex* saved_;
};

inline TSNode field(TSNode n, const char* name) {
  if (const NodeIndex* ix = current_node_index()) {
    int32_t i = ix->find(n);
    if (i >= 0) {
      TSFieldId id = field_id(name);
      for (int32_t c = ix->at(i).first_child; c >= 0; c = ix->at(c).next_sibling)
        if (ix->at(c).field == id) return ix->at(c).node;
      return TSNode{};
    }
  }
  return ts_node_child_by_field_id(n, field_id(name));
}
inline TSNode parent(TSNode n) {
  if (const NodeIndex* ix = current_node_index()) {
    int32_t i = ix->find(n);
    if (i >= 0) {
      int32_t p = ix->at(i).parent;
      return p >= 0 ? ix->at(p).node : TSNode{};
    }
  }
  return ts_node_parent(n);
}

/// Tree cursors kept per thread and reused, one per nesting level of for_each_named_child
/// (ts_tree_cursor_new allocates the cursor's stack on the heap; ts_tree_cursor_reset keeps it).
class CursorPool {
 public:
  ~CursorPool();
  /// A cursor reset to `n`, for the current nesting level; release() gives it back.
  TSTreeCursor* acquire(TSNode n);
  void release() { --depth_; }

 private:
  std::vector<std::unique_ptr<TSTreeCursor>> cursors_;
  std::size_t depth_ = 0;
};
/// This thread's pool.
CursorPool& cursor_pool();

/// Calls `f(child)` for each named child of `n` in order, comments included. Uses a tree
/// cursor: O(children), where indexing with ts_node_named_child(n, i) is O(i) per call. `f`
/// may call for_each_named_child again (each nesting level gets its own pooled cursor).
/// A node without named children (a leaf: identifiers, literals, operators) returns at once:
/// its subtree's named-child count (O(1), kept by tree-sitter) is 0, and the recursive walks
/// reach leaves about as often as inner nodes.
template <class F>
void for_each_named_child(TSNode n, F&& f) {
  if (const NodeIndex* ix = current_node_index()) {
    int32_t i = ix->find(n);
    if (i >= 0) {
      for (int32_t c = ix->at(i).first_child; c >= 0; c = ix->at(c).next_sibling)
        if (ix->at(c).named) f(ix->at(c).node);
      return;
    }
  }
  if (ts_node_is_null(n) || ts_node_named_child_count(n) == 0) return;
  CursorPool& pool = cursor_pool();
  struct Release {
    CursorPool& p;
    ~Release() { p.release(); }
  } release{pool};
  TSTreeCursor* c = pool.acquire(n);
  if (ts_tree_cursor_goto_first_child(c)) {
    do {
      TSNode ch = ts_tree_cursor_current_node(c);
      if (ts_node_is_named(ch)) f(ch);
    } while (ts_tree_cursor_goto_next_sibling(c));
  }
}

/// The named children of `n`, skipping extras (comments, line continuations).
std::vector<TSNode> named_children(TSNode n);

/// Removes redundant parentheses: `((x))` -> `x`.
TSNode unparen(TSNode n);

/// The value of a string literal node without prefix and quotes, when it has no
/// interpolation; false for f-strings and concatenations with non-literals.
bool string_literal_value(TSNode n, std::string_view src, std::string* out);

/// The constant text a string literal starts with: its whole value for a plain literal, the
/// text before the first `{...}` interpolation for an f-string (`f"cuda:{rank}"` gives
/// "cuda:"). False for bytes literals and for anything that is not a `string` node. Escape
/// sequences are kept as written (as string_literal_value does).
bool string_literal_prefix(TSNode n, std::string_view src, std::string* out);

/// The nodes of a call's argument list (positional, keyword_argument, list_splat,
/// dictionary_splat), in order; empty when the call has none or is no call.
std::vector<TSNode> call_arguments(TSNode call);

/// The positional arguments of a call: call_arguments without keyword arguments and splats.
std::vector<TSNode> positional_arguments(TSNode call);

/// The operator of a comparison of exactly two operands, its tokens concatenated (`a == b` gives
/// "==", `x not in y` "notin", `a is not b` "isnot"); empty for anything else (`a < b < c`, a node
/// that is no comparison_operator).
std::string comparison_operator(TSNode cond, std::string_view src);

/// True when the subtree `n` holds an identifier spelled `name` (a name read or bound there);
/// an attribute's name (`x.name`) and a keyword argument's name (`f(name=1)`) do not count.
bool mentions_identifier(TSNode n, std::string_view name, std::string_view src);

/// Collects every comment node's byte range (what suppressions are read from), the first
/// ERROR/MISSING node's offset and the number of them. One walk.
struct TreeSummary {
  std::vector<std::pair<uint32_t, uint32_t>> comments;
  uint32_t error_count = 0;
  uint32_t first_error = 0;
};
TreeSummary summarize(TSNode root);

}  // namespace gpulint::python
