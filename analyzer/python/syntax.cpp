#include "analyzer/python/syntax.h"

#include <mutex>
#include <string>
#include <unordered_map>

extern "C" const TSLanguage* tree_sitter_python(void);

namespace gpulint::python {

const TSLanguage* python_language() {
  static const TSLanguage* lang = tree_sitter_python();
  return lang;
}

TSFieldId field_id(const char* name) {
  // ts_node_child_by_field_name looks the name up with strncmp over every field of the
  // grammar on each call; the ids never change, so remember them.
  // A direct-mapped table keyed by the literal's address (it runs for most nodes the analysis
  // visits; a linear search over the ~100 literals cost 2% of a check). A collision only costs
  // a lookup.
  struct Slot {
    const char* name = nullptr;
    TSFieldId id = 0;
  };
  thread_local Slot slots[1024];
  std::uintptr_t h = reinterpret_cast<std::uintptr_t>(name) * 0x9E3779B97F4A7C15ull;
  Slot& s = slots[(h >> 32) % 1024];
  if (s.name != name) {
    s.id = ts_language_field_id_for_name(python_language(), name,
                                         static_cast<uint32_t>(std::strlen(name)));
    s.name = name;
  }
  return s.id;
}

const std::vector<uint8_t>& symbols_named(const char* name) {
  static std::mutex mu;
  // By content, so two literals with the same text share one table (node-based: addresses stay).
  static std::unordered_map<std::string, std::vector<uint8_t>> tables;
  std::lock_guard<std::mutex> lock(mu);
  auto [it, fresh] = tables.try_emplace(name);
  if (fresh) {
    const TSLanguage* lang = python_language();
    uint32_t count = ts_language_symbol_count(lang);
    it->second.assign(count, 0);
    for (uint32_t sym = 0; sym < count; ++sym) {
      const char* sym_name = ts_language_symbol_name(lang, static_cast<TSSymbol>(sym));
      if (sym_name && std::strcmp(sym_name, name) == 0) it->second[sym] = 1;
    }
  }
  return it->second;
}

const NodeIndex*& current_node_index() {
  thread_local const NodeIndex* index = nullptr;
  return index;
}

NodeIndex::NodeIndex(TSNode root) {
  if (ts_node_is_null(root)) return;
  tree_ = root.tree;
  // One pre-order walk with a cursor (iterative: a 10,000-deep tree needs no stack of ours
  // beyond `last_child`, one slot per level).
  TSTreeCursor c = ts_tree_cursor_new(root);
  std::vector<int32_t> path;        // the entries of the cursor's ancestors, root first
  std::vector<int32_t> last_child;  // per level: the last child entered under path[level]
  entries_.push_back(Entry{root, -1, -1, -1, 0, ts_node_is_named(root)});
  path.push_back(0);
  last_child.push_back(-1);
  for (;;) {
    if (ts_tree_cursor_goto_first_child(&c)) {
      // fall through: the new node is a first child of path.back()
    } else {
      // climb until a next sibling exists
      bool moved = false;
      while (!path.empty()) {
        if (path.size() > 1 && ts_tree_cursor_goto_next_sibling(&c)) {
          path.pop_back();
          last_child.pop_back();
          moved = true;
          break;
        }
        if (path.size() == 1 || !ts_tree_cursor_goto_parent(&c)) {
          path.clear();
          break;
        }
        path.pop_back();
        last_child.pop_back();
      }
      if (!moved) break;
    }
    TSNode n = ts_tree_cursor_current_node(&c);
    int32_t parent = path.back();
    int32_t me = static_cast<int32_t>(entries_.size());
    entries_.push_back(Entry{n, parent, -1, -1, ts_tree_cursor_current_field_id(&c), ts_node_is_named(n)});
    int32_t& prev = last_child.back();
    if (prev < 0) entries_[static_cast<std::size_t>(parent)].first_child = me;
    else entries_[static_cast<std::size_t>(prev)].next_sibling = me;
    prev = me;
    path.push_back(me);
    last_child.push_back(-1);
  }
  ts_tree_cursor_delete(&c);
  std::size_t cap = 16;
  unsigned bits = 4;
  while (cap < entries_.size() * 2) cap <<= 1, ++bits;
  mask_ = cap - 1;
  shift_ = 64 - bits;
  table_.assign(cap, -1);
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    std::size_t h = slot(entries_[i].node.id);
    while (table_[h] >= 0) h = (h + 1) & mask_;
    table_[h] = static_cast<int32_t>(i);
  }
}

