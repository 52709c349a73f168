#include "analyzer/python/syntax.h"

extern "C" const TSLanguage* tree_sitter_python(void);

namespace gpulint::python {

const TSLanguage* python_language() {
  static const TSLanguage* lang = tree_sitter_python();
  return lang;
}

TSFieldId field_id(const char* name) {
  // ts_node_child_by_field_name looks the name up with strncmp over every field of the
  // grammar on each call; the ids never change, so remember them.
  thread_local std::vector<std::pair<const char*, TSFieldId>> cache;
  for (const auto& [p, id] : cache)
    if (p == name) return id;
  TSFieldId id = ts_language_field_id_for_name(python_language(), name,
                                               static_cast<uint32_t>(std::strlen(name)));
  cache.emplace_back(name, id);
  return id;
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
  out.reserve(ts_node_named_child_count(n));
  for_each_named_child(n, [&](TSNode ch) {
    if (!is(ch, "comment")) out.push_back(ch);
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

bool string_literal_value(TSNode n, std::string_view src, std::string* out) {
  n = unparen(n);
  if (!is(n, "string")) return false;
  std::string value;
  uint32_t c = ts_node_child_count(n);
  for (uint32_t i = 0; i < c; ++i) {
    TSNode ch = ts_node_child(n, i);
    std::string_view t = type(ch);
    if (t == "string_start") {
      std::string_view pre = text(ch, src);
      for (char p : pre) if (p == 'f' || p == 'F' || p == 'b' || p == 'B') return false;
    } else if (t == "string_content") {
      value.append(text(ch, src));
    } else if (t == "interpolation" || t == "escape_sequence") {
      if (t == "interpolation") return false;
      value.append(text(ch, src));
    }
  }
  if (out) *out = std::move(value);
  return true;
}

bool string_literal_prefix(TSNode n, std::string_view src, std::string* out) {
  n = unparen(n);
  if (!is(n, "string")) return false;
  std::string value;
  uint32_t c = ts_node_child_count(n);
  for (uint32_t i = 0; i < c; ++i) {
    TSNode ch = ts_node_child(n, i);
    std::string_view t = type(ch);
    if (t == "string_start") {
      for (char p : text(ch, src)) if (p == 'b' || p == 'B') return false;
    } else if (t == "string_content" || t == "escape_sequence") {
      value.append(text(ch, src));
    } else if (t == "interpolation") {
      break;
    }
  }
  if (out) *out = std::move(value);
  return true;
}

TreeSummary summarize(TSNode root) {
  TreeSummary s;
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
