#include "analyzer/python/semantic_model.h"

#include <algorithm>
#include <charconv>
#include <functional>
#include <set>

namespace gpulint::python {
namespace {

constexpr int kMaxDepth = 10;         // evaluation / origin recursion
constexpr int kMaxWalkDepth = SemanticModel::kMaxNesting;  // syntax nesting the model descends into

void add_unique(std::vector<Value>& out, const Value& v) {
  for (const auto& x : out)
    if (x == v) return;
  out.push_back(v);
}
void add_all(std::vector<Value>& out, const std::vector<Value>& vs) {
  for (const auto& v : vs) add_unique(out, v);
}
std::vector<Value> unknown() { return {Value::unknown()}; }

bool parse_int(std::string_view t, int64_t* out) {
  std::string s;
  for (char c : t)
    if (c != '_') s.push_back(c);
  int base = 10;
  std::size_t off = 0;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) { base = 16; off = 2; }
  else if (s.size() > 2 && s[0] == '0' && (s[1] == 'o' || s[1] == 'O')) { base = 8; off = 2; }
  else if (s.size() > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) { base = 2; off = 2; }
  auto r = std::from_chars(s.data() + off, s.data() + s.size(), *out, base);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

const char* kTorchFamily[] = {"torch", "torchvision", "lightning", "pytorch_lightning",
                              "transformers", "accelerate", "timm", "torchaudio", "torchtext"};

// True when module `q` ("torch.nn", "pytorch_lightning") is torch or a torch-based package.
bool torch_family(std::string_view q) {
  for (const char* fam : kTorchFamily) {
    std::string_view f(fam);
    if (q.compare(0, f.size(), f) == 0 && (q.size() == f.size() || q[f.size()] == '.')) return true;
  }
  return false;
}

}  // namespace

std::string canonical_name(std::string n) {
  static const std::pair<const char*, const char*> kPrefixes[] = {
      {"torch.utils.data.dataloader.", "torch.utils.data."},
      {"torch.utils.data.dataset.", "torch.utils.data."},
      {"torch.nn.modules.loss.", "torch.nn."},
      {"torch.nn.modules.module.", "torch.nn."},
      {"torch.nn.parallel.distributed.", "torch.nn.parallel."},
      {"pytorch_lightning.", "lightning.pytorch."},
      {"transformers.training_args.", "transformers."},
      {"transformers.trainer.", "transformers."},
      // accelerate/__init__.py and lightning/fabric/__init__.py re-export the classes.
      {"accelerate.accelerator.", "accelerate."},
      {"lightning.fabric.fabric.", "lightning.fabric."},
      {"lightning_fabric.fabric.", "lightning.fabric."},
      {"lightning_fabric.", "lightning.fabric."},
  };
  for (auto [from, to] : kPrefixes) {
    std::string_view f(from);
    if (n.compare(0, f.size(), f) == 0) return std::string(to) + n.substr(f.size());
  }
  if (n == "pytorch_lightning") return "lightning.pytorch";
  return n;
}

bool cuda_device_with_index(std::string_view s) {
  // torch.device parses "cuda:<index>" (c10/core/Device.cpp, Device::Device(const std::string&)):
  // the type is fixed by the text before the colon, the index does not change it.
  return s.compare(0, 5, "cuda:") == 0;
}

bool is_cuda_device(const Value& v) {
  return v.kind == Value::Kind::Str && v.s.compare(0, 4, "cuda") == 0;
}

std::optional<LegacyTensorType> legacy_tensor_type(std::string_view q) {
  // torch/__init__.py's legacy typed constructors (torch.FloatTensor ...) and their CUDA twins
  // in torch/cuda/__init__.py; torch.Tensor is the default (CPU, float) type.
  static const std::set<std::string_view> kTypes = {
      "FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "ByteTensor", "CharTensor",
      "ShortTensor", "IntTensor",    "LongTensor", "BoolTensor"};
  LegacyTensorType t;
  if (q == "torch.Tensor") return t;
  if (q.rfind("torch.cuda.", 0) == 0) {
    t.cuda = true;
    q.remove_prefix(11);
  } else if (q.rfind("torch.", 0) == 0) {
    q.remove_prefix(6);
  } else {
    return std::nullopt;
  }
  if (!kTypes.count(q)) return std::nullopt;
  return t;
}

// --------------------------------------------------------------------------------------
// Building: one recursive walk with a scope stack.
// --------------------------------------------------------------------------------------
struct SemanticModel::Builder {
  SemanticModel& m;
  std::string_view src;

  Scope* new_scope(Scope::Kind k, TSNode node, Scope* parent) {
    auto s = std::make_unique<Scope>();
    s->kind = k;
    s->node = node;
    s->parent = parent;
    Scope* raw = s.get();
    m.scopes_.push_back(std::move(s));
    m.scope_by_node_[node.id] = raw;
    return raw;
  }

  void add(Scope* s, TSNode ident, Binding b) {
    b.target = ident;
    std::string key(text(ident, src));
    // `def main(): global opt; opt = parser.parse_args()`: the name is the module's (lookup sends
    // every reader there), so is the binding; its value is read in the function. `nonlocal x`:
    // the enclosing function's (the nearest outer function scope, classes skipped).
    if (s->kind != Scope::Kind::Module && b.kind != Binding::Kind::Param) {
      Scope* owner = nullptr;
      if (std::find(s->globals.begin(), s->globals.end(), key) != s->globals.end()) {
        owner = s;
        while (owner->parent) owner = owner->parent;
      } else if (std::find(s->nonlocals.begin(), s->nonlocals.end(), key) != s->nonlocals.end()) {
        owner = nonlocal_owner(s, key);
      }
      if (owner && owner != s) {
        b.declared_in = s;
        s = owner;
      }
    }
    auto& list = s->names[key];
    // The same import repeated (concatenated scripts, notebook exports) binds the same thing:
    // keep one, so lookups stay O(1) in the number of repetitions.
    if (b.kind == Binding::Kind::Import)
      for (const auto& x : list)
        if (x.kind == Binding::Kind::Import && x.qualified == b.qualified) return;
    list.push_back(std::move(b));
  }

  // The function scope a `nonlocal name` of `s` refers to: the nearest enclosing function scope
  // (class scopes are skipped) that binds `name` or declares it nonlocal in turn; the nearest
  // enclosing function scope when none does yet (its binding may come later in the walk).
  static Scope* nonlocal_owner(Scope* s, const std::string& name) {
    Scope* nearest = nullptr;
    for (Scope* p = s->parent; p && p->kind != Scope::Kind::Module; p = p->parent) {
      if (p->kind == Scope::Kind::Class) continue;
      if (!nearest) nearest = p;
      if (p->names.count(name)) return p;
    }
    return nearest;
  }

  void note_import(const std::string& q) {
    m.imported_.push_back(q);
    if (torch_family(q)) m.imports_torch_ = true;
  }

  // Binds the names of an assignment / for target. `value` is the RHS (or iterable).
  void bind_target(Scope* s, TSNode target, TSNode value, Binding::Kind kind, TSNode stmt,
                   int unpack_index) {
    target = unparen(target);
    std::string_view t = type(target);
    if (t == "identifier") {
      Binding b;
      b.kind = kind;
      b.stmt = stmt;
      b.value = value;
      b.unpack_index = unpack_index;
      add(s, target, b);
    } else if (t == "pattern_list" || t == "tuple_pattern" || t == "list_pattern" ||
               t == "tuple" || t == "list" || t == "expression_list") {
      auto elems = named_children(target);
      TSNode v = is_null(value) ? value : unparen(value);
      std::vector<TSNode> vals;
      bool destructure = false;
      if (!is_null(v) && unpack_index < 0 &&
          (is(v, "expression_list") || is(v, "tuple") || is(v, "list") || is(v, "pattern_list"))) {
        vals = named_children(v);
        destructure = vals.size() == elems.size();
        for (auto& x : vals) if (is(x, "list_splat")) destructure = false;
      }
      for (std::size_t i = 0; i < elems.size(); ++i) {
        if (destructure) bind_target(s, elems[i], vals[i], kind, stmt, -1);
        else bind_target(s, elems[i], value, kind, stmt, static_cast<int>(i));
      }
    } else if (t == "list_splat_pattern" || t == "list_splat") {
      for (auto ch : named_children(target)) bind_target(s, ch, TSNode{}, Binding::Kind::Other, stmt, -1);
    } else if (t == "attribute") {
      TSNode attr = field(target, "attribute");
      if (!is_null(attr)) {
        SemanticModel::AttributeStore st;
        if (!is_null(value) && unpack_index < 0) st.value = value;
        st.stmt = stmt;
        st.scope = s;
        TSNode obj = unparen(field(target, "object"));
        if (m.is_instance_parameter(obj, s)) st.self_class = enclosing_class(s);
        m.attribute_stores_[std::string(text(attr, src))].push_back(st);
      }
    } else if (t == "subscript") {
      TSNode base = unparen(field(target, "value"));
      if (is(base, "identifier"))
        m.dict_writes_[{s, std::string(text(base, src))}].push_back(stmt);
    }
  }

  // The class whose method (or a function nested in one) `s` is; null outside classes.
  static const Scope* enclosing_class(const Scope* s) {
    for (; s; s = s->parent)
      if (s->kind == Scope::Kind::Class) return s;
    return nullptr;
  }

  void bind_params(Scope* fs, TSNode fn, TSNode params) {
    if (is_null(params)) return;
    int index = 0;
    bool kw_only = false;
    for (auto p : named_children(params)) {
      std::string_view t = type(p);
      Binding b;
      b.kind = Binding::Kind::Param;
      b.stmt = fn;
      b.function = fn;
      TSNode ident{};
      if (t == "identifier") ident = p;
      else if (t == "default_parameter" || t == "typed_default_parameter") {
        ident = field(p, "name");
        b.param_default = field(p, "value");
      } else if (t == "typed_parameter") {
        auto ch = named_children(p);
        if (!ch.empty() && is(ch[0], "identifier")) ident = ch[0];
        else { kw_only = true; if (!ch.empty()) { auto in = named_children(ch[0]); if (!in.empty()) { b.param_index = -1; add(fs, in[0], b);} } continue; }
      } else if (t == "list_splat_pattern" || t == "dictionary_splat_pattern") {
        kw_only = true;
        auto ch = named_children(p);
        if (!ch.empty() && is(ch[0], "identifier")) { b.param_index = -1; add(fs, ch[0], b); }
        continue;
      } else if (t == "keyword_separator") {
        kw_only = true;
        continue;
      } else if (t == "positional_separator") {
        continue;
      }
      if (is_null(ident) || !is(ident, "identifier")) continue;
      b.param_index = kw_only ? -1 : index;
      if (!kw_only) ++index;
      add(fs, ident, b);
    }
  }

  void import_stmt(Scope* s, TSNode n) {
    bool from = is(n, "import_from_statement");
    std::string module;
    if (from) {
      TSNode mod = field(n, "module_name");
      module = std::string(text(mod, src));
    }
    uint32_t c = ts_node_child_count(n);
    for (uint32_t i = 0; i < c; ++i) {
      const char* fname = ts_node_field_name_for_child(n, i);
      TSNode ch = ts_node_child(n, i);
      if (is(ch, "wildcard_import")) {
        s->star_imports.push_back(canonical_name(module));
        note_import(module);
        continue;
      }
      if (!fname || std::string_view(fname) != "name") continue;
      TSNode dotted = ch, alias{};
      if (is(ch, "aliased_import")) {
        dotted = field(ch, "name");
        alias = field(ch, "alias");
      }
      std::string name(text(dotted, src));
      Binding b;
      b.kind = Binding::Kind::Import;
      b.stmt = n;
      if (from) {
        b.qualified = canonical_name(module + "." + name);
        note_import(module);
        if (!is_null(alias)) add(s, alias, b);
        else add(s, dotted, b);  // `from m import x`: dotted_name holds one identifier
      } else {
        note_import(name);
        if (!is_null(alias)) {
          b.qualified = canonical_name(name);
          add(s, alias, b);
        } else {
          // `import a.b.c` binds `a`.
          TSNode first = named(dotted, 0);
          b.qualified = std::string(text(first, src));
          add(s, first, b);
        }
      }
    }
  }

