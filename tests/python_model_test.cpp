// The Python front end's tree helpers that the analysis' speed rests on: SemanticModel::parent
// (memoised descents) must agree with tree-sitter's own ts_node_parent for every node, whatever
// order the questions come in, and for_each_named_child (pooled cursors) must visit exactly the
// named children, also when nested.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer/python/facts_builder.h"
#include "analyzer/python/semantic_model.h"
#include "analyzer/source.h"
#include "analyzer/python/syntax.h"

namespace fs = std::filesystem;
using namespace gpulint::python;

namespace {

// The DEV003 facts the front end builds for `text` (a file named step.py). They hold only
// ranges, names and edits, so they outlive the tree.
std::vector<gpulint::CreatedThenMoved> created_then_moved(const std::string& text) {
  gpulint::SourceFile source("step.py", text);
  Tree tree = Tree::parse(source.text());
  SemanticModel m(source.text(), tree.root());
  return build_facts(m, source).created_then_moved;
}

std::vector<fs::path> python_fixtures() {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(GPULINT_SOURCE_DIR) / "fixtures" / "python"))
    if (e.is_regular_file() && e.path().extension() == ".py") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every node (named or not) below `n`, in pre-order, through ts_node_child (no helpers under test).
void all_nodes(TSNode n, std::vector<TSNode>& out) {
  out.push_back(n);
  uint32_t c = ts_node_child_count(n);
  for (uint32_t i = 0; i < c; ++i) all_nodes(ts_node_child(n, i), out);
}

}  // namespace

TEST(PythonModel, ParentAgreesWithTreeSitterInAnyOrder) {
  auto files = python_fixtures();
  ASSERT_GT(files.size(), 10u);
  std::size_t checked = 0;
  for (const auto& f : files) {
    std::string src = read(f);
    Tree tree = Tree::parse(src);
    ASSERT_TRUE(tree.valid()) << f;
    std::vector<TSNode> nodes;
    all_nodes(tree.root(), nodes);
    // Deepest-last order first (the memo then answers ancestors), then a fresh model asked
    // top-down, then the first model asked again (memo hits only).
    SemanticModel bottom_up(src, tree.root());
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it)
      ASSERT_TRUE(same(bottom_up.parent(*it), ts_node_parent(*it)) || (is_null(bottom_up.parent(*it)) && is_null(ts_node_parent(*it))))
          << f << " at byte " << start(*it) << " (" << type(*it) << ")";
    SemanticModel top_down(src, tree.root());
    for (TSNode n : nodes) {
      TSNode p = top_down.parent(n), q = ts_node_parent(n);
      ASSERT_TRUE(same(p, q) || (is_null(p) && is_null(q))) << f << " at byte " << start(n) << " (" << type(n) << ")";
      TSNode again = bottom_up.parent(n);
      ASSERT_TRUE(same(again, q) || (is_null(again) && is_null(q))) << f << " at byte " << start(n);
      ++checked;
    }
  }
  EXPECT_GT(checked, 10000u);
}

TEST(PythonModel, NestedForEachNamedChildVisitsExactlyTheNamedChildren) {
  std::string src =
      "import torch\n"
      "def f(a, b=1):\n"
      "    for x in range(3):\n"
      "        if x:\n"
      "            a.append(torch.ones(x).cuda())  # c\n"
      "    return [y for y in a]\n";
  Tree tree = Tree::parse(src);
  std::vector<TSNode> nodes;
  all_nodes(tree.root(), nodes);
  // For each node, its named children by index, and by for_each_named_child while a nested
  // for_each_named_child runs over each child (the pool's second level) and a third inside it.
  for (TSNode n : nodes) {
    std::vector<TSNode> expected;
    for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) expected.push_back(ts_node_named_child(n, i));
    std::vector<TSNode> got;
    for_each_named_child(n, [&](TSNode ch) {
      got.push_back(ch);
      std::size_t inner = 0;
      for_each_named_child(ch, [&](TSNode g) {
        EXPECT_TRUE(same(ts_node_named_child(ch, static_cast<uint32_t>(inner)), g));
        ++inner;
        for_each_named_child(g, [&](TSNode) {});
      });
      EXPECT_EQ(inner, ts_node_named_child_count(ch));
    });
    ASSERT_EQ(got.size(), expected.size()) << type(n);
    for (std::size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(same(got[i], expected[i])) << type(n) << " child " << i;
  }
}

namespace {

// The attribute expression `self.<attr>` that starts at the n-th occurrence of `marker` in `src`.
TSNode self_attribute_at(const Tree& tree, const std::string& src, const std::string& marker, int nth = 0) {
  std::size_t at = src.find(marker);
  for (int i = 0; i < nth && at != std::string::npos; ++i) at = src.find(marker, at + 1);
  EXPECT_NE(at, std::string::npos) << marker;
  std::vector<TSNode> nodes;
  all_nodes(tree.root(), nodes);
  for (TSNode n : nodes)
    if (type(n) == "attribute" && start(n) == at) return n;
  ADD_FAILURE() << "no attribute at " << marker;
  return TSNode{};
}

// The smallest named node covering the byte at `offset` inside the first occurrence of
// `needle` in `src` (the test fails when `needle` is not there).
TSNode named_node_at(const Tree& tree, const std::string& src, const std::string& needle, std::size_t offset) {
  std::size_t at = src.find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  if (at == std::string::npos) return TSNode{};
  auto b = static_cast<uint32_t>(at + offset);
  return ts_node_named_descendant_for_byte_range(tree.root(), b, b + 1);
}

std::vector<std::string> strings_of(const std::vector<gpulint::Value>& vs) {
  std::vector<std::string> out;
  for (const auto& v : vs) out.push_back(v.kind == gpulint::Value::Kind::Str ? v.s : "<not a string>");
  std::sort(out.begin(), out.end());
  return out;
}

// The node of type `node_type` around (or at) `n`; a null node when there is none.
TSNode around(TSNode n, std::string_view node_type) {
  while (!ts_node_is_null(n) && type(n) != node_type) n = ts_node_parent(n);
  return n;
}

// What SemanticModel::resolve_local_function gives for the call whose callee is written
// `callee` (the first `callee(` in `src`).
TSNode resolved_call(const SemanticModel& m, const Tree& tree, const std::string& src, const std::string& callee) {
  TSNode c = around(named_node_at(tree, src, callee + "(", callee.size()), "call");  // at the call's `(`
  EXPECT_FALSE(ts_node_is_null(c)) << callee;
  return m.resolve_local_function(c, m.scope_of(c));
}

}  // namespace