CursorPool::~CursorPool() {
  for (auto& c : cursors_) ts_tree_cursor_delete(c.get());
}

TSTreeCursor* CursorPool::acquire(TSNode n) {
  if (depth_ == cursors_.size()) {
    cursors_.push_back(std::make_unique<TSTreeCursor>(ts_tree_cursor_new(n)));
  } else {
    ts_tree_cursor_reset(cursors_[depth_].get(), n);
  }
  return cursors_[depth_++].get();
}

CursorPool& cursor_pool() {
  thread_local CursorPool pool;
  return pool;
}

Tree Tree::parse(std::string_view text, const Tree* old) {
  // One parser per thread: TSParser is not thread-safe, but cheap to keep around.
  struct ParserHolder {
    TSParser* p = ts_parser_new();
    ParserHolder() { ts_parser_set_language(p, python_language()); }
    ~ParserHolder() { ts_parser_delete(p); }
  };
  thread_local ParserHolder holder;
  Tree t;
  t.tree_.reset(ts_parser_parse_string(holder.p, old ? old->raw() : nullptr, text.data(),
                                       static_cast<uint32_t>(text.size())));
  return t;
}

std::vector<TSNode> named_children(TSNode n) {
  std::vector<TSNode> out;
  if (ts_node_is_null(n)) return out;  // (ts_node_named_child_count reads through a null node)
  out.reserve(ts_node_named_child_count(n));
  for_each_named_child(n, [&](TSNode ch) {
    if (!is_extra(ch)) out.push_back(ch);
  });
  return out;
}

uint32_t named_count(TSNode n) {
  uint32_t k = 0;
  for_each_named_child(n, [&](TSNode ch) { k += is_extra(ch) ? 0 : 1; });
  return k;
}

TSNode named(TSNode n, uint32_t i) {
  TSNode out{};
  uint32_t k = 0;
  bool found = false;
  for_each_named_child(n, [&](TSNode ch) {
    if (found || is_extra(ch)) return;
    if (k++ == i) {
      out = ch;
      found = true;
    }
  });
  return out;
}

TSNode unparen(TSNode n) {
  while (is(n, "parenthesized_expression")) {
    auto ch = named_children(n);
    if (ch.size() != 1) break;
    n = ch[0];
  }
  return n;
}

namespace {
// The text of a string literal's parts up to its first `{...}` interpolation (all of it when
// there is none), escape sequences as written. False for bytes literals and non-strings.
// `*formatted`: an f-string prefix; `*complete`: no interpolation was met.
bool read_string_literal(TSNode n, std::string_view src, std::string* out, bool* formatted, bool* complete) {
  n = unparen(n);
  if (!is(n, "string")) return false;
  std::string value;
  *formatted = false;
  *complete = true;
  uint32_t c = ts_node_child_count(n);
  for (uint32_t i = 0; i < c && *complete; ++i) {
    TSNode ch = ts_node_child(n, i);
    std::string_view t = type(ch);
    if (t == "string_start") {
      for (char p : text(ch, src)) {
        if (p == 'b' || p == 'B') return false;
        if (p == 'f' || p == 'F') *formatted = true;
      }
    } else if (t == "string_content" || t == "escape_sequence") {
      value.append(text(ch, src));
    } else if (t == "interpolation") {
      *complete = false;
    }
  }
  if (out) *out = std::move(value);
  return true;
}
}  // namespace