  void call(Scope* s, TSNode n) {
    m.calls_.push_back(n);
    m.call_scope_[n.id] = s;
    TSNode fn = field(n, "function");
    if (is(fn, "identifier")) {
      m.calls_by_name_[std::string(text(fn, src))].push_back(n);
    } else if (is(fn, "attribute")) {
      TSNode attr = field(fn, "attribute");
      TSNode obj = unparen(field(fn, "object"));
      std::string_view an = text(attr, src);
      m.calls_by_name_[std::string(an)].push_back(n);
      if (is(obj, "identifier") && (an == "update" || an == "setdefault" || an == "pop"))
        m.dict_writes_[{s, std::string(text(obj, src))}].push_back(n);
      if (an == "add_argument") argparse_arg(s, n);
    }
  }

  void argparse_arg(Scope* s, TSNode n) {
    TSNode args = field(n, "arguments");
    if (!is(args, "argument_list")) return;
    std::string dest, first_long, first_short, positional;
    ArgparseArg a;
    a.scope = s;
    std::string type_name;
    for (auto ch : named_children(args)) {
      if (is(ch, "keyword_argument")) {
        std::string_view k = text(field(ch, "name"), src);
        TSNode v = field(ch, "value");
        if (k == "dest") { std::string d; if (string_literal_value(v, src, &d)) dest = d; }
        else if (k == "default") a.default_value = v;
        else if (k == "action") {
          std::string act;
          if (string_literal_value(v, src, &act)) {
            a.store_true = act == "store_true";
            a.store_false = act == "store_false";
          }
        }
      } else {
        std::string opt;
        if (!string_literal_value(ch, src, &opt)) continue;
        if (opt.rfind("--", 0) == 0) { if (first_long.empty()) first_long = opt.substr(2); }
        else if (opt.rfind("-", 0) == 0) { if (first_short.empty()) first_short = opt.substr(1); }
        else if (positional.empty()) positional = opt;
      }
    }
    if (dest.empty()) dest = !first_long.empty() ? first_long : (!first_short.empty() ? first_short : positional);
    std::replace(dest.begin(), dest.end(), '-', '_');
    if (!dest.empty()) m.argparse_[dest].push_back(a);
  }

  void walk(TSNode n, Scope* s, int depth) {
    if (depth > kMaxWalkDepth) {
      m.too_deep_ = true;
      return;
    }
    std::string_view t = type(n);
    if (t == "function_definition") {
      TSNode name = field(n, "name");
      Binding b;
      b.kind = Binding::Kind::Def;
      b.stmt = n;
      b.function = n;
      if (!is_null(name)) add(s, name, b);
      TSNode params = field(n, "parameters");
      // Defaults and annotations belong to the enclosing scope.
      if (!is_null(params)) walk_children(params, s, depth + 1);
      Scope* fs = new_scope(Scope::Kind::Function, n, s);
      bind_params(fs, n, params);
      TSNode body = field(n, "body");
      if (!is_null(body)) walk(body, fs, depth + 1);
      return;
    }
    if (t == "class_definition") {
      TSNode name = field(n, "name");
      Binding b;
      b.kind = Binding::Kind::Class;
      b.stmt = n;
      b.function = n;
      if (!is_null(name)) add(s, name, b);
      TSNode sup = field(n, "superclasses");
      if (!is_null(sup)) walk(sup, s, depth + 1);
      Scope* cs = new_scope(Scope::Kind::Class, n, s);
      TSNode body = field(n, "body");
      if (!is_null(body)) walk(body, cs, depth + 1);
      return;
    }
    if (t == "lambda") {
      Scope* ls = new_scope(Scope::Kind::Lambda, n, s);
      TSNode params = field(n, "parameters");
      bind_params(ls, n, params);
      TSNode body = field(n, "body");
      if (!is_null(body)) walk(body, ls, depth + 1);
      return;
    }
    if (t == "list_comprehension" || t == "set_comprehension" ||
        t == "dictionary_comprehension" || t == "generator_expression") {
      Scope* cs = new_scope(Scope::Kind::Comprehension, n, s);
      for (auto ch : named_children(n)) {
        if (is(ch, "for_in_clause")) {
          TSNode left = field(ch, "left");
          TSNode right = field(ch, "right");
          bind_target(cs, left, right, Binding::Kind::For, ch, 0);
          if (!is_null(right)) walk(right, cs, depth + 1);
        } else {
          walk(ch, cs, depth + 1);
        }
      }
      return;
    }
    if (t == "import_statement" || t == "import_from_statement") {
      import_stmt(s, n);
      return;
    }
    if (t == "future_import_statement") return;
    if (t == "assignment") {
      TSNode left = field(n, "left");
      TSNode right = field(n, "right");
      // Chained `a = b = v`: the right side is another assignment.
      TSNode value = right;
      while (is(value, "assignment")) value = field(value, "right");
      if (!is_null(left)) {
        bind_target(s, left, value, Binding::Kind::Assign, n, -1);
        if (!is(unparen(left), "identifier")) walk(left, s, depth + 1);
      }
      if (!is_null(right)) walk(right, s, depth + 1);
      return;
    }
    if (t == "augmented_assignment") {
      TSNode left = field(n, "left");
      TSNode right = field(n, "right");
      if (is(unparen(left), "identifier")) {
        Binding b;
        b.kind = Binding::Kind::AugAssign;
        b.stmt = n;
        b.value = right;
        add(s, unparen(left), b);
      } else if (!is_null(left)) {
        // `self.steps += 1`: a store whose value gpulint does not compute (null value).
        if (is(unparen(left), "attribute")) bind_target(s, unparen(left), TSNode{}, Binding::Kind::AugAssign, n, -1);
        walk(left, s, depth + 1);
      }
      if (!is_null(right)) walk(right, s, depth + 1);
      return;
    }
    if (t == "for_statement") {
      m.loops_.push_back(n);
      TSNode left = field(n, "left");
      TSNode right = field(n, "right");
      if (!is_null(left)) bind_target(s, left, right, Binding::Kind::For, n, 0);
      walk_children(n, s, depth + 1, left);
      return;
    }
    if (t == "while_statement") {
      m.loops_.push_back(n);
    } else if (t == "if_statement") {
      m.ifs_.push_back(n);
    } else if (t == "with_item") {
      TSNode v = field(n, "value");
      if (is(v, "as_pattern")) {
        auto ch = named_children(v);
        TSNode alias = field(v, "alias");
        if (!is_null(alias)) {
          for (auto a : named_children(alias)) bind_target(s, a, ch.empty() ? TSNode{} : ch[0], Binding::Kind::With, n, 0);
        }
      }
    } else if (t == "named_expression") {
      TSNode name = field(n, "name");
      TSNode value = field(n, "value");
      if (is(name, "identifier")) {
        Binding b;
        b.kind = Binding::Kind::Assign;
        b.stmt = n;
        b.value = value;
        add(s, name, b);
      }
    } else if (t == "global_statement" || t == "nonlocal_statement") {
      auto& names = t == "global_statement" ? s->globals : s->nonlocals;
      for (auto ch : named_children(n))
        if (is(ch, "identifier")) names.emplace_back(text(ch, src));
      return;
    } else if (t == "except_clause") {
      for (auto ch : named_children(n))
        if (is(ch, "as_pattern")) {
          TSNode alias = field(ch, "alias");
          if (!is_null(alias))
            for (auto a : named_children(alias)) bind_target(s, a, TSNode{}, Binding::Kind::Other, n, -1);
        }
    } else if (t == "call") {
      call(s, n);
    } else if (t == "comment" || t == "string" || t == "integer" || t == "float") {
      return;
    }
    walk_children(n, s, depth + 1);
  }