// `self.device` is read from the stores of the reading method's class: its own, its in-file
// base classes' (inherited), its in-file subclasses' (self may be one), never an unrelated
// class's; a store through another object (`exporter.device = ...`) may be any instance's.
TEST(PythonModel, SelfAttributeStoresAreKeyedByClass) {
  std::string src =
      "class Base:\n"
      "    def __init__(self):\n"
      "        self.device = 'cuda:0'\n"
      "    def run(self):\n"
      "        return self.device  # base\n"
      "class Child(Base):\n"
      "    def setup(self):\n"
      "        self.device = 'cuda:1'\n"
      "    def fit(self):\n"
      "        return self.device  # child\n"
      "class Other:\n"
      "    def __init__(self):\n"
      "        self.device = 'cpu'\n"
      "    def go(self):\n"
      "        return self.device  # other\n"
      "class Lone:\n"
      "    def go(self):\n"
      "        return self.device  # lone\n"
      "class Exporter:\n"
      "    def __init__(self):\n"
      "        self.target = 'cuda'\n"
      "    def go(self):\n"
      "        return self.target  # exporter\n"
      "exporter = Exporter()\n"
      "exporter.target = 'mps'\n"
      "def free(self):\n"
      "    return self.device  # free\n";
  Tree tree = Tree::parse(src);
  SemanticModel m(src, tree.root());
  auto values = [&](const std::string& marker) {
    TSNode a = self_attribute_at(tree, src, (marker == "exporter" ? "self.target  # " : "self.device  # ") + marker);
    return strings_of(m.evaluate(a, m.scope_of(a)));
  };
  EXPECT_EQ(values("base"), (std::vector<std::string>{"cuda:0", "cuda:1"}));   // its own and a subclass's
  EXPECT_EQ(values("child"), (std::vector<std::string>{"cuda:0", "cuda:1"}));  // its own and inherited
  EXPECT_EQ(values("other"), (std::vector<std::string>{"cpu"}));
  EXPECT_EQ(values("lone"), (std::vector<std::string>{"<not a string>"}));  // no store: unknown
  EXPECT_EQ(values("exporter"), (std::vector<std::string>{"cuda", "mps"}));
  // A module-level function's parameter spelled `self` is no method's instance: unknown.
  EXPECT_EQ(values("free"), (std::vector<std::string>{"<not a string>"}));
}

// The instance parameter is the first parameter of a function defined in a class body, whatever
// its spelling; not a static or class method's, not a module function's `self`.
TEST(PythonModel, InstanceParameterIsDecidedFromBindings) {
  std::string src =
      "class Net:\n"
      "    def __init__(this, d):\n"
      "        this.device = d\n"
      "    def move(self, x):\n"
      "        f = lambda: self.device\n"
      "        return x.to(self.device)\n"
      "    @staticmethod\n"
      "    def build(self):\n"
      "        return self.layers\n"
      "    @classmethod\n"
      "    def make(cls):\n"
      "        return cls.default\n"
      "def free(self):\n"
      "    return self.other\n";
  Tree tree = Tree::parse(src);
  SemanticModel m(src, tree.root());
  auto instance = [&](const std::string& attr_text) {
    TSNode obj = named_node_at(tree, src, attr_text, 0);
    return m.is_instance_parameter(obj, m.scope_of(obj));
  };
  EXPECT_TRUE(instance("this.device"));
  EXPECT_TRUE(instance("self.device\n        return"));  // inside the lambda: the method's
  EXPECT_TRUE(instance("self.device)"));
  EXPECT_FALSE(instance("self.layers"));   // @staticmethod
  EXPECT_FALSE(instance("cls.default"));   // @classmethod: the class, not an instance
  EXPECT_FALSE(instance("self.other"));    // module function
}

TEST(PythonModel, LegacyTensorTypesFromQualifiedNames) {
  for (const char* q : {"torch.FloatTensor", "torch.LongTensor", "torch.BFloat16Tensor", "torch.Tensor"}) {
    auto lt = legacy_tensor_type(q);
    ASSERT_TRUE(lt.has_value()) << q;
    EXPECT_FALSE(lt->cuda) << q;
  }
  for (const char* q : {"torch.cuda.FloatTensor", "torch.cuda.HalfTensor", "torch.cuda.BoolTensor"}) {
    auto lt = legacy_tensor_type(q);
    ASSERT_TRUE(lt.has_value()) << q;
    EXPECT_TRUE(lt->cuda) << q;
  }
  for (const char* q : {"torch.tensor", "torch.cuda.Tensor", "torch.cuda.FloatStorage", "torch.cuda.current_device",
                        "torch.zeros", "mylib.FloatTensor", "FloatTensor", "torch.nn.FloatTensor"})
    EXPECT_FALSE(legacy_tensor_type(q).has_value()) << q;
}