bool string_literal_value(TSNode n, std::string_view src, std::string* out) {
  bool formatted = false, complete = true;
  std::string v;
  if (!read_string_literal(n, src, &v, &formatted, &complete) || formatted) return false;
  if (out) *out = std::move(v);
  return true;
}

bool string_literal_prefix(TSNode n, std::string_view src, std::string* out) {
  bool formatted = false, complete = true;
  return read_string_literal(n, src, out, &formatted, &complete);
}

std::vector<TSNode> call_arguments(TSNode call) {
  TSNode a = field(call, "arguments");
  if (!is(a, "argument_list")) return {};
  return named_children(a);
}

std::vector<TSNode> positional_arguments(TSNode call) {
  std::vector<TSNode> out;
  for (TSNode a : call_arguments(call))
    if (!is(a, "keyword_argument") && !is(a, "list_splat") && !is(a, "dictionary_splat")) out.push_back(a);
  return out;
}

std::string comparison_operator(TSNode cond, std::string_view src) {
  if (!is(cond, "comparison_operator") || named_count(cond) != 2) return {};
  std::string op;
  for (uint32_t i = 0; i < ts_node_child_count(cond); ++i) {
    TSNode ch = ts_node_child(cond, i);
    if (!ts_node_is_named(ch)) op += text(ch, src);
  }
  return op;
}

bool mentions_identifier(TSNode n, std::string_view name, std::string_view src) {
  if (is_null(n)) return false;
  // Iterative (a cursor, no recursion): expressions may nest thousands deep.
  TSTreeCursor cur = ts_tree_cursor_new(n);
  bool found = false;
  for (;;) {
    TSNode x = ts_tree_cursor_current_node(&cur);
    if (is(x, "identifier") && text(x, src) == name) {
      // An attribute's name (`torch.ones` for `ones`) and a keyword argument's name
      // (`f(ones=1)`) are no references to a variable of that name.
      const char* f = ts_tree_cursor_current_field_name(&cur);
      bool not_a_name = f && std::string_view(f) == "attribute";
      if (!not_a_name && f && std::string_view(f) == "name") not_a_name = is(ts_node_parent(x), "keyword_argument");
      if (!not_a_name) { found = true; break; }
    }
    if (ts_tree_cursor_goto_first_child(&cur)) continue;
    bool next = false;
    while (!(next = ts_tree_cursor_goto_next_sibling(&cur)))
      if (!ts_tree_cursor_goto_parent(&cur)) break;
    if (!next) break;
  }
  ts_tree_cursor_delete(&cur);
  return found;
}

TreeSummary summarize(TSNode root) {
  TreeSummary s;
  if (const NodeIndex* ix = current_node_index(); ix && ix->find(root) == 0) {
    // The index holds every node in the cursor walk's (pre-)order.
    for (std::size_t i = 0; i < ix->size(); ++i) {
      TSNode n = ix->at(static_cast<int32_t>(i)).node;
      if (ts_node_is_error(n) || ts_node_is_missing(n)) {
        if (s.error_count++ == 0) s.first_error = ts_node_start_byte(n);
      }
      if (is(n, "comment")) s.comments.emplace_back(ts_node_start_byte(n), ts_node_end_byte(n));
    }
    return s;
  }
  TSTreeCursor cur = ts_tree_cursor_new(root);
  for (;;) {
    TSNode n = ts_tree_cursor_current_node(&cur);
    bool descend = true;
    if (ts_node_is_error(n) || ts_node_is_missing(n)) {
      if (s.error_count++ == 0) s.first_error = ts_node_start_byte(n);
    }
    if (is(n, "comment")) {
      s.comments.emplace_back(ts_node_start_byte(n), ts_node_end_byte(n));
      descend = false;
    }
    if (descend && ts_tree_cursor_goto_first_child(&cur)) continue;
    while (!ts_tree_cursor_goto_next_sibling(&cur)) {
      if (!ts_tree_cursor_goto_parent(&cur)) { ts_tree_cursor_delete(&cur); return s; }
    }
  }
}

}  // namespace gpulint::python