  void walk_children(TSNode n, Scope* s, int depth, TSNode skip = TSNode{}) {
    for_each_named_child(n, [&](TSNode ch) {
      if (!is_null(skip) && same(ch, skip)) return;  // loop targets were bound already
      walk(ch, s, depth);
    });
  }
};

SemanticModel::SemanticModel(std::string_view src, TSNode root) : src_(src), root_(root) {
  for_each_named_child(root, [&](TSNode ch) { top_level_.push_back(ch); });
  Builder b{*this, src};
  Scope* ms = b.new_scope(Scope::Kind::Module, root, nullptr);
  b.walk_children(root, ms, 0);
  built_ = true;
}

bool SemanticModel::imports_module(std::string_view prefix) const {
  for (const auto& q : imported_) {
    std::string c = canonical_name(q);
    if (c.compare(0, prefix.size(), prefix) == 0 &&
        (c.size() == prefix.size() || c[prefix.size()] == '.'))
      return true;
    if (q.compare(0, prefix.size(), prefix) == 0 &&
        (q.size() == prefix.size() || q[prefix.size()] == '.'))
      return true;
  }
  return false;
}

TSNode SemanticModel::parent(TSNode node) const {
  if (is_null(node) || node.id == root_.id) return TSNode{};
  // The tree's node index when one is open (analysis.cpp opens it for the whole analysis).
  if (const NodeIndex* ix = current_node_index()) {
    if (int32_t i = ix->find(node); i >= 0) {
      int32_t p = ix->at(i).parent;
      return p >= 0 ? ix->at(p).node : TSNode{};
    }
  }
  auto memo = parent_memo_.find(node.id);
  if (memo != parent_memo_.end()) return memo->second;
  uint32_t b = ts_node_start_byte(node), e = ts_node_end_byte(node);
  // The last top-level child starting at or before `node`.
  auto it = std::upper_bound(top_level_.begin(), top_level_.end(), b,
                             [](uint32_t x, TSNode n) { return x < ts_node_start_byte(n); });
  TSNode cur{};
  while (it != top_level_.begin()) {
    --it;
    if (ts_node_start_byte(*it) <= b && ts_node_end_byte(*it) >= e) { cur = *it; break; }
    if (ts_node_end_byte(*it) < b) break;
  }
  if (is_null(cur)) return ts_node_parent(node);  // anonymous top-level children, errors
  if (cur.id == node.id) return root_;
  for (int guard = 0; guard < 100000; ++guard) {
    TSNode next = ts_node_child_with_descendant(cur, node);
    if (is_null(next)) return ts_node_parent(node);
    // Every node passed on the way down is an ancestor of `node`: remember its parent too
    // (the chain walks that follow — scope_of, dead code, enclosing loops — ask for them).
    parent_memo_.emplace(next.id, cur);
    if (next.id == node.id) return cur;
    cur = next;
  }
  return ts_node_parent(node);
}

const Scope* SemanticModel::scope_of(TSNode node) const {
  auto cs = call_scope_.find(node.id);
  if (cs != call_scope_.end()) return cs->second;
  auto memo = scope_memo_.find(node.id);
  if (memo != scope_memo_.end()) return memo->second;
  const Scope* found = module_scope();
  TSNode n = node;
  for (int guard = 0; !is_null(n) && guard < 100000; ++guard) {
    auto it = scope_by_node_.find(n.id);
    if (it != scope_by_node_.end() && !same(n, node)) { found = it->second; break; }
    if (it != scope_by_node_.end() && same(n, node) && n.id == root_.id) { found = it->second; break; }
    n = this->parent(n);
  }
  if (built_) scope_memo_.emplace(node.id, found);
  return found;
}

const std::vector<Binding>* SemanticModel::lookup(std::string_view name, const Scope* scope,
                                                  const Scope** found) const {
  std::string key(name);
  const Scope* s = scope;
  bool first = true;
  while (s) {
    bool skip = s->kind == Scope::Kind::Class && !first;
    if (!skip) {
      // `global x` sends the lookup to the module's scope; at module level (where it is legal
      // and changes nothing: `if __name__ == "__main__": global device`) it must not loop.
      if (s != module_scope() && std::find(s->globals.begin(), s->globals.end(), key) != s->globals.end()) {
        s = module_scope();
        first = false;
        continue;
      }
      // `nonlocal x`: an enclosing function's binding (the bindings were added there).
      if (std::find(s->nonlocals.begin(), s->nonlocals.end(), key) != s->nonlocals.end()) {
        first = false;
        s = s->parent;
        continue;
      }
      auto it = s->names.find(key);
      if (it != s->names.end()) {
        if (found) *found = s;
        return &it->second;
      }
    }
    first = false;
    s = s->parent;
  }
  return nullptr;
}

const std::optional<std::string>& SemanticModel::qualified_name(TSNode expr, const Scope* scope) const {
  if (!built_) {  // asked by the constructor's walk: answer without keeping it
    unmemoised_qualified_ = qualified_name_uncached(expr, scope);
    return unmemoised_qualified_;
  }
  auto key = std::make_pair(static_cast<const void*>(expr.id), scope);
  auto memo = qualified_memo_.find(key);
  if (memo != qualified_memo_.end()) return memo->second;
  auto q = qualified_name_uncached(expr, scope);
  return qualified_memo_.emplace(key, std::move(q)).first->second;
}

std::optional<std::string> SemanticModel::qualified_name_uncached(TSNode expr, const Scope* scope) const {
  for (int guard = 0; guard < kMaxDepth; ++guard) {
    expr = unparen(expr);
    if (is(expr, "identifier")) {
      std::string_view name = text(expr, src_);
      const Scope* fs = nullptr;
      const auto* bs = lookup(name, scope, &fs);
      if (!bs) return unbound_name(name);
      std::optional<std::string> q;
      bool all_imports = true, all_defs = true;
      for (const auto& b : *bs) {
        if (b.kind == Binding::Kind::Import) {
          if (q && *q != b.qualified) return std::nullopt;
          q = b.qualified;
        } else {
          all_imports = false;
        }
        if (b.kind != Binding::Kind::Def && b.kind != Binding::Kind::Class) all_defs = false;
      }
      if (all_imports && q) return q;
      if (all_defs) return "local." + std::string(name);
      // An alias: `DL = DataLoader` (one plain assignment of a name or attribute).
      if (bs->size() == 1 && (*bs)[0].kind == Binding::Kind::Assign && (*bs)[0].unpack_index < 0) {
        TSNode v = unparen((*bs)[0].value);
        if (is(v, "identifier") || is(v, "attribute")) {
          expr = v;
          scope = fs;
          continue;
        }
      }
      return std::nullopt;
    }
    if (is(expr, "attribute")) {
      auto base = qualified_name(field(expr, "object"), scope);
      if (!base || base->rfind("local.", 0) == 0) return std::nullopt;
      return canonical_name(*base + "." + std::string(text(field(expr, "attribute"), src_)));
    }
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<std::string> SemanticModel::unbound_name(std::string_view name) const {
  // Python's builtins win over star imports in practice (no one re-exports enumerate).
  static const std::set<std::string_view> kBuiltins = {
      "enumerate", "iter", "next", "zip", "range", "len", "list", "tuple", "dict", "set",
      "float", "int", "str", "bool", "print", "sum", "min", "max", "map", "filter",
      "sorted", "isinstance", "getattr", "setattr", "hasattr", "type", "super", "open",
      "vars", "abs", "round", "any", "all", "repr", "id", "hash", "object", "reversed", "exit", "quit"};
  if (kBuiltins.count(name)) return "builtins." + std::string(name);
  const Scope* ms = module_scope();
  // `torch` given by `from utils import *` (a file that imports only torch's submodules itself,
  // `import torch.nn as nn`). The binding is the star import: it binds every public global of
  // the star-imported module, which gpulint does not read. Here the spelling is the fact: the
  // statement that binds a module global named `torch` is `import torch` / `import
  // torch.<sub>` (Python's import binds the top-level package's name), so that global is the
  // torch package. Only a star import of a module outside torch's family can give it: torch,
  // torchvision, lightning, transformers ... declare `__all__` without `torch`, so after
  // `from torch import *` alone the name is unbound (undecided here).
  if (name == "torch" && !ms->star_imports.empty()) {
    for (const auto& m : ms->star_imports)
      if (!torch_family(m)) return "torch";
    return std::nullopt;
  }
  if (ms->star_imports.size() == 1) return ms->star_imports[0] + "." + std::string(name);
  if (!ms->star_imports.empty()) return std::nullopt;
  return "builtins." + std::string(name);
}

const std::optional<std::string>& SemanticModel::callee_name(TSNode call, const Scope* scope) const {
  return qualified_name(field(call, "function"), scope);
}

// --------------------------------------------------------------------------------------
// Evaluation
// --------------------------------------------------------------------------------------
// The values the body of class scope `cls` binds `attr` to (`DEVICE = "cuda" if ... else "cpu"`);
// unknown when it binds it otherwise (a method, an import) or not at all.
std::vector<Value> SemanticModel::class_attribute_values(const Scope* cls, std::string_view attr, int depth) const {
  const Scope* found = nullptr;
  const auto* bs = lookup(attr, cls, &found);
  if (!bs || found != cls) return unknown();
  std::vector<Value> out;
  for (const auto& b : *bs) {
    if (b.kind != Binding::Kind::Assign) return unknown();
    add_all(out, evaluate_binding(b, cls, depth + 1));
  }
  return out.empty() ? unknown() : out;
}

bool SemanticModel::int_typed(TSNode e, const Scope* s, int depth) const {
  if (is_null(e) || depth > kMaxDepth) return false;
  e = unparen(e);
  if (is(e, "integer")) return true;
  if (is(e, "call")) {
    auto q = callee_name(e, s);
    static const std::set<std::string> kIntFunctions = {
        "builtins.int", "builtins.len", "torch.cuda.device_count", "torch.cuda.current_device",
        "torch.distributed.get_rank", "torch.distributed.get_local_rank", "torch.distributed.get_world_size"};
    return q && kIntFunctions.count(*q) > 0;
  }
  if (is(e, "binary_operator")) {
    std::string_view op = text(field(e, "operator"), src_);
    bool right = int_typed(field(e, "right"), s, depth + 1);
    // `x % n` / `x // n` with an int n: an int, or a float that torch.device would reject.
    if (op == "%" || op == "//") return right;
    if (op == "+" || op == "-" || op == "*") return right && int_typed(field(e, "left"), s, depth + 1);
    return false;
  }
  if (is(e, "identifier")) {
    auto os = origins(e, s, depth + 1);
    return !os.empty() && std::all_of(os.begin(), os.end(), [&](const Origin& o) {
      return !same(o.node, e) && int_typed(o.node, o.scope, depth + 1);
    });
  }
  return false;
}

std::vector<Value> SemanticModel::evaluate(TSNode e, const Scope* s, int depth) const {
  if (is_null(e) || depth > kMaxDepth) return unknown();
  e = unparen(e);
  std::string_view t = type(e);
  if (t == "integer") {
    int64_t v;
    if (parse_int(text(e, src_), &v)) return {Value::integer(v)};
    return unknown();
  }
  if (t == "float") return {Value::floating(std::atof(std::string(text(e, src_)).c_str()))};
  if (t == "true") return {Value::boolean(true)};
  if (t == "false") return {Value::boolean(false)};
  if (t == "none") return {Value::none()};
  if (t == "string") {
    std::string v;
    if (string_literal_value(e, src_, &v)) return {Value::string(v)};
    // f"cuda:{rank}" names a CUDA device even though the index is unknown.
    if (string_literal_prefix(e, src_, &v) && cuda_device_with_index(v)) return {Value::string("cuda")};
    return unknown();
  }
  if (t == "binary_operator") {
    std::string_view op = text(ts_node_child_by_field_name(e, "operator", 8), src_);
    if (op != "+" && op != "%") return unknown();
    auto left = evaluate(field(e, "left"), s, depth + 1);
    // "cuda:" + str(gpu), "cuda:%d" % gpu: a CUDA device whatever the index.
    bool all_cuda = !left.empty();
    for (const auto& l : left) all_cuda = all_cuda && l.kind == Value::Kind::Str && cuda_device_with_index(l.s);
    if (all_cuda) return {Value::string("cuda")};
    if (op != "+") return unknown();
    // Concatenation of known strings ("cuda:" + "0").
    auto right = evaluate(field(e, "right"), s, depth + 1);
    if (left.size() * right.size() > 16) return unknown();
    std::vector<Value> out;
    for (const auto& l : left)
      for (const auto& r : right) {
        if (l.kind != Value::Kind::Str || r.kind != Value::Kind::Str) return unknown();
        add_all(out, {Value::string(l.s + r.s)});
      }
    return out.empty() ? unknown() : out;
  }
  if (t == "unary_operator") {
    auto ch = named_children(e);
    if (ch.size() == 1 && text(e, src_).substr(0, 1) == "-") {
      auto vs = evaluate(ch[0], s, depth + 1);
      for (auto& v : vs) {
        if (v.kind == Value::Kind::Int) v.i = -v.i;
        else if (v.kind == Value::Kind::Float) v.f = -v.f;
        else return unknown();
      }
      return vs;
    }
    return unknown();
  }
  if (t == "subscript") {
    // `config["num_workers"]` of a dict the file builds (evaluate_dict): that key's values; a
    // key an alternative may lack (KeyError) or a dict with keys gpulint cannot see: unknown.
    std::string key;
    TSNode sub = field(e, "subscript");
    if (is_null(sub) || !same(sub, named(e, 1)) || !string_literal_value(sub, src_, &key)) return unknown();
    auto d = evaluate_dict(field(e, "value"), s, depth + 1);
    if (!d || d->unknown_keys) return unknown();
    auto it = d->keys.find(key);
    if (it == d->keys.end() || it->second.empty()) return unknown();
    for (const Value& v : it->second)
      if (v.kind == Value::Kind::Absent) return unknown();
    return it->second;
  }
  if (t == "conditional_expression") {
    auto ch = named_children(e);
    if (ch.size() != 3) return unknown();
    // `"cuda:0" if (torch.cuda.is_available() and ngpu > 0) else "cpu"` with `ngpu = 0`: a
    // condition that literals decide picks its side.
    if (auto truth = literal_truth(ch[1], s, depth + 1)) return evaluate(*truth ? ch[0] : ch[2], s, depth + 1);
    auto out = evaluate(ch[0], s, depth + 1);
    add_all(out, evaluate(ch[2], s, depth + 1));
    return out;
  }
  if (t == "boolean_operator") {
    std::string_view op = text(ts_node_child_by_field_name(e, "operator", 8), src_);
    if (op != "or") return unknown();
    auto out = evaluate(field(e, "left"), s, depth + 1);
    add_all(out, evaluate(field(e, "right"), s, depth + 1));
    return out;
  }
  if (t == "identifier") {
    const Scope* fs = nullptr;
    const auto* bs = lookup(text(e, src_), s, &fs);
    if (!bs) return unknown();
    std::vector<Value> out;
    for (const auto& b : *bs) add_all(out, evaluate_binding(b, fs, depth + 1));
    return out.empty() ? unknown() : out;
  }
  if (t == "attribute") {
    // `self.device`: every value the file stores into that attribute (`self.device =
    // torch.device("cuda:0" if ... else "cpu")` in __init__); unknown when one store is.
    // Also through an instance of a class of the file (`self.q_eval.device` with `self.q_eval =
    // DeepQNetwork(...)`, `agent.device` with `agent = Agent(...)`): the stores a read through
    // that class's instances can see.
    TSNode obj = unparen(field(e, "object"));
    const Scope* reader = nullptr;
    const Scope* instance_of = nullptr;  // the class scope of `config` in `config = Config()`
    if (is_instance_parameter(obj, s)) {
      reader = s;
    } else if (TSNode cls = instance_class(obj, s); is(cls, "class_definition")) {
      reader = function_scope(cls);
      instance_of = reader;
    }
    if (reader) {
      std::vector<Value> out;
      auto stores = self_attribute_stores(text(field(e, "attribute"), src_), reader);
      for (const AttributeStore* st : stores) {
        if (is_null(st->value)) return unknown();
        add_all(out, evaluate(st->value, st->scope, depth + 1));
      }
      // An instance of a class of the file with no store of the attribute anywhere reads the
      // class body's binding (`DEVICE = "cuda" if ... else "cpu"` in `class TrainingConfig:`).
      if (instance_of && stores.empty()) return class_attribute_values(instance_of, text(field(e, "attribute"), src_), depth);
      return out.empty() ? unknown() : out;
    }
    // `Config.DEVICE` of `class Config: DEVICE = "cuda" if ... else "cpu"`: the class body's
    // bindings of the name, when the name is bound only by that class statement and nothing
    // in the file stores into `<object>.DEVICE` other than through `self`.
    if (is(obj, "identifier")) {
      const Scope* fs = nullptr;
      const auto* bs = lookup(text(obj, src_), s, &fs);
      if (bs && bs->size() == 1 && (*bs)[0].kind == Binding::Kind::Class && !is_null((*bs)[0].function)) {
        std::string attr(text(field(e, "attribute"), src_));
        auto stores = attribute_stores_.find(attr);
        bool stored = false;
        if (stores != attribute_stores_.end())
          for (const auto& st : stores->second) stored = stored || st.self_class == nullptr;
        const Scope* cs = function_scope((*bs)[0].function);
        if (cs && !stored) return class_attribute_values(cs, attr, depth);
      }
    }
    if (auto ns = evaluate_namespace_attribute(e, s, depth + 1); !ns.empty()) return ns;
    return evaluate_argparse(e, s, depth + 1);
  }
  if (t == "call") {
    // "cuda:{}".format(gpu): a CUDA device whatever the index (str.format keeps the text
    // before the first replacement field).
    TSNode fn = field(e, "function");
    if (is(fn, "attribute") && text(field(fn, "attribute"), src_) == "format") {
      std::string pre;
      if (string_literal_value(unparen(field(fn, "object")), src_, &pre) && cuda_device_with_index(pre))
        return {Value::string("cuda")};
    }
    // A function of this file: the values its return statements give
    // (`device = get_default_device()`); unknown when one of them is, or when it has none.
    TSNode def = resolve_local_function(e, s);
    if (!is_null(def)) {
      auto returns = returned_values(def);
      if (returns.empty()) return unknown();
      const Scope* fscope = function_scope(def);
      std::vector<Value> out;
      for (TSNode r : returns) add_all(out, evaluate(r, fscope ? fscope : s, depth + 1));
      return out;
    }
    auto q = callee_name(e, s);
    if (!q) return unknown();
    TSNode args = field(e, "arguments");
    auto ch = is(args, "argument_list") ? named_children(args) : std::vector<TSNode>{};
    if (*q == "torch.device" && !ch.empty() && !is(ch[0], "keyword_argument")) {
      // None cannot reach torch.device (it raises TypeError): `def get_device(device=None):
      // if device: return torch.device(device)` gives the strings the other paths assign.
      std::vector<Value> vs;
      for (auto& v : evaluate(ch[0], s, depth + 1)) {
        if (v.kind == Value::Kind::None) continue;
        // torch.device(0): a bare ordinal names a CUDA device (torch/_tensor_docs.py, "A
        // torch.device can be constructed via ... a device ordinal": torch.device(1) is
        // device(type='cuda', index=1)).
        if (v.kind == Value::Kind::Int && v.i >= 0) {
          vs.push_back(Value::string("cuda:" + std::to_string(v.i)));
          continue;
        }
        if (v.kind != Value::Kind::Str) {
          // An argument that can only be an int (`rank % torch.cuda.device_count()`,
          // `int(os.environ["LOCAL_RANK"])`) is an ordinal whatever its value.
          if (int_typed(ch[0], s, depth + 1)) return {Value::string("cuda")};
          return unknown();
        }
        vs.push_back(v);
      }
      return vs.empty() ? unknown() : vs;
    }
    if ((*q == "builtins.int" || *q == "builtins.bool") && ch.size() == 1 && !is(ch[0], "keyword_argument")) {
      auto vs = evaluate(ch[0], s, depth + 1);
      for (auto& v : vs) {
        if (*q == "builtins.int" && v.kind == Value::Kind::Str) {
          int64_t i;
          if (parse_int(v.s, &i)) v = Value::integer(i); else return unknown();
        }
        if (*q == "builtins.int" && v.kind != Value::Kind::Int) return unknown();
        if (*q == "builtins.bool" && v.kind != Value::Kind::Bool) return unknown();
      }
      return vs;
    }
    return unknown();
  }
  return unknown();
}

std::optional<bool> SemanticModel::literal_truth(TSNode cond, const Scope* s, int depth) const {
  cond = unparen(cond);
  if (depth > kMaxDepth || is_null(cond)) return std::nullopt;
  auto literal = [](TSNode v) {
    return is(v, "true") || is(v, "false") || is(v, "integer") || is(v, "float") || is(v, "none") || is(v, "string");
  };
  // The values of a literal or of a name every binding of which assigns a literal (a module
  // constant `ngpu = 0`, not an argparse default: a run may pass another value).
  auto literal_values = [&](TSNode v) -> std::optional<std::vector<Value>> {
    v = unparen(v);
    if (is(v, "identifier")) {
      const auto* bs = lookup(text(v, src_), s);
      if (!bs || bs->empty()) return std::nullopt;
      for (const Binding& b : *bs)
        if (b.kind != Binding::Kind::Assign || b.unpack_index >= 0 || is_null(b.value) || !literal(unparen(b.value)))
          return std::nullopt;
    } else if (!literal(v)) {
      return std::nullopt;
    }
    auto vs = evaluate(v, s, depth + 1);
    for (const Value& x : vs)
      if (x.kind == Value::Kind::Unknown) return std::nullopt;
    return vs;
  };
  if (is(cond, "not_operator")) {
    auto v = literal_truth(field(cond, "argument"), s, depth + 1);
    if (v) return !*v;
    return std::nullopt;
  }
  if (is(cond, "boolean_operator")) {
    std::string_view op = text(ts_node_child_by_field_name(cond, "operator", 8), src_);
    auto l = literal_truth(field(cond, "left"), s, depth + 1);
    auto r = literal_truth(field(cond, "right"), s, depth + 1);
    if (op == "and") {
      if ((l && !*l) || (r && !*r)) return false;
      if (l && r) return true;
    } else if (op == "or") {
      if ((l && *l) || (r && *r)) return true;
      if (l && r) return false;
    }
    return std::nullopt;
  }
  if (is(cond, "comparison_operator")) {
    std::string op = comparison_operator(cond, src_);
    if (op.empty()) return std::nullopt;
    auto a = literal_values(named(cond, 0)), b = literal_values(named(cond, 1));
    if (!a || !b || a->empty() || b->empty()) return std::nullopt;
    auto number = [](const Value& v) -> std::optional<double> {
      if (v.kind == Value::Kind::Int) return static_cast<double>(v.i);
      if (v.kind == Value::Kind::Float) return v.f;
      return std::nullopt;
    };
    std::optional<bool> out;
    for (const Value& x : *a)
      for (const Value& y : *b) {
        auto nx = number(x), ny = number(y);
        if (!nx || !ny) return std::nullopt;
        bool r;
        if (op == "<") r = *nx < *ny;
        else if (op == ">") r = *nx > *ny;
        else if (op == "<=") r = *nx <= *ny;
        else if (op == ">=") r = *nx >= *ny;
        else if (op == "==") r = *nx == *ny;
        else if (op == "!=") r = *nx != *ny;
        else return std::nullopt;
        if (out && *out != r) return std::nullopt;
        out = r;
      }
    return out;
  }
  auto vs = literal_values(cond);
  if (!vs) return std::nullopt;
  return agreed_truth(*vs);
}

std::optional<bool> agreed_truth(const std::vector<Value>& vs) {
  std::optional<bool> out;
  for (const Value& v : vs) {
    bool b;
    switch (v.kind) {
      case Value::Kind::Bool: b = v.b; break;
      case Value::Kind::Int: b = v.i != 0; break;
      case Value::Kind::Float: b = v.f != 0; break;
      case Value::Kind::None: b = false; break;
      case Value::Kind::Str: b = !v.s.empty(); break;
      default: return std::nullopt;
    }
    if (out && *out != b) return std::nullopt;
    out = b;
  }
  return out;
}

std::vector<Value> SemanticModel::evaluate_binding(const Binding& b, const Scope* scope, int depth) const {
  if (b.declared_in) scope = b.declared_in;  // made through `global` in a function
  switch (b.kind) {
    case Binding::Kind::Assign:
      if (b.unpack_index >= 0 || is_null(b.value)) return unknown();
      return evaluate(b.value, scope, depth);
    case Binding::Kind::Param:
      return evaluate_param(b, depth);
    default:
      return unknown();
  }
}

std::set<std::string> SemanticModel::named_parameters(TSNode function_definition) const {
  std::set<std::string> out;
  for (TSNode p : named_children(field(function_definition, "parameters"))) {
    TSNode id = is(p, "identifier") ? p : field(p, "name");
    if (is(p, "typed_parameter")) {
      auto ch = named_children(p);
      id = !ch.empty() && is(ch[0], "identifier") ? ch[0] : TSNode{};
    }
    if (is(id, "identifier")) out.insert(std::string(text(id, src_)));
  }
  return out;
}

std::optional<SemanticModel::ParamArgument> SemanticModel::passed_argument(const Binding& b, const Origin& site) const {
  if (b.kind != Binding::Kind::Param || is_null(b.target) || is_null(b.function)) return std::nullopt;
  TSNode pattern = parent(b.target);
  if (is(pattern, "list_splat_pattern") || is(pattern, "dictionary_splat_pattern")) return std::nullopt;
  TSNode args = field(site.node, "arguments");
  if (!is(args, "argument_list")) return std::nullopt;
  // Methods called as obj.m(...) do not pass `self` explicitly.
  int index = b.param_index;
  const Scope* fscope = scope_of(b.function);
  if (index >= 0 && fscope && fscope->kind == Scope::Kind::Class) {
    if (index == 0) return std::nullopt;
    --index;
  }
  std::string_view pname = text(b.target, src_);
  int pos = 0;
  bool list_splat = false, dict_splat = false;
  for (TSNode ch : named_children(args)) {
    if (is(ch, "keyword_argument")) {
      if (text(field(ch, "name"), src_) == pname) return ParamArgument{field(ch, "value"), site.scope};
    } else if (is(ch, "list_splat")) {
      list_splat = true;  // the positions after it are unknown
    } else if (is(ch, "dictionary_splat")) {
      dict_splat = true;
    } else if (!list_splat) {
      if (index >= 0 && pos == index) return ParamArgument{ch, site.scope};
      ++pos;
    }
  }
  // Nothing written for it: a splat may carry it; otherwise its default (evaluated in the scope
  // around the definition: `def train_mlp(model=MLP())`).
  if ((list_splat && index >= 0) || dict_splat || is_null(b.param_default)) return std::nullopt;
  return ParamArgument{b.param_default, scope_of(b.function)};
}

std::optional<std::vector<SemanticModel::ParamArgument>> SemanticModel::param_arguments(const Binding& b) const {
  if (b.kind == Binding::Kind::Param && !is_null(b.target) && is(parent(b.target), "dictionary_splat_pattern"))
    return kwargs_dict_arguments(b);
  auto sites = call_sites(b.function);
  if (sites.empty()) return std::nullopt;
  std::vector<ParamArgument> out;
  for (const auto& site : sites) {
    auto a = passed_argument(b, site);
    if (!a) return std::nullopt;
    out.push_back(*a);
  }
  return out;
}

std::optional<std::vector<SemanticModel::ParamArgument>> SemanticModel::kwargs_dict_arguments(const Binding& b) const {
  auto sites = call_sites(b.function);
  if (sites.empty()) return std::nullopt;
  std::set<std::string> takes = named_parameters(b.function);
  std::vector<ParamArgument> out;
  for (const auto& site : sites) {
    TSNode args = field(site.node, "arguments");
    if (!is(args, "argument_list")) return std::nullopt;
    TSNode found{};
    int splats = 0;
    for (TSNode ch : named_children(args)) {
      if (is(ch, "dictionary_splat")) {
        ++splats;
        found = named(ch, 0);
      } else if (is(ch, "keyword_argument") && !takes.count(std::string(text(field(ch, "name"), src_)))) {
        return std::nullopt;  // a keyword no named parameter takes lands in **kwargs beside the dict
      }
    }
    if (splats != 1) return std::nullopt;  // no dict, or two merged
    out.push_back({found, site.scope});
  }
  return out;
}

std::vector<Value> SemanticModel::evaluate_param(const Binding& b, int depth) const {
  if (depth > kMaxDepth) return unknown();
  auto args = param_arguments(b);
  if (!args) return unknown();
  std::vector<Value> out;
  for (const ParamArgument& a : *args) add_all(out, evaluate(a.value, a.scope, depth + 1));
  return out.empty() ? unknown() : out;
}

// The dict one of several alternatives gives: every key's values from each alternative, and
// "absent" for a key some alternative lacks.
namespace {
DictValue either(const std::vector<DictValue>& alts) {
  DictValue out;
  for (const auto& a : alts) {
    out.unknown_keys |= a.unknown_keys;
    for (const auto& [k, vs] : a.keys) add_all(out.keys[k], vs);
  }
  for (auto& [k, vs] : out.keys)
    for (const auto& a : alts)
      if (!a.keys.count(k)) add_unique(vs, Value::absent());
  return out;
}
}  // namespace

std::vector<SemanticModel::AttributeStoreSite> SemanticModel::attribute_store_sites(std::string_view attr) const {
  std::vector<AttributeStoreSite> out;
  auto it = attribute_stores_.find(std::string(attr));
  if (it != attribute_stores_.end())
    for (const AttributeStore& st : it->second) out.push_back({st.stmt, st.scope});
  return out;
}

std::optional<DictValue> SemanticModel::evaluate_param_dict(const Binding& b, int depth) const {
  if (depth > kMaxDepth) return std::nullopt;
  auto args = param_arguments(b);
  if (!args) return std::nullopt;
  std::vector<DictValue> alts;
  for (const ParamArgument& a : *args) {
    auto d = evaluate_dict(a.value, a.scope, depth + 1);
    if (!d) return std::nullopt;
    alts.push_back(std::move(*d));
  }
  return either(alts);
}

std::vector<Value> SemanticModel::evaluate_argparse(TSNode attr, const Scope* s, int depth) const {
  TSNode obj = unparen(field(attr, "object"));
  // `args.workers`, and `self.opt.device` where every store of `self.opt` is the parsed options
  // (`self.opt = opt` in `__init__`, `Instructor(opt)` with `opt = parser.parse_args()`).
  if (!is(obj, "identifier") && !is(obj, "attribute")) return unknown();
  std::string name(text(field(attr, "attribute"), src_));
  // The object must come from parse_args() / parse_known_args()[0].
  auto os = origins(obj, s, depth + 1);
  if (os.empty()) return unknown();
  for (const auto& o : os) {
    TSNode n = o.node;
    if (is(n, "subscript")) n = unparen(field(n, "value"));
    if (!is(n, "call")) return unknown();
    TSNode fn = field(n, "function");
    if (!is(fn, "attribute")) return unknown();
    std::string_view m = text(field(fn, "attribute"), src_);
    if (m != "parse_args" && m != "parse_known_args") return unknown();
  }
  auto it = argparse_.find(name);
  if (it == argparse_.end()) return unknown();
  std::vector<Value> out;
  for (const auto& a : it->second) {
    if (a.store_true && is_null(a.default_value)) { add_unique(out, Value::boolean(false)); continue; }
    if (a.store_false && is_null(a.default_value)) { add_unique(out, Value::boolean(true)); continue; }
    if (is_null(a.default_value)) { add_unique(out, Value::none()); continue; }
    add_all(out, evaluate(a.default_value, a.scope, depth + 1));
  }
  // argparse converts string defaults with `type=`; integers written as strings happen.
  for (auto& v : out) {
    int64_t i;
    if (v.kind == Value::Kind::Str && parse_int(v.s, &i)) v = Value::integer(i);
  }
  auto st = attribute_stores_.find(name);
  if (st != attribute_stores_.end()) {
    for (const AttributeStore& a : st->second) {
      if (is_null(a.value)) return unknown();
      add_all(out, evaluate(a.value, a.scope, depth + 1));
    }
  }
  return out.empty() ? unknown() : out;
}

std::vector<Value> SemanticModel::evaluate_namespace_attribute(TSNode attr, const Scope* s, int depth) const {
  static const std::set<std::string, std::less<>> kNamespaces = {
      "easydict.EasyDict", "types.SimpleNamespace", "argparse.Namespace", "munch.Munch", "addict.Dict"};
  if (depth > kMaxDepth) return {};
  TSNode obj = unparen(field(attr, "object"));
  if (!is(obj, "identifier")) return {};
  std::string name(text(field(attr, "attribute"), src_));
  auto os = origins(obj, s, depth + 1);
  if (os.empty()) return {};
  std::vector<Value> out;
  for (const auto& o : os) {
    TSNode call = unparen(o.node);
    if (!is(call, "call")) return {};
    auto q = callee_name(call, o.scope);
    if (!q || !kNamespaces.count(*q)) return {};
    // Keys: a dict given as the first positional argument, and keyword arguments.
    DictValue d;
    bool positional_seen = false;
    for (TSNode a : call_arguments(call)) {
      if (is(a, "keyword_argument")) {
        add_all(d.keys[std::string(text(field(a, "name"), src_))], evaluate(field(a, "value"), o.scope, depth + 1));
      } else if (!positional_seen && !is(a, "list_splat") && !is(a, "dictionary_splat")) {
        positional_seen = true;
        auto inner = evaluate_dict(a, o.scope, depth + 1);
        if (!inner) return unknown();
        d.unknown_keys |= inner->unknown_keys;
        for (const auto& [k, vs] : inner->keys) add_all(d.keys[k], vs);
      } else {
        return unknown();
      }
    }
    auto it = d.keys.find(name);
    if (it == d.keys.end() || d.unknown_keys) return unknown();
    add_all(out, it->second);
  }
  // Stores into `<anything>.name` other than through `self` may change it (`cfg.workers = 4`).
  if (auto st = attribute_stores_.find(name); st != attribute_stores_.end()) {
    for (const AttributeStore& a : st->second) {
      if (a.self_class) continue;
      if (is_null(a.value)) return unknown();
      add_all(out, evaluate(a.value, a.scope, depth + 1));
    }
  }
  return out.empty() ? unknown() : out;
}

std::optional<DictValue> SemanticModel::evaluate_dict(TSNode e, const Scope* s, int depth) const {
  if (is_null(e) || depth > kMaxDepth) return std::nullopt;
  e = unparen(e);
  auto merge = [](DictValue& into, const DictValue& from) {
    into.unknown_keys |= from.unknown_keys;
    for (const auto& [k, vs] : from.keys) add_all(into.keys[k], vs);
  };
  if (is(e, "dictionary")) {
    DictValue d;
    for (auto ch : named_children(e)) {
      if (is(ch, "pair")) {
        std::string key;
        if (!string_literal_value(field(ch, "key"), src_, &key)) { d.unknown_keys = true; continue; }
        add_all(d.keys[key], evaluate(field(ch, "value"), s, depth + 1));
      } else if (is(ch, "dictionary_splat")) {
        auto inner = evaluate_dict(named(ch, 0), s, depth + 1);
        if (!inner) d.unknown_keys = true; else merge(d, *inner);
      } else {
        d.unknown_keys = true;
      }
    }
    return d;
  }
  if (is(e, "call")) {
    auto q = callee_name(e, s);
    TSNode fn = field(e, "function");
    if (is(fn, "attribute") && text(field(fn, "attribute"), src_) == "copy")
      return evaluate_dict(field(fn, "object"), s, depth + 1);
    if (!q || *q != "builtins.dict") return std::nullopt;
    DictValue d;
    TSNode args = field(e, "arguments");
    if (!is(args, "argument_list")) return std::nullopt;
    for (auto ch : named_children(args)) {
      if (is(ch, "keyword_argument")) {
        add_all(d.keys[std::string(text(field(ch, "name"), src_))], evaluate(field(ch, "value"), s, depth + 1));
      } else if (is(ch, "dictionary_splat") || !is(ch, "list_splat")) {
        TSNode inner_node = is(ch, "dictionary_splat") ? named(ch, 0) : ch;
        auto inner = evaluate_dict(inner_node, s, depth + 1);
        if (!inner) d.unknown_keys = true; else merge(d, *inner);
      } else {
        d.unknown_keys = true;
      }
    }
    return d;
  }
  // `{"num_workers": 0, "pin_memory": True} if use_cuda else {}`: either side, as evaluate()
  // takes a conditional expression.
  if (is(e, "conditional_expression")) {
    auto ch = named_children(e);
    if (ch.size() != 3) return std::nullopt;
    auto a = evaluate_dict(ch[0], s, depth + 1);
    auto b = evaluate_dict(ch[2], s, depth + 1);
    if (!a || !b) return std::nullopt;
    return either({std::move(*a), std::move(*b)});
  }
  if (!is(e, "identifier")) return std::nullopt;
  const Scope* fs = nullptr;
  const auto* bs = lookup(text(e, src_), s, &fs);
  if (!bs) return std::nullopt;
  std::vector<DictValue> alts;
  for (const auto& b : *bs) {
    if (b.kind == Binding::Kind::Param) {
      // A parameter: the dict every call of the function in the file passes (`train(config)`),
      // or its default where a call passes none; nothing when a call passes something else.
      auto d = evaluate_param_dict(b, depth + 1);
      if (!d) return std::nullopt;
      alts.push_back(std::move(*d));
      continue;
    }
    if (b.kind != Binding::Kind::Assign || b.unpack_index >= 0) return std::nullopt;
    auto d = evaluate_dict(b.value, b.declared_in ? b.declared_in : fs, depth + 1);
    if (!d) return std::nullopt;
    alts.push_back(std::move(*d));
  }
  if (alts.empty()) return std::nullopt;
  DictValue out = either(alts);
  // Writes to the dict in the same scope: .update(...), [k] = v, .setdefault, .pop.
  auto wit = dict_writes_.find({fs, std::string(text(e, src_))});
  if (wit != dict_writes_.end()) {
    for (TSNode w : wit->second) {
      if (is(w, "call")) {
        std::string_view method = text(field(field(w, "function"), "attribute"), src_);
        TSNode args = field(w, "arguments");
        auto ch = is(args, "argument_list") ? named_children(args) : std::vector<TSNode>{};
        if (method == "update") {
          DictValue upd;
          bool ok = true;
          for (auto a : ch) {
            if (is(a, "keyword_argument")) {
              add_all(upd.keys[std::string(text(field(a, "name"), src_))], evaluate(field(a, "value"), fs, depth + 1));
            } else {
              auto inner = evaluate_dict(is(a, "dictionary_splat") ? named(a, 0) : a, fs, depth + 1);
              if (!inner) ok = false; else merge(upd, *inner);
            }
          }
          if (!ok) out.unknown_keys = true;
          for (const auto& [k, vs] : upd.keys) {
            auto& slot = out.keys[k];
            if (slot.empty()) slot.push_back(Value::absent());
            add_all(slot, vs);
          }
          out.unknown_keys |= upd.unknown_keys;
        } else if ((method == "setdefault" || method == "pop") && !ch.empty()) {
          std::string key;
          if (!string_literal_value(ch[0], src_, &key)) { out.unknown_keys = true; continue; }
          auto& slot = out.keys[key];
          if (slot.empty()) slot.push_back(Value::absent());
          if (method == "pop") add_unique(slot, Value::absent());
          else if (ch.size() > 1) add_all(slot, evaluate(ch[1], fs, depth + 1));
        }
      } else if (is(w, "assignment")) {
        TSNode left = unparen(field(w, "left"));
        TSNode sub = field(left, "subscript");
        std::string key;
        if (is_null(sub) || !string_literal_value(sub, src_, &key)) { out.unknown_keys = true; continue; }
        auto& slot = out.keys[key];
        if (slot.empty()) slot.push_back(Value::absent());
        add_all(slot, evaluate(field(w, "right"), fs, depth + 1));
      }
    }
  }
  return out;
}

TSNode SemanticModel::argument_node(TSNode call, const Signature& sig, std::string_view param) const {
  TSNode args = field(call, "arguments");
  if (!is(args, "argument_list")) return TSNode{};
  int pos_index = -1;
  for (std::size_t i = 0; i < sig.positional.size(); ++i)
    if (sig.positional[i] == param) pos_index = static_cast<int>(i);
  int pos = 0;
  for (auto ch : named_children(args)) {
    if (is(ch, "keyword_argument")) {
      if (text(field(ch, "name"), src_) == param) return field(ch, "value");
    } else if (!is(ch, "list_splat") && !is(ch, "dictionary_splat")) {
      if (pos == pos_index) return ch;
      ++pos;
    }
  }
  return TSNode{};
}

ArgumentFact SemanticModel::bind_argument(TSNode call, const Signature& sig, std::string_view param,
                                          const Scope* scope) const {
  ArgumentFact fact;
  TSNode args = field(call, "arguments");
  if (!is(args, "argument_list")) return fact;  // generator argument: unknown
  int pos_index = -1;
  for (std::size_t i = 0; i < sig.positional.size(); ++i)
    if (sig.positional[i] == param) pos_index = static_cast<int>(i);
  int pos = 0;
  bool star_before = false;
  std::vector<TSNode> kwdicts;
  for (auto ch : named_children(args)) {
    if (is(ch, "keyword_argument")) {
      if (text(field(ch, "name"), src_) == param) {
        TSNode v = field(ch, "value");
        fact.origin = ValueOrigin::Keyword;
        fact.written = {start(v), end(v)};
        fact.alternatives = evaluate(v, scope);
        return fact;
      }
    } else if (is(ch, "list_splat")) {
      star_before = true;
    } else if (is(ch, "dictionary_splat")) {
      kwdicts.push_back(named(ch, 0));
    } else {
      if (pos == pos_index && !star_before) {
        fact.origin = ValueOrigin::Positional;
        fact.written = {start(ch), end(ch)};
        fact.alternatives = evaluate(ch, scope);
        return fact;
      }
      ++pos;
    }
  }
  if (star_before && pos_index >= 0) return fact;  // *args may fill it: unknown
  if (kwdicts.empty()) {
    fact.origin = ValueOrigin::Absent;
    fact.alternatives = {Value::absent()};
    return fact;
  }
  std::vector<Value> out;
  bool any_key = false;
  for (TSNode d : kwdicts) {
    auto dv = evaluate_dict(d, scope);
    if (!dv) return fact;  // unknown
    auto it = dv->keys.find(std::string(param));
    if (it == dv->keys.end()) {
      if (dv->unknown_keys) return fact;
      continue;
    }
    any_key = true;
    add_all(out, it->second);
  }
  if (!any_key) {
    fact.origin = ValueOrigin::Absent;
    fact.alternatives = {Value::absent()};
    return fact;
  }
  fact.origin = ValueOrigin::KwargsDict;
  fact.alternatives = out;
  return fact;
}

// --------------------------------------------------------------------------------------
// Origins and call sites
// --------------------------------------------------------------------------------------

TSNode SemanticModel::prepared_argument(TSNode call, int index, const Scope* scope, int depth) const {
  if (!is(call, "call") || index < 0 || depth > kMaxDepth) return TSNode{};
  TSNode fn = unparen(field(call, "function"));
  if (!is(fn, "attribute") || text(field(fn, "attribute"), src_) != "prepare") return TSNode{};
  for (TSNode a : call_arguments(call))
    if (is(a, "list_splat") || is(a, "dictionary_splat")) return TSNode{};  // positions unknown
  std::vector<TSNode> positional = positional_arguments(call);
  if (static_cast<std::size_t>(index) >= positional.size()) return TSNode{};
  for (const auto& o : origins(field(fn, "object"), scope, depth + 1)) {
    if (!is(o.node, "call")) continue;
    auto q = callee_name(o.node, o.scope);
    if (q && *q == "accelerate.Accelerator")
      return positional[static_cast<std::size_t>(index)];
  }
  return TSNode{};
}

bool SemanticModel::dominates(TSNode binding_stmt, TSNode use) const {
  if (is_null(binding_stmt) || end(binding_stmt) > start(use)) return false;
  TSNode st = binding_stmt;
  TSNode p = parent(st);
  if (is(p, "expression_statement")) { st = p; p = parent(p); }
  if (!(is(p, "block") || is(p, "module"))) return false;
  return start(p) <= start(use) && start(use) < end(p);
}

std::vector<Origin> SemanticModel::origins(TSNode expr, const Scope* scope, int depth) const {
  if (!built_ || origins_active_ != 0 || !unpacking_.empty()) return origins_uncached(expr, scope, depth);
  OriginsKey key{expr.id, scope, depth};
  auto memo = origins_memo_.find(key);
  if (memo != origins_memo_.end()) return memo->second;
  auto out = origins_uncached(expr, scope, depth);
  origins_memo_.emplace(key, out);
  return out;
}

std::vector<Origin> SemanticModel::origins_uncached(TSNode expr, const Scope* scope, int depth) const {
  // The outermost origins query (whatever its entry point) gives unpacked_return_origins its
  // budget of expansions for the whole query.
  struct Query {
    int& active;
    Query(int& a, int& budget) : active(a) {
      if (active++ == 0) budget = kMaxUnpackExpansions;
    }
    ~Query() { --active; }
  } query{origins_active_, unpack_budget_};
  std::vector<Origin> out;
  if (is_null(expr) || depth > kMaxDepth) return out;
  expr = unparen(expr);
  if (is(expr, "identifier")) {
    const Scope* fs = nullptr;
    const auto* bs = lookup(text(expr, src_), scope, &fs);
    if (!bs) return out;
    // Reaching definitions, approximately: in the use's own scope, a binding that starts after
    // the use cannot reach it unless a loop around the use also contains that binding.
    TSNode use_loop{};
    if (fs == scope) {
      for (TSNode p = this->parent(expr); !is_null(p); p = this->parent(p)) {
        if (is(p, "for_statement") || is(p, "while_statement")) { use_loop = p; break; }
        if (is(p, "function_definition") || is(p, "class_definition") || is(p, "lambda")) break;
      }
    }
    // And a binding of the use's own scope that a later one re-binds on every path to the use
    // does not reach it either: `loader = DataLoader(a)` then `loader = DataLoader(b)` in the
    // same block, then `for x in loader:` draws from b only. Not a re-binding that reads the
    // name (`model = model.to(device)`): origins stop at calls, so the earlier binding is
    // where that value comes from.
    uint32_t killed_before = 0;
    if (fs == scope && bs->size() > 1)
      for (const auto& b : *bs)
        if (b.kind == Binding::Kind::Assign && dominates(b.stmt, expr) && !mentions_identifier(b.value, text(expr, src_), src_))
          killed_before = std::max(killed_before, start(b.stmt));
    for (const auto& b : *bs) {
      if (fs == scope && !is_null(b.stmt) && start(b.stmt) > start(expr) &&
          (is_null(use_loop) || start(b.stmt) >= end(use_loop)))
        continue;
      // A binding after the use reaches it only through the back edge of the use's loop, to
      // the loop's head; a re-binding inside that loop on every path to the use (a dominating
      // one, below) lies on that way too: `net = Net()`, `evaluate(net)`, then later in the
      // same iteration `net = Net().to(device)` — the evaluation only ever sees the first.
      if (fs == scope && !is_null(b.stmt) && start(b.stmt) > start(expr) && !is_null(use_loop) &&
          killed_before > start(use_loop))
        continue;
      // (The bound identifier's position: a parameter's binding statement is its whole def.)
      if (fs == scope && !is_null(b.target) && end(b.target) <= killed_before) continue;
      // `obses = self._get_tensors(obses)`: the assignment binds after its right-hand side is
      // evaluated, so the use there reads an earlier binding — unless a loop around the use
      // brings this one back from the previous iteration.
      if (fs == scope && b.kind == Binding::Kind::Assign && !is_null(b.value) && is_null(use_loop) &&
          !is_null(b.stmt) && is(b.stmt, "assignment") && start(expr) >= start(field(b.stmt, "right")) &&
          end(expr) <= end(field(b.stmt, "right")))
        continue;
      // A binding made through `global` in a function reads its value there.
      const Scope* vs = b.declared_in ? b.declared_in : fs;
      if (b.kind == Binding::Kind::Assign && b.unpack_index < 0 && !is_null(b.value)) {
        auto sub = origins(b.value, vs, depth + 1);
        out.insert(out.end(), sub.begin(), sub.end());
      } else if (b.kind == Binding::Kind::Assign && b.unpack_index >= 0 && !is_null(b.value)) {
        // `train_loader, test_loader = load_data()`: element i of what a function of this file
        // returns; otherwise (`x, y = accelerator.prepare(a, b)`) the origin is the call itself.
        // `model, opt, loader = accelerator.prepare(model, opt, loader)`: element i is argument i.
        TSNode prepared = prepared_argument(unparen(b.value), b.unpack_index, vs, depth + 1);
        auto elems = is_null(prepared) ? unpacked_return_origins(b, depth) : origins(prepared, vs, depth + 1);
        if (!elems.empty()) out.insert(out.end(), elems.begin(), elems.end());
        else out.push_back({unparen(b.value), vs});
      } else if (b.kind == Binding::Kind::With && !is_null(b.value) && is(unparen(b.value), "call")) {
        // `with tqdm(train_loader) as td:` — tqdm's __enter__ returns the bar itself
        // (tqdm/std.py, tqdm.__enter__: `return self`); other context managers may not.
        const auto& q = callee_name(unparen(b.value), fs);
        if (q && q->rfind("tqdm.", 0) == 0) out.push_back({unparen(b.value), fs});
      } else if (b.kind == Binding::Kind::Param && !is_null(b.target) && !is_null(b.function)) {
        // What each call site of the function passes for it (passed_argument; `train_mlp()`
        // with `def train_mlp(model=MLP())` gets the default); `**kwargs`: the dicts the call
        // sites unpack (kwargs_dict_arguments). A site that cannot tell adds nothing.
        if (is(parent(b.target), "dictionary_splat_pattern")) {
          if (auto dicts = kwargs_dict_arguments(b))
            for (const ParamArgument& a : *dicts) {
              auto sub = origins(a.value, a.scope, depth + 1);
              out.insert(out.end(), sub.begin(), sub.end());
            }
          continue;
        }
        for (const auto& site : call_sites(b.function))
          if (auto a = passed_argument(b, site)) {
            auto sub = origins(a->value, a->scope, depth + 1);
            out.insert(out.end(), sub.begin(), sub.end());
          }
      }
    }
    return out;
  }
  if (is(expr, "subscript")) {
    // d["train"] / d[phase] where d is a dict literal or a dict comprehension of this file.
    TSNode base = unparen(field(expr, "value"));
    TSNode key = field(expr, "subscript");
    std::string key_text;
    bool literal_key = !is_null(key) && string_literal_value(key, src_, &key_text);
    bool any_dict = false;
    for (const auto& o : origins(base, scope, depth + 1)) {
      if (is(o.node, "dictionary")) {
        any_dict = true;
        for (auto pair : named_children(o.node)) {
          if (!is(pair, "pair")) continue;
          std::string k;
          if (literal_key && string_literal_value(field(pair, "key"), src_, &k) && k != key_text) continue;
          auto sub = origins(field(pair, "value"), o.scope, depth + 1);
          out.insert(out.end(), sub.begin(), sub.end());
        }
      } else if (is(o.node, "dictionary_comprehension")) {
        any_dict = true;
        for (auto ch : named_children(o.node))
          if (is(ch, "pair")) out.push_back({unparen(field(ch, "value")), scope_of(field(ch, "value"))});
      }
    }
    if (any_dict) return out;
    out.push_back({expr, scope});
    return out;
  }
  if (is(expr, "attribute")) {
    // `self.optimizer`, and through an instance of a class of the file (`self.q_eval.optimizer`
    // with `self.q_eval = DeepQNetwork(...)`): the stores a read through that class can see.
    TSNode obj = unparen(field(expr, "object"));
    const Scope* reader = nullptr;
    if (is_instance_parameter(obj, scope)) {
      reader = scope;
    } else if (TSNode cls = instance_class(obj, scope); is(cls, "class_definition")) {
      reader = function_scope(cls);
    }
    if (reader) {
      for (const AttributeStore* st : self_attribute_stores(text(field(expr, "attribute"), src_), reader)) {
        if (is_null(st->value)) continue;
        auto sub = origins(st->value, st->scope, depth + 1);
        out.insert(out.end(), sub.begin(), sub.end());
      }
      return out;
    }
  }
  if (is(expr, "call")) {
    // `loader = accelerator.prepare(loader)`: the prepared object stands for its argument.
    if (positional_arguments(expr).size() == 1) {
      TSNode prepared = prepared_argument(expr, 0, scope, depth + 1);
      if (!is_null(prepared)) return origins(prepared, scope, depth + 1);
    }
    // A function of this file: what its return statements return (`args = get_args()`,
    // `loader = make_loader(ds)`, `model = build_model()`).
    TSNode def = resolve_local_function(expr, scope);
    if (!is_null(def)) {
      std::vector<TSNode> returns = returned_values(def);
      const Scope* fscope = function_scope(def);
      for (TSNode r : returns) {
        auto sub = origins(r, fscope ? fscope : scope, depth + 1);
        out.insert(out.end(), sub.begin(), sub.end());
      }
      if (!returns.empty()) return out;
    }
  }
  out.push_back({expr, scope});
  return out;
}

std::vector<Origin> SemanticModel::unpacked_return_origins(const Binding& b, int depth) const {
  std::vector<Origin> out;
  // `model, acc = train(model)` re-enters this binding through the parameter's call sites:
  // a binding already being expanded is not expanded again, and one origins query may expand at most kMaxUnpackExpansions
  // bindings (distinct bindings reached along many paths would otherwise multiply: 3.5 s on
  // one real script before either bound). The caller falls back to the call itself as the
  // origin when this answers nothing, so a cut-off stays undecided rather than wrong.
  if (std::find(unpacking_.begin(), unpacking_.end(), b.target.id) != unpacking_.end()) return out;
  if (origins_active_ == 0 && unpacking_.empty()) unpack_budget_ = kMaxUnpackExpansions;  // called directly
  if (unpack_budget_ <= 0) return out;
  --unpack_budget_;
  unpacking_.push_back(b.target.id);
  struct Pop {
    std::vector<const void*>& v;
    ~Pop() { v.pop_back(); }
  } pop{unpacking_};
  TSNode call = unparen(b.value);
  if (!is(call, "call") || is_null(b.target) || !is(b.stmt, "assignment")) return out;
  // Only a name of the assignment's own pattern (`a, (b, c) = f()` gives nested names an
  // index into the inner pattern, which does not say which returned element they get).
  TSNode pattern = unparen(field(b.stmt, "left"));
  TSNode up = this->parent(b.target);
  if (!same(up, pattern)) return out;
  std::size_t arity = named_children(pattern).size();
  const Scope* call_scope = scope_of(call);
  TSNode def = resolve_local_function(call, call_scope);
  if (is_null(def)) return out;
  std::vector<TSNode> returns = returned_values(def);
  const Scope* fscope = function_scope(def);
  if (returns.empty() || !fscope) return out;
  std::vector<Origin> found;
  for (TSNode r : returns) {
    r = unparen(r);
    // Every return must be a tuple of the pattern's arity: otherwise the element is unknown.
    if (!(is(r, "expression_list") || is(r, "tuple"))) return out;
    auto el = named_children(r);
    if (el.size() != arity) return out;
    for (TSNode e : el)
      if (is(e, "list_splat")) return out;
    auto sub = origins(el[static_cast<std::size_t>(b.unpack_index)], fscope, depth + 1);
    found.insert(found.end(), sub.begin(), sub.end());
  }
  return found;
}

std::vector<TSNode> SemanticModel::returned_values(TSNode def) const {
  std::vector<TSNode> returns;
  std::vector<TSNode> stack{field(def, "body")};
  while (!stack.empty() && returns.size() < 16) {
    TSNode n = stack.back();
    stack.pop_back();
    if (is_null(n)) continue;
    if (is(n, "function_definition") || is(n, "class_definition") || is(n, "lambda")) continue;
    if (is(n, "return_statement")) {
      if (named_count(n) > 0) returns.push_back(named(n, 0));
      continue;
    }
    for (TSNode ch : named_children(n)) stack.push_back(ch);
  }
  return returns;
}

const Scope* SemanticModel::function_scope(TSNode def) const {
  auto it = scope_by_node_.find(def.id);
  return it == scope_by_node_.end() ? nullptr : it->second;
}

std::vector<const Scope*> SemanticModel::base_class_scopes(const Scope* cls) const {
  std::vector<const Scope*> out;
  std::vector<const Scope*> todo{cls};
  // Bounded: at most 32 classes (a hierarchy deeper than that is left partly unexplored, and a
  // cycle through rebound names ends on the visited check).
  for (std::size_t i = 0; i < todo.size() && out.size() < 32; ++i) {
    const Scope* c = todo[i];
    if (!c || c->kind != Scope::Kind::Class || is_null(c->node)) continue;
    TSNode sup = field(c->node, "superclasses");
    if (is_null(sup)) continue;
    const Scope* around = c->parent;
    for_each_named_child(sup, [&](TSNode b) {
      b = unparen(b);
      if (!is(b, "identifier")) return;
      const auto* bs = lookup(text(b, src_), around);
      if (!bs || bs->empty()) return;
      for (const auto& x : *bs)
        if (x.kind != Binding::Kind::Class) return;
      for (const auto& x : *bs) {
        auto it = scope_by_node_.find(x.function.id);
        if (it == scope_by_node_.end()) continue;
        const Scope* base = it->second;
        if (base == cls || std::find(out.begin(), out.end(), base) != out.end()) continue;
        out.push_back(base);
        todo.push_back(base);
      }
    });
  }
  return out;
}

std::vector<const SemanticModel::AttributeStore*> SemanticModel::self_attribute_stores(
    std::string_view attr, const Scope* scope) const {
  std::vector<const AttributeStore*> out;
  auto it = attribute_stores_.find(std::string(attr));
  if (it == attribute_stores_.end()) return out;
  const Scope* reader = scope;
  while (reader && reader->kind != Scope::Kind::Class) reader = reader->parent;
  std::vector<const Scope*> bases = reader ? base_class_scopes(reader) : std::vector<const Scope*>{};
  for (const AttributeStore& st : it->second) {
    bool visible = !reader || !st.self_class || st.self_class == reader ||
                   std::find(bases.begin(), bases.end(), st.self_class) != bases.end();
    if (!visible) {
      // A subclass's store: `self` in the reader's method may be an instance of it.
      auto up = base_class_scopes(st.self_class);
      visible = std::find(up.begin(), up.end(), reader) != up.end();
    }
    if (visible) out.push_back(&st);
  }
  return out;
}

bool SemanticModel::is_instance_parameter(TSNode ident, const Scope* scope) const {
  if (!is(ident, "identifier")) return false;
  std::string name(text(ident, src_));
  for (const Scope* s = scope; s; s = s->parent) {
    // A class body's names are not visible in the functions nested in it.
    if (s->kind == Scope::Kind::Class && s != scope) continue;
    auto it = s->names.find(name);
    if (it == s->names.end()) continue;
    if (s->kind != Scope::Kind::Function || !s->parent || s->parent->kind != Scope::Kind::Class)
      return false;
    for (const Binding& b : it->second)
      if (b.kind != Binding::Kind::Param || b.param_index != 0) return false;
    TSNode decorated = parent(s->node);
    if (is(decorated, "decorated_definition"))
      for (TSNode d : named_children(decorated)) {
        if (!is(d, "decorator") || named_count(d) == 0) continue;
        auto q = qualified_name(unparen(named(d, 0)), s->parent);
        if (q && (*q == "builtins.staticmethod" || *q == "builtins.classmethod")) return false;
      }
    return true;
  }
  return false;
}

TSNode SemanticModel::resolve_local_function(TSNode call, const Scope* scope) const {
  TSNode fn = unparen(field(call, "function"));
  std::string_view name;
  const Scope* s = scope;
  if (is(fn, "identifier")) {
    name = text(fn, src_);
  } else if (is(fn, "attribute") && is_instance_parameter(unparen(field(fn, "object")), scope)) {
    name = text(field(fn, "attribute"), src_);
    // Find the enclosing class scope.
    while (s && s->kind != Scope::Kind::Class) s = s->parent;
    if (!s) return TSNode{};
    auto it = s->names.find(std::string(name));
    if (it == s->names.end()) return TSNode{};
    for (const auto& b : it->second)
      if (b.kind == Binding::Kind::Def) return b.function;
    return TSNode{};
  } else if (is(fn, "attribute") &&
             (is(unparen(field(fn, "object")), "identifier") || is(unparen(field(fn, "object")), "attribute"))) {
    return instance_method(unparen(field(fn, "object")), text(field(fn, "attribute"), src_), scope);
  } else {
    return TSNode{};
  }
  const auto* bs = lookup(name, s);
  if (!bs) return TSNode{};
  TSNode def{};
  for (const auto& b : *bs) {
    if (b.kind != Binding::Kind::Def) return TSNode{};
    def = b.function;
  }
  return def;
}

TSNode SemanticModel::instance_class(TSNode object, const Scope* scope, int depth,
                                     std::vector<TSNode>* classes) const {
  // Several classes: listed in `classes` when asked for, and no single answer.
  bool several = false;
  auto add = [&](TSNode& cls, TSNode c) {
    if (!is_null(cls) && !same(cls, c)) {
      if (!classes) return false;
      several = true;
      if (std::none_of(classes->begin(), classes->end(), [&](TSNode x) { return same(x, c); })) classes->push_back(c);
      return true;
    }
    if (is_null(cls)) {
      cls = c;
      if (classes) classes->push_back(c);
    }
    return true;
  };
  auto unknown = [&]() {
    if (classes) classes->clear();
    return TSNode{};
  };
  object = unparen(object);
  if (depth > 3) return TSNode{};
  // The class that `value` instantiates: `C(...)` with C bound only to one class of the file.
  std::function<TSNode(TSNode, const Scope*, int)> instantiated_at;
  auto instantiated = [&](TSNode value, const Scope* vs) { return instantiated_at(value, vs, 0); };
  instantiated_at = [&](TSNode value, const Scope* vs, int chain) -> TSNode {
    TSNode v = unparen(value);
    if (!is(v, "call") || chain > 8) return TSNode{};
    TSNode cf = unparen(field(v, "function"));
    // `model = model.to(device)`, `net.cuda()`, `net.train()`: nn.Module's to / cuda / cpu /
    // train / eval / float / double / half return the module itself (torch/nn/modules/module.py:
    // "Returns: Module: self"), so the value is an instance of the receiver's class — when that
    // class derives from torch.nn.Module and does not define the method itself.
    if (is(cf, "attribute")) {
      // `Net().to(device)`: the receiver a construction itself.
      TSNode obj = unparen(field(cf, "object"));
      TSNode c = is(obj, "call") ? instantiated_at(obj, vs, chain + 1) : instance_class(obj, vs, depth + 1);
      return module_method_returning_self(c, text(field(cf, "attribute"), src_)) ? c : TSNode{};
    }
    if (!is(cf, "identifier")) return TSNode{};
    const auto* cbs = lookup(text(cf, src_), vs);
    if (!cbs || cbs->size() != 1 || cbs->front().kind != Binding::Kind::Class) return TSNode{};
    return cbs->front().function;
  };
  if (is(object, "identifier")) {
    if (is_instance_parameter(object, scope)) {
      // `self`: the class whose method this is.
      const Scope* s = scope;
      while (s && s->kind != Scope::Kind::Function) s = s->parent;
      return s && s->parent && s->parent->kind == Scope::Kind::Class ? s->parent->node : TSNode{};
    }
    const auto* bs = lookup(text(object, src_), scope);
    if (!bs || bs->empty()) return TSNode{};
    TSNode cls{};
    std::vector<std::string_view> self_methods;  // `model = model.to(device)`: checked below
    for (const auto& b : *bs) {
      if (b.kind != Binding::Kind::Assign || b.unpack_index >= 0 || is_null(b.value)) return TSNode{};
      TSNode v = unparen(b.value);
      TSNode cf = is(v, "call") ? unparen(field(v, "function")) : TSNode{};
      if (is(cf, "attribute") && is(unparen(field(cf, "object")), "identifier") &&
          text(unparen(field(cf, "object")), src_) == text(object, src_)) {
        // The name rebound to a method's result on itself: the same instance when the method
        // returns self; the other bindings say which class it is.
        self_methods.push_back(text(field(cf, "attribute"), src_));
        continue;
      }
      TSNode c = instantiated(b.value, scope_of(b.value));
      if (is_null(c) || !add(cls, c)) return unknown();
    }
    for (std::string_view m : self_methods) {
      if (!module_method_returning_self(cls, m)) return unknown();
      if (classes)
        for (TSNode c : *classes)
          if (!module_method_returning_self(c, m)) return unknown();
    }
    return several ? TSNode{} : cls;
  }
  if (!is(object, "attribute")) return TSNode{};
  // `self.memory` / `agent.memory`: every store of `.memory` that a read through an instance of
  // the owner's class can see (self_attribute_stores: the class's own `self.memory = ...`, its
  // in-file bases' and subclasses', and stores through other objects) instantiates the same
  // class D of the file.
  TSNode owner = instance_class(field(object, "object"), scope, depth + 1);
  const Scope* owner_scope = is(owner, "class_definition") ? function_scope(owner) : nullptr;
  if (!owner_scope) return TSNode{};
  TSNode cls{};
  auto stores = self_attribute_stores(text(field(object, "attribute"), src_), owner_scope);
  for (const AttributeStore* st : stores) {
    if (is_null(st->value)) return unknown();  // unpacked or augmented: unknown
    TSNode c = instantiated(st->value, st->scope);
    if (is_null(c) || !add(cls, c)) return unknown();
  }
  return several ? TSNode{} : cls;
}

bool SemanticModel::module_method_returning_self(TSNode cls, std::string_view method) const {
  // torch/nn/modules/module.py: Module.to / cuda / cpu / train / eval / float / double / half
  // each end with `return self` ("Returns: Module: self").
  static const std::set<std::string_view> kReturnsSelf = {"to", "cuda", "cpu", "train", "eval",
                                                          "float", "double", "half"};
  if (!kReturnsSelf.count(method) || !is(cls, "class_definition") || !module_subclass(cls)) return false;
  for (TSNode ch : named_children(field(cls, "body"))) {
    if (is(ch, "decorated_definition")) ch = field(ch, "definition");
    if (is(ch, "function_definition") && text(field(ch, "name"), src_) == method) return false;
  }
  return true;
}

bool SemanticModel::derives_from(TSNode cls, const std::function<bool(std::string_view)>& base, int depth) const {
  if (depth > 8 || !is(cls, "class_definition")) return false;
  TSNode sup = field(cls, "superclasses");
  if (is_null(sup)) return false;
  const Scope* s = scope_of(cls);
  for (TSNode b : named_children(sup)) {
    if (is(b, "keyword_argument")) continue;  // `metaclass=...`
    const auto& q = qualified_name(b, s);
    if (q && base(*q)) return true;
    if (!is(unparen(b), "identifier")) continue;
    const auto* bs = lookup(text(unparen(b), src_), s);
    if (!bs) continue;
    for (const auto& bd : *bs)
      if (bd.kind == Binding::Kind::Class && !same(bd.function, cls) && derives_from(bd.function, base, depth + 1))
        return true;
  }
  return false;
}

bool SemanticModel::module_subclass(TSNode cls) const {
  // Asked for the class of every forward() a creation or call sits in: memoised per class.
  if (auto memo = module_subclass_memo_.find(cls.id); memo != module_subclass_memo_.end()) return memo->second;
  bool r = derives_from(cls, [](std::string_view q) {
    return q.rfind("torch.nn.", 0) == 0 || q.rfind("torch_geometric.nn.", 0) == 0 || lightning_module_name(q);
  });
  if (built_) module_subclass_memo_.emplace(cls.id, r);
  return r;
}

bool lightning_module_name(std::string_view q) {
  static const std::set<std::string_view> kLightningModule = {
      "pytorch_lightning.LightningModule", "pytorch_lightning.core.LightningModule",
      "pytorch_lightning.core.module.LightningModule", "pytorch_lightning.core.lightning.LightningModule",
      "lightning.pytorch.LightningModule", "lightning.pytorch.core.LightningModule",
      "lightning.pytorch.core.module.LightningModule", "lightning.LightningModule"};
  return kLightningModule.count(q) > 0;
}

TSNode SemanticModel::instance_method(TSNode object, std::string_view method, const Scope* scope) const {
  std::vector<TSNode> classes;
  TSNode cls = instance_class(object, scope, 0, &classes);
  if (is_null(cls) && classes.size() > 1) {
    // Several classes: the one that defines the method (and no other that may).
    TSNode found{};
    for (TSNode c : classes) {
      TSNode m = own_method(c, method);
      if (is_null(m)) continue;
      if (!is_null(found)) return TSNode{};
      found = m;
    }
    return found;
  }
  if (!is(cls, "class_definition")) return TSNode{};
  return own_method(cls, method);
}

TSNode SemanticModel::own_method(TSNode cls, std::string_view method) const {
  // A method defined in the class body itself, without decorators (a staticmethod or
  // classmethod binds its arguments differently; another decorator may replace the function).
  // Not one inherited from a base class.
  TSNode found{};
  for (TSNode ch : named_children(field(cls, "body"))) {
    if (is(ch, "function_definition") && text(field(ch, "name"), src_) == method) found = ch;
    else if (is(ch, "decorated_definition")) {
      TSNode d = field(ch, "definition");
      if (is(d, "function_definition") && text(field(d, "name"), src_) == method) return TSNode{};
    } else if (is(ch, "expression_statement") && named_count(ch) == 1 && is(named(ch, 0), "assignment")) {
      TSNode l = unparen(field(named(ch, 0), "left"));
      if (is(l, "identifier") && text(l, src_) == method) return TSNode{};  // rebound in the body
    }
  }
  return found;
}

std::vector<Origin> SemanticModel::call_sites(TSNode def) const {
  std::vector<Origin> out;
  TSNode name = field(def, "name");
  if (is_null(name)) return out;
  auto it = calls_by_name_.find(std::string(text(name, src_)));
  if (it != calls_by_name_.end())
    for (TSNode c : it->second) {
      const Scope* s = scope_of(c);
      TSNode d = resolve_local_function(c, s);
      if (!is_null(d) && same(d, def)) out.push_back({c, s});
    }
  // `__init__` is called by instantiating its class: `DeviceDataLoader(train_dl, device)`
  // binds `dl` and `device` (https://docs.python.org/3/reference/datamodel.html#object.__init__).
  const Scope* cs = scope_of(def);
  if (text(name, src_) == "__init__" && cs && cs->kind == Scope::Kind::Class && !is_null(cs->node)) {
    TSNode cname = field(cs->node, "name");
    auto ct = is_null(cname) ? calls_by_name_.end() : calls_by_name_.find(std::string(text(cname, src_)));
    if (ct != calls_by_name_.end())
      for (TSNode c : ct->second) {
        TSNode fn = unparen(field(c, "function"));
        if (!is(fn, "identifier")) continue;
        const Scope* s = scope_of(c);
        const auto* bs = lookup(text(fn, src_), s);
        if (!bs || bs->empty()) continue;
        bool only_this_class = true;
        for (const auto& b : *bs)
          only_this_class = only_this_class && b.kind == Binding::Kind::Class && same(b.function, cs->node);
        if (only_this_class) out.push_back({c, s});
      }
  }
  return out;
}

}  // namespace gpulint::python