// DEV003's facts say which creations are legacy typed constructors (no device=, no fix),
// from the qualified name, whatever the spelling at the call.
TEST(PythonModel, CreatedThenMovedMarksLegacyConstructors) {
  std::string text =
      "import torch\n"
      "from torch import LongTensor as LT\n"
      "def step(batches):\n"
      "    for v in batches:\n"
      "        a = torch.LongTensor(v).cuda()\n"
      "        b = LT(v).cuda()\n"
      "        c = torch.zeros(3).cuda()\n"
      "        d = torch.randn(4).type(torch.cuda.FloatTensor)\n"
      "        e = torch.ones(2).type(torch.FloatTensor)\n";
  auto created = created_then_moved(text);
  ASSERT_EQ(created.size(), 4u);  // not `e`: torch.FloatTensor is a host type
  std::vector<std::pair<std::string, bool>> got;
  for (const auto& c : created) got.emplace_back(c.factory, c.legacy_constructor);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<std::pair<std::string, bool>>{
                     {"torch.LongTensor", true}, {"torch.LongTensor", true}, {"torch.randn", false}, {"torch.zeros", false}}));
  for (const auto& c : created)
    if (c.legacy_constructor) EXPECT_TRUE(c.fix.empty()) << c.factory;
}

// A move under `if cuda:` with `cuda = torch.cuda.is_available()` is taken on every GPU run:
// the creation before it is reported, but without a fix (created with `device=`, the tensor
// would need CUDA on the runs without it). Under a flag every call site passes True, the fix
// stays.
TEST(PythonModel, CreatedThenMovedUnderCudaAvailableHasNoFix) {
  std::string text =
      "import torch\n"
      "cuda = torch.cuda.is_available()\n"
      "def step(batches, flag):\n"
      "    for v in batches:\n"
      "        a = torch.zeros(3)\n"
      "        if cuda:\n"
      "            a = a.cuda()\n"
      "        b = torch.ones(3)\n"
      "        if flag:\n"
      "            b = b.cuda()\n"
      "step([1], True)\n";
  auto created = created_then_moved(text);
  ASSERT_EQ(created.size(), 2u);
  for (const auto& c : created) {
    std::string_view expr = std::string_view(text).substr(c.expression.start, c.expression.end - c.expression.start);
    if (expr == "torch.zeros(3)") {
      EXPECT_TRUE(c.fix.empty());
    } else {
      EXPECT_EQ(expr, "torch.ones(3)");
      EXPECT_FALSE(c.fix.empty());
    }
  }
}

// Shape views and casts between a creation and its move in one expression keep it a host
// creation with a fix; a `masked_fill` with a (host) mask in between keeps the finding but
// loses the fix (the mask would stay on the host beside a device tensor).
TEST(PythonModel, CreatedThenMovedThroughTransformsInOneExpression) {
  std::string text =
      "import torch\n"
      "def step(batches):\n"
      "    for v in batches:\n"
      "        a = torch.rand(3).reshape(-1, 1).cuda()\n"
      "        b = torch.ones(3).masked_fill(torch.rand(3) > 0.5, 0).cuda()\n";
  auto created = created_then_moved(text);
  ASSERT_EQ(created.size(), 2u);
  for (const auto& c : created) {
    if (c.factory == "torch.rand") {
      EXPECT_FALSE(c.fix.empty());
    } else {
      EXPECT_EQ(c.factory, "torch.ones");
      EXPECT_TRUE(c.fix.empty());
    }
  }
}

// An unbound `torch` is the torch package when a module outside torch's family is
// star-imported (its global `torch` can only come from `import torch`); torch-family packages
// do not export the name, so after `from torch import *` alone it stays undecided.
TEST(PythonModel, UnboundTorchComesFromStarImports) {
  auto callee_of_first_call = [](const std::string& src) -> std::optional<std::string> {
    Tree tree = Tree::parse(src);
    SemanticModel m(src, tree.root());
    if (m.calls().empty()) return std::string("<no call>");
    TSNode c = m.calls().front();
    return m.callee_name(c, m.scope_of(c));
  };
  EXPECT_EQ(callee_of_first_call("from utils import *\nimport torch.nn as nn\nx = torch.zeros(3)\n"),
            std::optional<std::string>("torch.zeros"));
  EXPECT_EQ(callee_of_first_call("from utils import *\nfrom models import *\nx = torch.zeros(3)\n"),
            std::optional<std::string>("torch.zeros"));
  EXPECT_EQ(callee_of_first_call("from torch import *\nimport torch.nn as nn\nx = torch.zeros(3)\n"), std::nullopt);
  EXPECT_EQ(callee_of_first_call("from torch.nn import *\nfrom torchvision.models import *\nx = torch.zeros(3)\n"),
            std::nullopt);
  // Names other than `torch` through one star import are that module's.
  EXPECT_EQ(callee_of_first_call("from config import *\nx = build(3)\n"), std::optional<std::string>("config.build"));
  std::string src = "from utils import *\nimport torch.nn as nn\n";
  Tree tree = Tree::parse(src);
  SemanticModel m(src, tree.root());
  EXPECT_EQ(m.unbound_name("torch"), std::optional<std::string>("torch"));
  EXPECT_EQ(m.unbound_name("len"), std::optional<std::string>("builtins.len"));
  EXPECT_EQ(m.unbound_name("device"), std::optional<std::string>("utils.device"));
}

