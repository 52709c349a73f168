// NodeIndex (analyzer/python/syntax.h) must answer exactly as tree-sitter does: for every node
// of every Python fixture (and a few hand-made trees: errors, comments, line continuations,
// deep nesting), its named children in order, its child in each of the grammar's fields, and
// its parent — read once with the index open and once without; and is(), which compares symbol
// ids, agrees with the node's type name.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "analyzer/python/syntax.h"
#include "tests/test_util.h"

namespace fs = std::filesystem;
using namespace gpulint::python;
using gpulint::testing::read_file;

namespace {

std::vector<TSNode> named_kids(TSNode n) {
  std::vector<TSNode> out;
  for_each_named_child(n, [&](TSNode c) { out.push_back(c); });
  return out;
}

// Compares the index's answers with tree-sitter's for every node of `text`'s tree; returns the
// number of nodes compared.
std::size_t compare_all(const std::string& text, const std::string& what) {
  Tree tree = Tree::parse(text);
  EXPECT_TRUE(tree.valid()) << what;
  NodeIndex index(tree.root());
  uint32_t fields = ts_language_field_count(python_language());
  std::size_t compared = 0;
  // Every node, reached with a plain cursor walk (no index open).
  TSTreeCursor cur = ts_tree_cursor_new(tree.root());
  for (;;) {
    TSNode n = ts_tree_cursor_current_node(&cur);
    std::vector<TSNode> kids_ts = named_kids(n);
    std::vector<TSNode> field_ts;
    for (uint32_t f = 1; f <= fields; ++f) field_ts.push_back(ts_node_child_by_field_id(n, static_cast<TSFieldId>(f)));
    TSNode parent_ts = ts_node_parent(n);
    // is() reads the symbol id: it must agree with the type's name, aliases and ERROR included.
    EXPECT_TRUE(is(n, ts_node_type(n))) << what << " type " << ts_node_type(n);
    for (const char* name : {"call", "identifier", "attribute", "ERROR", "block", "string", "comment",
                             "(", "=", "for_statement", "expression_statement", "keyword_argument",
                             "integer", "as_pattern_target", "module", "line_continuation"})
      EXPECT_EQ(is(n, name), std::strcmp(ts_node_type(n), name) == 0)
          << what << " is(" << name << ") at byte " << ts_node_start_byte(n);
    {
      ScopedNodeIndex use(&index);
      EXPECT_GE(index.find(n), 0) << what;
      std::vector<TSNode> kids_ix = named_kids(n);
      EXPECT_EQ(kids_ts.size(), kids_ix.size()) << what << " at byte " << ts_node_start_byte(n);
      for (std::size_t i = 0; i < kids_ts.size() && i < kids_ix.size(); ++i)
        EXPECT_TRUE(ts_node_eq(kids_ts[i], kids_ix[i])) << what << " child " << i;
      for (uint32_t f = 1; f <= fields; ++f) {
        const char* name = ts_language_field_name_for_id(python_language(), static_cast<TSFieldId>(f));
        TSNode got = field(n, name);
        TSNode want = field_ts[f - 1];
        EXPECT_EQ(ts_node_is_null(got), ts_node_is_null(want)) << what << " field " << name << " at byte "
                                                               << ts_node_start_byte(n);
        if (!ts_node_is_null(got) && !ts_node_is_null(want))
          EXPECT_TRUE(ts_node_eq(got, want)) << what << " field " << name;
      }
      TSNode parent_ix = parent(n);
      EXPECT_EQ(ts_node_is_null(parent_ix), ts_node_is_null(parent_ts)) << what;
      if (!ts_node_is_null(parent_ix) && !ts_node_is_null(parent_ts))
        EXPECT_TRUE(ts_node_eq(parent_ix, parent_ts)) << what << " parent at byte " << ts_node_start_byte(n);
    }
    ++compared;
    if (ts_tree_cursor_goto_first_child(&cur)) continue;
    bool done = false;
    while (!ts_tree_cursor_goto_next_sibling(&cur)) {
      if (!ts_tree_cursor_goto_parent(&cur)) { done = true; break; }
    }
    if (done) break;
  }
  ts_tree_cursor_delete(&cur);
  EXPECT_EQ(compared, index.size()) << what;
  return compared;
}

TEST(NodeIndex, AnswersAsTreeSitterOnEveryFixture) {
  fs::path root = fs::path(GPULINT_SOURCE_DIR) / "fixtures";
  std::size_t files = 0, nodes = 0;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file() || e.path().extension() != ".py") continue;
    nodes += compare_all(read_file(e.path()), e.path().string());
    ++files;
  }
  EXPECT_GT(files, 100u);
  EXPECT_GT(nodes, 100000u);
}

TEST(NodeIndex, AnswersAsTreeSitterOnBrokenAndOddTrees) {
  compare_all("def f(:\n    x = (1,\n", "syntax error");
  compare_all("print 'hi'\nexec code\n", "python 2");
  compare_all("a, b = \\\n  c, d  # c\n# only a comment\nif x:  # why\n    pass\n", "continuations and comments");
  compare_all("x = f(a)(b)[c].d(**k, *a)\nlambda: (yield)\n", "calls and lambdas");
  std::string deep;
  for (int i = 0; i < 3000; ++i) deep += "(";
  deep += "1";
  for (int i = 0; i < 3000; ++i) deep += ")";
  compare_all(deep + "\n", "3,000-deep parentheses");
  compare_all("", "empty file");
}

TEST(NodeIndex, NodesOfAnotherTreeAreNotFound) {
  Tree a = Tree::parse("x = 1\n");
  Tree b = Tree::parse("x = 1\n");
  NodeIndex index(a.root());
  EXPECT_GE(index.find(a.root()), 0);
  EXPECT_EQ(index.find(b.root()), -1);
  EXPECT_EQ(index.find(TSNode{}), -1);
  // With the index open, a node of another tree is still answered by tree-sitter.
  ScopedNodeIndex use(&index);
  TSNode assign = named(named(b.root(), 0), 0);
  EXPECT_TRUE(is(assign, "assignment"));
  EXPECT_TRUE(is(field(assign, "left"), "identifier"));
  EXPECT_TRUE(ts_node_eq(parent(assign), named(b.root(), 0)));
}

}  // namespace