// Reaching definitions in origins(): a binding that an unconditional later binding of the same
// block re-binds before the use does not reach it; one re-bound on a branch only, re-bound
// after the use inside a loop around it, or re-bound from itself, still does; an assignment's
// own binding does not reach a use on its right-hand side outside loops. accelerator.prepare(...) gives back its
// arguments in place.
TEST(PythonModel, OriginsLeaveOutBindingsReboundOnEveryPath) {
  std::string src =
      "from accelerate import Accelerator\n"
      "a = make(1)\n"
      "a = make(2)\n"
      "use(a)  # straight\n"
      "b = make(3)\n"
      "if flag:\n"
      "    b = make(4)\n"
      "use(b)  # branch\n"
      "c = make(5)\n"
      "for i in range(3):\n"
      "    use(c)  # loop\n"
      "    c = make(6)\n"
      "def f():\n"
      "    d = make(7)\n"
      "    d = wrap(d)  # self\n"
      "    return d\n"
      "acc = Accelerator()\n"
      "m, e = acc.prepare(make(8), make(9))\n"
      "g = acc.prepare(make(10))\n"
      "use(e, g)  # prepared\n"
      "def h():\n"
      "    k = make(11)\n"
      "    k = wrap(k, 'rhs')\n"
      "    n = make(12)\n"
      "    while more():\n"
      "        n = wrap(n, 'looped')\n";
  Tree tree = Tree::parse(src);
  SemanticModel m(src, tree.root());
  auto origin_texts = [&](const std::string& needle, std::size_t offset_in_needle) {
    TSNode n = named_node_at(tree, src, needle, offset_in_needle);
    std::vector<std::string> out;
    for (const auto& o : m.origins(n, m.scope_of(n)))
      out.emplace_back(src.substr(ts_node_start_byte(o.node), ts_node_end_byte(o.node) - ts_node_start_byte(o.node)));
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(origin_texts("use(a)", 4), (std::vector<std::string>{"make(2)"}));
  EXPECT_EQ(origin_texts("use(b)", 4), (std::vector<std::string>{"make(3)", "make(4)"}));
  EXPECT_EQ(origin_texts("use(c)", 4), (std::vector<std::string>{"make(5)", "make(6)"}));
  // A re-binding that reads the name (`d = wrap(d)`) leaves the earlier binding in: origins
  // stop at the call, so that binding is where the value comes from.
  EXPECT_EQ(origin_texts("return d", 7), (std::vector<std::string>{"make(7)", "wrap(d)"}));
  EXPECT_EQ(origin_texts("use(e, g)", 4), (std::vector<std::string>{"make(9)"}));
  EXPECT_EQ(origin_texts("use(e, g)", 7), (std::vector<std::string>{"make(10)"}));
  // The use on an assignment's right-hand side reads the bindings before it, not the one the
  // assignment makes — except through a loop's back edge.
  EXPECT_EQ(origin_texts("k, 'rhs'", 0), (std::vector<std::string>{"make(11)"}));
  EXPECT_EQ(origin_texts("n, 'looped'", 0), (std::vector<std::string>{"make(12)", "wrap(n, 'looped')"}));
}

// SemanticModel memoises qualified names, scopes and outermost origins queries. The model's own
// walk asks qualified_name (is_instance_parameter reads method decorators) before the module's
// later bindings and star imports are recorded: that answer must not be the one kept.
TEST(PythonModel, QualifiedNameAskedDuringTheWalkIsNotKept) {
  std::string src =
      "class Net:\n"
      "    @staticmethod\n"
      "    def build(self):\n"
      "        self.layers = 1\n"
      "from helpers import *\n";
  Tree tree = Tree::parse(src);
  SemanticModel m(src, tree.root());
  TSNode deco = named_node_at(tree, src, "staticmethod", 0);
  ASSERT_TRUE(is(deco, "identifier"));
  // The class body's scope, where the decorator is evaluated.
  const Scope* cls = m.scope_of(named_node_at(tree, src, "@staticmethod", 0));
  EXPECT_EQ(m.qualified_name(deco, cls), std::optional<std::string>("helpers.staticmethod"));
  EXPECT_EQ(m.qualified_name(deco, cls), std::optional<std::string>("helpers.staticmethod"));
}

// The memoised answers do not depend on the order of the questions: two models of each fixture,
// asked in opposite orders, agree on every call's callee name, scope and callee origins.
TEST(PythonModel, MemoisedAnswersDoNotDependOnQuestionOrder) {
  for (const auto& path : python_fixtures()) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string src = ss.str();
    Tree tree = Tree::parse(src);
    SemanticModel a(src, tree.root()), b(src, tree.root());
    struct Answer {
      std::optional<std::string> callee;
      const void* scope_node;
      std::vector<std::pair<uint32_t, uint32_t>> origins;
      bool operator==(const Answer&) const = default;
    };
    auto ask = [&](const SemanticModel& m, TSNode c) {
      const Scope* s = m.scope_of(c);
      Answer out{m.callee_name(c, s), s ? s->node.id : nullptr, {}};
      for (const auto& o : m.origins(field(c, "function"), s)) out.origins.emplace_back(start(o.node), end(o.node));
      return out;
    };
    const auto& calls = a.calls();
    std::vector<Answer> forward, backward(calls.size());
    for (TSNode c : calls) forward.push_back(ask(a, c));
    for (std::size_t i = calls.size(); i-- > 0;) backward[i] = ask(b, b.calls()[i]);
    for (std::size_t i = 0; i < calls.size(); ++i) {
      EXPECT_TRUE(forward[i] == backward[i]) << path << " call at byte " << start(calls[i]);
      EXPECT_TRUE(ask(a, calls[i]) == forward[i]) << path << " (asked again)";
    }
  }
}

// A method called on a name (or an attribute) bound only to instances of one class of the file
// resolves to that class's own method (and its call sites include the call); staticmethods, inherited methods and
// names bound to two classes do not resolve.
TEST(SemanticModelInstanceMethods, ResolvesOnlyOneClassesOwnUndecoratedMethod) {
  const std::string src =
      "class Base:\n"
      "    def inherited(self, x):\n        return x\n"
      "class Agent(Base):\n"
      "    def act(self, x):\n        return x\n"
      "    @staticmethod\n    def static(x):\n        return x\n"
      "class Other:\n"
      "    def act(self, x):\n        return x\n"
      "agent = Agent()\n"
      "agent.act(1)\n"
      "agent.static(2)\n"
      "agent.inherited(3)\n"
      "either = Agent()\n"
      "either = Other()\n"
      "either.act(4)\n"
      "class Holder:\n"
      "    def __init__(self):\n        self.agent = Agent()\n        self.mixed = Agent()\n"
      "    def reset(self):\n        self.mixed = Other()\n"
      "holder = Holder()\n"
      "holder.agent.act(5)\n"
      "holder.mixed.act(6)\n";
  Tree tree = Tree::parse(src);
  SemanticModel m(src, tree.root());
  auto resolve = [&](const std::string& callee) { return resolved_call(m, tree, src, callee); };
  TSNode act = resolve("agent.act");
  ASSERT_FALSE(ts_node_is_null(act));
  EXPECT_EQ(text(field(act, "name"), src), "act");
  EXPECT_EQ(start(act), src.find("def act"));  // Agent's, not Other's
  EXPECT_TRUE(ts_node_is_null(resolve("agent.static")));
  EXPECT_TRUE(ts_node_is_null(resolve("agent.inherited")));
  EXPECT_TRUE(ts_node_is_null(resolve("either.act")));
  // Through an attribute every `self.agent = ...` of the owner's class sets to one class.
  EXPECT_TRUE(same(resolve("holder.agent.act"), act));
  EXPECT_EQ(m.call_sites(act).size(), 2u);  // agent.act(1), holder.agent.act(5)
  EXPECT_TRUE(ts_node_is_null(resolve("holder.mixed.act")));
}

// `model = model.to(device)` (and .cuda(), .train(), ...) keeps the name an instance of its
// class when that class is an nn.Module that does not define the method: nn.Module's returns
// self. A class that is no module, or that defines `to` itself, is not followed.
TEST(SemanticModelInstanceMethods, ModuleMethodsReturningSelfKeepTheInstance) {
  const std::string src =
      "import torch.nn as nn\n"
      "class Base(nn.Module):\n"
      "    pass\n"
      "class Net(Base):\n"
      "    def init_state(self, b):\n        return b\n"
      "class Plain:\n"
      "    def to(self, d):\n        return Plain()\n"
      "    def init_state(self, b):\n        return b\n"
      "class Own(nn.Module):\n"
      "    def cuda(self):\n        return 1\n"
      "    def init_state(self, b):\n        return b\n"
      "net = Net()\n"
      "net = net.to('cuda')\n"
      "net = net.train()\n"
      "net.init_state(1)\n"
      "plain = Plain()\n"
      "plain = plain.to('cuda')\n"
      "plain.init_state(2)\n"
      "own = Own()\n"
      "own = own.cuda()\n"
      "own.init_state(3)\n"
      "other = Net().to('cuda')\n"
      "other.init_state(4)\n";
  Tree tree = Tree::parse(src);
  SemanticModel m(src, tree.root());
  auto resolve = [&](const std::string& callee) { return resolved_call(m, tree, src, callee); };
  TSNode init = resolve("net.init_state");
  ASSERT_FALSE(ts_node_is_null(init));
  EXPECT_EQ(start(init), src.find("def init_state"));  // Net's
  EXPECT_TRUE(same(resolve("other.init_state"), init));
  EXPECT_TRUE(ts_node_is_null(resolve("plain.init_state")));
  EXPECT_TRUE(ts_node_is_null(resolve("own.init_state")));
}

// Reads through an instance of a class of the file see that class's `self.x = ...` stores:
// evaluate() (`self.q_eval.device`, the values a device expression can take) and origins()
// (`self.q_eval.optimizer`, what the name was built by); a name bound to two classes sees none.
TEST(SemanticModelInstanceMethods, AttributesReadThroughAnInstanceSeeItsClassStores) {
  const std::string src =
      "import torch\n"
      "class Net:\n"
      "    def __init__(self):\n"
      "        self.device = torch.device('cuda:0' if torch.cuda.is_available() else 'cpu')\n"
      "        self.optimizer = torch.optim.Adam([])\n"
      "class Cpu:\n"
      "    def __init__(self):\n        self.device = 'cpu'\n"
      "class Agent:\n"
      "    def __init__(self, flag):\n"
      "        self.q_eval = Net()\n"
      "        self.other = Net() if flag else Cpu()\n"
      "    def learn(self):\n"
      "        a = self.q_eval.device  # q\n"
      "        b = self.other.device  # other\n"
      "        self.q_eval.optimizer.step()\n";
  Tree tree = Tree::parse(src);
  SemanticModel m(src, tree.root());
  auto values = [&](const std::string& marker) {
    TSNode a = self_attribute_at(tree, src, marker);  // the outermost attribute there
    return strings_of(m.evaluate(a, m.scope_of(a)));
  };
  EXPECT_EQ(values("self.q_eval.device  # q"), (std::vector<std::string>{"cpu", "cuda:0"}));
  EXPECT_EQ(values("self.other.device  # other"), (std::vector<std::string>{"<not a string>"}));  // two classes
  TSNode opt = field(self_attribute_at(tree, src, "self.q_eval.optimizer.step"), "object");
  ASSERT_EQ(text(opt, src), "self.q_eval.optimizer");
  auto os = m.origins(opt, m.scope_of(opt));
  ASSERT_EQ(os.size(), 1u);
  EXPECT_EQ(text(os[0].node, src), "torch.optim.Adam([])");
}

// named_children / named_count / named skip tree-sitter-python's extras — comments and
// backslash line continuations, which the parser places among the children of whatever node is
// open — so a tuple spread over continued lines still pairs element i with target i.
TEST(PythonModel, NamedChildHelpersSkipCommentsAndLineContinuations) {
  const std::string src = "a, b = \\\n    c.cuda(), \\\n    d  # tail\nx = [1,  # one\n     2]\n";
  Tree tree = Tree::parse(src);
  TSNode root = tree.root();
  TSNode asg = named(named(root, 0), 0);
  ASSERT_EQ(type(asg), "assignment");
  TSNode right = field(asg, "right");
  ASSERT_EQ(type(right), "expression_list");
  // tree-sitter itself counts the continuation inside the expression_list.
  EXPECT_GT(ts_node_named_child_count(right), 2u);
  EXPECT_EQ(named_count(right), 2u);
  EXPECT_EQ(named_children(right).size(), 2u);
  EXPECT_EQ(text(named(right, 1), src), "d");
  EXPECT_TRUE(is_null(named(right, 2)));
  TSNode list = field(named(named(root, 1), 0), "right");
  ASSERT_EQ(type(list), "list");
  EXPECT_EQ(named_count(list), 2u);
  EXPECT_EQ(text(named(list, 1), src), "2");
}

// int_typed: what can only be a Python int, whatever its value — and torch.device of one is a
// CUDA device (an ordinal). A string, a float division or a name with an unknown origin is not.
TEST(PythonModel, IntTypedExpressionsAndDeviceOrdinals) {
  std::string src =
      "import os\n"
      "import torch\n"
      "import torch.distributed as dist\n"
      "def f(rank, name):\n"
      "    gpu = rank % torch.cuda.device_count()\n"
      "    local = int(os.environ['LOCAL_RANK'])\n"
      "    half = rank / 2\n"
      "    both = dist.get_rank() * 2 + 1\n"
      "    use(gpu, local, half, both, name, rank)\n"
      "    d1 = torch.device(gpu)\n"
      "    d2 = torch.device(name)\n"
      "    d3 = torch.device(1)\n"
      "    show(d1, d2, d3)\n";
  Tree tree = Tree::parse(src);
  SemanticModel m(src, tree.root());
  auto at = [&](const std::string& needle, std::size_t off) { return named_node_at(tree, src, needle, off); };
  auto int_typed = [&](std::size_t off) {
    TSNode n = at("use(gpu, local, half, both, name, rank)", off);
    return m.int_typed(n, m.scope_of(n));
  };
  EXPECT_TRUE(int_typed(4));    // gpu
  EXPECT_TRUE(int_typed(9));    // local
  EXPECT_FALSE(int_typed(16));  // half: a float
  EXPECT_TRUE(int_typed(22));   // both
  EXPECT_FALSE(int_typed(28));  // name: a parameter no call site passes
  EXPECT_FALSE(int_typed(34));  // rank: the same
  auto device_values = [&](std::size_t off) {
    TSNode n = at("show(d1, d2, d3)", off);
    return strings_of(m.evaluate(n, m.scope_of(n)));
  };
  EXPECT_EQ(device_values(5), (std::vector<std::string>{"cuda"}));
  EXPECT_EQ(device_values(9), (std::vector<std::string>{"<not a string>"}));
  // A literal ordinal keeps its index (int_typed is asked only when the value is unknown).
  EXPECT_EQ(device_values(13), (std::vector<std::string>{"cuda:1"}));
}

// passed_argument: the keyword of the parameter's name, the positional argument at its index
// (after an implicit `self` for a method called on an instance), the default when the call
// writes none; nothing when a `*args` before it or a `**kwargs` may carry it.
TEST(PythonModel, PassedArgumentBindsPositionalKeywordDefaultAndSplats) {
  const std::string src =
      "class Trainer:\n"
      "    def draw(self, loader, n=4):\n"
      "        return loader\n"
      "t = Trainer()\n"
      "t.draw('a')\n"
      "t.draw(n=1, loader='b')\n"
      "t.draw(*rest)\n"
      "t.draw('c', **opts)\n"
      "t.draw(**opts)\n";
  Tree tree = Tree::parse(src);
  SemanticModel m(src, tree.root());
  TSNode def = around(named_node_at(tree, src, "def draw", 4), "function_definition");
  ASSERT_FALSE(ts_node_is_null(def));
  const Scope* fs = m.function_scope(def);
  ASSERT_NE(fs, nullptr);
  const Binding& loader = m.lookup("loader", fs)->front();
  const Binding& n = m.lookup("n", fs)->front();
  auto sites = m.call_sites(def);
  ASSERT_EQ(sites.size(), 5u);
  auto text_of = [&](const std::optional<SemanticModel::ParamArgument>& a) {
    return a ? std::string(text(a->value, src)) : std::string("<unknown>");
  };
  EXPECT_EQ(text_of(m.passed_argument(loader, sites[0])), "'a'");  // after the implicit self
  EXPECT_EQ(text_of(m.passed_argument(n, sites[0])), "4");         // the default
  EXPECT_EQ(text_of(m.passed_argument(loader, sites[1])), "'b'");
  EXPECT_EQ(text_of(m.passed_argument(n, sites[1])), "1");
  EXPECT_EQ(text_of(m.passed_argument(loader, sites[2])), "<unknown>");  // *rest
  EXPECT_EQ(text_of(m.passed_argument(loader, sites[3])), "'c'");       // written before **opts
  EXPECT_EQ(text_of(m.passed_argument(n, sites[3])), "<unknown>");      // **opts may carry it
  EXPECT_EQ(text_of(m.passed_argument(loader, sites[4])), "<unknown>");
}

// A `**kwargs` parameter is the dict every call site unpacks (`train(net, **settings)`): its
// keys evaluate, and its values' origins are followed; a call that also passes a keyword no named
// parameter takes leaves it unknown. A keyword-only parameter receives its keyword argument.
TEST(PythonModel, KwargsAndKeywordOnlyParametersReadTheirCallSites) {
  const std::string src =
      "import torch\n"
      "from torch.utils.data import DataLoader\n"
      "def train(net, **cfg):\n"
      "    use(cfg['device'], cfg['loader'])\n"
      "def other(net, *, device='cpu', **rest):\n"
      "    see(device, rest['device'])\n"
      "loader = DataLoader([1, 2], batch_size=1)\n"
      "settings = {'device': 'cuda:1', 'loader': loader}\n"
      "train(1, **settings)\n"
      "other(1, device='cuda', **{'device': 'x'})\n"
      "other(2, extra=3)\n";
  Tree tree = Tree::parse(src);
  SemanticModel m(src, tree.root());
  auto at = [&](const std::string& needle, std::size_t off) { return named_node_at(tree, src, needle, off); };
  TSNode dev = around(at("use(cfg['device'], cfg['loader'])", 4), "subscript");
  ASSERT_FALSE(ts_node_is_null(dev));
  EXPECT_EQ(strings_of(m.evaluate(dev, m.scope_of(dev))), (std::vector<std::string>{"cuda:1"}));
  TSNode ld = around(at("use(cfg['device'], cfg['loader'])", 19), "subscript");
  ASSERT_FALSE(ts_node_is_null(ld));
  auto os = m.origins(ld, m.scope_of(ld));
  ASSERT_EQ(os.size(), 1u);
  EXPECT_EQ(text(os[0].node, src), "DataLoader([1, 2], batch_size=1)");
  // `device` is keyword-only: 'cuda' at the first call, its default 'cpu' at the second.
  TSNode kw = at("see(device, rest['device'])", 4);
  EXPECT_EQ(strings_of(m.evaluate(kw, m.scope_of(kw))), (std::vector<std::string>{"cpu", "cuda"}));
  // `rest` holds `extra=3` at the second call, and no unpacked dict: unknown.
  TSNode rest = around(at("see(device, rest['device'])", 12), "subscript");
  ASSERT_FALSE(ts_node_is_null(rest));
  EXPECT_EQ(strings_of(m.evaluate(rest, m.scope_of(rest))), (std::vector<std::string>{"<not a string>"}));
}

// A function's binding of a name it declares `global` is the module's: readers in the function
// and elsewhere find it, and its value is evaluated in the function (its locals, not module
// names of the same spelling).
TEST(PythonModel, GlobalBindingInAFunctionIsTheModulesAndReadsTheFunctionsLocals) {
  const std::string src =
      "n = 0\n"
      "dev = None\n"
      "def setup():\n"
      "    global dev\n"
      "    n = 'cuda'\n"
      "    dev = n\n"
      "    a = dev\n"
      "def use():\n"
      "    b = dev\n";
  Tree tree = Tree::parse(src);
  SemanticModel m(src, tree.root());
  auto values_at = [&](const std::string& needle) {
    TSNode e = named_node_at(tree, src, needle, needle.size() - 3);  // the `dev` read
    return strings_of(m.evaluate(e, m.scope_of(e)));
  };
  // In setup(): after `dev = n` (n is the local 'cuda'); in use(): the module's None or 'cuda'.
  EXPECT_EQ(values_at("a = dev"), (std::vector<std::string>{"<not a string>", "cuda"}));
  EXPECT_EQ(values_at("b = dev"), (std::vector<std::string>{"<not a string>", "cuda"}));
}

// `nonlocal x` binds the enclosing function's name, not the module's: both the enclosing function
// and the nested one read the nested one's store; the module's `x` is left alone.
TEST(PythonModel, NonlocalBindingIsTheEnclosingFunctions) {
  const std::string src =
      "x = 'module'\n"
      "def outer():\n"
      "    x = 'outer'\n"
      "    def inner():\n"
      "        nonlocal x\n"
      "        x = 'inner'\n"
      "        a = x\n"
      "    inner()\n"
      "    b = x\n"
      "c = x\n";
  Tree tree = Tree::parse(src);
  SemanticModel m(src, tree.root());
  auto values_at = [&](const std::string& needle) {
    TSNode e = named_node_at(tree, src, needle, needle.size() - 1);  // the `x` read
    return strings_of(m.evaluate(e, m.scope_of(e)));
  };
  EXPECT_EQ(values_at("a = x"), (std::vector<std::string>{"inner", "outer"}));
  EXPECT_EQ(values_at("b = x"), (std::vector<std::string>{"inner", "outer"}));
  EXPECT_EQ(values_at("c = x"), (std::vector<std::string>{"module"}));
}

// `global device` at module level (legal, and a no-op there) once sent lookup from the module's
// scope back to the module's scope forever: a real script (set 40) hung `check`.
TEST(PythonModel, ModuleLevelGlobalStatementDoesNotLoopTheLookup) {
  std::string src =
      "import torch\n"
      "def predict(x):\n"
      "    global device\n"
      "    return x.to(device)\n"
      "if __name__ == '__main__':\n"
      "    global device\n"
      "    device = torch.device('cuda')\n"
      "    print(device)\n";
  Tree tree = Tree::parse(src);
  SemanticModel m(src, tree.root());
  const Scope* found = nullptr;
  const auto* bs = m.lookup("device", m.module_scope(), &found);
  ASSERT_NE(bs, nullptr);
  EXPECT_EQ(found, m.module_scope());
  TSNode use = named_node_at(tree, src, "device)\nif", 0);
  const auto* from_function = m.lookup("device", m.scope_of(use), &found);
  EXPECT_EQ(from_function, bs);  // the function's `global device` reads the module's binding
  EXPECT_FALSE(created_then_moved(src).size() > 1);
}

// An object that may be an instance of several classes of the file (`self.net` stored from
// `A()` on one branch and `B()` on the other): a method only one of them defines resolves to
// that one; a method both define, or neither, resolves to nothing; a name bound to one class
// still resolves as before.
TEST(PythonModel, MethodOfOneOfSeveralClassesResolves) {
  std::string src =
      "class A:\n"
      "    def init_states(self):\n"
      "        return 1\n"
      "    def reset(self):\n"
      "        return 2\n"
      "class B:\n"
      "    def reset(self):\n"
      "        return 3\n"
      "class Agent:\n"
      "    def __init__(self, mode):\n"
      "        if mode == 'a':\n"
      "            self.net = A()\n"
      "        else:\n"
      "            self.net = B()\n"
      "    def step(self):\n"
      "        self.net.init_states()\n"
      "        self.net.reset()\n"
      "        self.net.missing()\n"
      "single = B()\n"
      "single.reset()\n";
  Tree tree = Tree::parse(src);
  SemanticModel m(src, tree.root());
  TSNode def = resolved_call(m, tree, src, "self.net.init_states");
  ASSERT_FALSE(ts_node_is_null(def));
  EXPECT_EQ(gpulint::python::text(ts_node_child_by_field_name(def, "name", 4), src), "init_states");
  EXPECT_LT(ts_node_start_byte(def), src.find("class B"));  // A's
  EXPECT_TRUE(ts_node_is_null(resolved_call(m, tree, src, "self.net.reset")));    // both define it
  EXPECT_TRUE(ts_node_is_null(resolved_call(m, tree, src, "self.net.missing")));  // neither does
  TSNode single = resolved_call(m, tree, src, "single.reset");
  ASSERT_FALSE(ts_node_is_null(single));
  EXPECT_GT(ts_node_start_byte(single), src.find("class B"));
}

// A conditional expression whose condition literals decide evaluates to that side only: a module
// constant (`ngpu = 0`) in a comparison, `and` with one false side; an argparse default or a
// condition on the run (torch.cuda.is_available()) keeps both sides.
TEST(PythonModel, ConditionDecidedByLiteralsPicksItsSide) {
  std::string src =
      "import argparse\n"
      "import torch\n"
      "ngpu = 0\n"
      "workers = 2\n"
      "p = argparse.ArgumentParser()\n"
      "p.add_argument('--ngpu', type=int, default=0)\n"
      "args = p.parse_args()\n"
      "a = 'cuda:0' if (torch.cuda.is_available() and ngpu > 0) else 'cpu'\n"
      "b = 'cuda:0' if (torch.cuda.is_available() and workers > 0) else 'cpu'\n"
      "c = 'cuda:0' if (torch.cuda.is_available() and args.ngpu > 0) else 'cpu'\n"
      "d = 'x' if not ngpu else 'y'\n"
      "e = 'x' if ngpu == 0 or torch.cuda.is_available() else 'y'\n";
  Tree tree = Tree::parse(src);
  SemanticModel m(src, tree.root());
  auto values = [&](const std::string& name) {
    TSNode id = named_node_at(tree, src, "\n" + name + " = ", 1);
    return strings_of(m.evaluate(id, m.scope_of(id)));
  };
  EXPECT_EQ(values("a"), (std::vector<std::string>{"cpu"}));
  EXPECT_EQ(values("b"), (std::vector<std::string>{"cpu", "cuda:0"}));
  EXPECT_EQ(values("c"), (std::vector<std::string>{"cpu", "cuda:0"}));
  EXPECT_EQ(values("d"), (std::vector<std::string>{"x"}));
  EXPECT_EQ(values("e"), (std::vector<std::string>{"x"}));
}
