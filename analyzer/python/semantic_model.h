// The Python semantic model: scopes and bindings, imports resolved to qualified names,
// constant evaluation (literals, module constants, argparse defaults, dicts passed as
// **kwargs, values of parameters through the file's own call sites) and argument binding
// to known signatures. Built in one walk over a tree-sitter tree; read-only afterwards.
//
// Every query may answer "unknown" (an empty vector, nullopt or Value::Kind::Unknown):
// rules built on it stay silent then.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analyzer/facts.h"
#include "analyzer/python/syntax.h"

namespace gpulint::python {

struct Scope;

/// True for the qualified names of Lightning's LightningModule (pytorch_lightning and lightning
/// packages, every module path that exports it).
bool lightning_module_name(std::string_view qualified);

/// One place where a name gets a value.
struct Binding {
  enum class Kind { Import, Assign, AugAssign, For, With, Param, Def, Class, Other };
  Kind kind = Kind::Other;
  TSNode stmt{};             ///< the binding statement (assignment, for, import, def …)
  TSNode target{};           ///< the identifier bound
  TSNode value{};            ///< Assign/AugAssign: the right-hand side (element when unpacked)
  int unpack_index = -1;     ///< Assign with an undestructurable RHS: index into it; For: index into the element
  std::string qualified;     ///< Import: what the name refers to ("torch.utils.data")
  TSNode function{};         ///< Param: the function_definition; Def/Class: the definition
  int param_index = -1;      ///< Param: positional index (-1: keyword-only or * / **)
  TSNode param_default{};    ///< Param: its default value, if any
  /// A binding a function makes to a name it declares `global` is kept in the module's scope
  /// (`nonlocal`: in the enclosing function's), where every reader's lookup finds it; this is the
  /// declaring function's scope, where its value (and whatever it reads) is evaluated. Null for
  /// every other binding.
  const struct Scope* declared_in = nullptr;
};

struct Scope {
  enum class Kind { Module, Function, Class, Lambda, Comprehension };
  Kind kind = Kind::Module;
  TSNode node{};
  Scope* parent = nullptr;
  std::unordered_map<std::string, std::vector<Binding>> names;
  std::vector<std::string> globals;      ///< names declared `global` here
  std::vector<std::string> nonlocals;    ///< names declared `nonlocal` here
  std::vector<std::string> star_imports; ///< modules of `from M import *`
};

/// A call's arguments, bound to a signature's parameter names.
struct Signature {
  std::vector<std::string> positional;   ///< in order
  std::vector<std::string> keyword_only;
};

/// The keys of a dict value: key -> possible values (Absent where a path lacks the key).
struct DictValue {
  std::map<std::string, std::vector<Value>> keys;
  bool unknown_keys = false;  ///< something unresolvable was merged in
};

/// The truth value Python gives every value in `vs` (`bool(v)`: False, 0, 0.0, None and "" are
/// false) when they all agree; nullopt when they disagree, when `vs` is empty or when one of them
/// is not a literal value (unknown, absent).
std::optional<bool> agreed_truth(const std::vector<Value>& vs);

/// A value expression together with the scope it is evaluated in.
struct Origin {
  TSNode node{};
  const Scope* scope = nullptr;
};

/// Hash of a (syntax node id, scope) pair: the key of per-node memos (a node's `id` is unique
/// within one tree).
struct NodeScopeHash {
  std::size_t operator()(const std::pair<const void*, const Scope*>& k) const noexcept {
    std::size_t a = std::hash<const void*>()(k.first), b = std::hash<const void*>()(k.second);
    return a ^ (b + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2));
  }
};

class SemanticModel {
 public:
  /// Builds the model for a parsed module. `src` and the tree must outlive the model.
  SemanticModel(std::string_view src, TSNode root);

  std::string_view src() const { return src_; }
  TSNode root() const { return root_; }
  const Scope* module_scope() const { return scopes_.front().get(); }
  /// True when the module imports torch or a torch-based framework anywhere (cheap check
  /// that lets analysis skip files that cannot have findings).
  bool imports_torch() const { return imports_torch_; }
  /// True when the module nests deeper than kMaxNesting syntax levels: the model then stops
  /// descending there (tree-sitter parent links cost O(depth), so deeper trees would make the
  /// analysis quadratic). Analysis reports nothing for such files and says so.
  bool too_deep() const { return too_deep_; }
  static constexpr int kMaxNesting = 400;
  /// Every qualified-name prefix imported anywhere ("torch", "lightning.pytorch", …).
  bool imports_module(std::string_view prefix) const;

  /// The parent of `node` (null for the root). tree-sitter's ts_node_parent descends from the
  /// root and scans every top-level statement before `node` (O(module size) per call); this
  /// binary-searches the top-level statement first, then descends from there, and remembers
  /// the parent of every ancestor it passes, so walking up a chain of parents costs one
  /// descent instead of one per step. (The memo makes the model unsafe to query from two
  /// threads at once; each analysis builds and queries its own model on one thread.)
  TSNode parent(TSNode node) const;

  /// The innermost scope containing `node`.
  const Scope* scope_of(TSNode node) const;
  /// Bindings of `name` visible from `scope` (Python's LEGB without builtins), or nullptr.
  const std::vector<Binding>* lookup(std::string_view name, const Scope* scope,
                                     const Scope** found = nullptr) const;

  /// The qualified name an expression refers to: "torch.utils.data.DataLoader" for
  /// `DL` after `from torch.utils.data import DataLoader as DL`; "builtins.enumerate" for an
  /// unbound builtin; "local.Net" for a class or function defined in this file.
  /// nullopt when it cannot be decided. Aliases of moved modules are canonicalised.
  /// The answer is memoised per (expr, scope): the reference stays valid as long as the model.
  const std::optional<std::string>& qualified_name(TSNode expr, const Scope* scope) const;
  /// The qualified name of `name` where no binding of this file gives it (a global the
  /// module reads without assigning): "builtins.len" for a builtin; what the module's star
  /// imports provide ("config.device" after `from config import *` alone; "torch" for `torch`
  /// when a module outside torch's family is star-imported, nullopt when only torch-family
  /// packages are, as they do not export the name);
  /// "builtins.<name>" when the module has no star import (a NameError at run time); nullopt
  /// when several star imports could provide it.
  std::optional<std::string> unbound_name(std::string_view name) const;
  /// Qualified name of a call's callee.
  const std::optional<std::string>& callee_name(TSNode call, const Scope* scope) const;

  /// Possible constant values of `expr`: literals, names bound to constants (union over
  /// all bindings), `x if c else y`, argparse defaults (`args.workers`), parameters through
  /// this file's call sites, `torch.device("cuda")` (as the string "cuda").
  /// A result containing Value::unknown() means: could be anything.
  std::vector<Value> evaluate(TSNode expr, const Scope* scope, int depth = 0) const;
  /// True when `expr` can only be a Python int whatever its value: an integer literal, int(),
  /// len(), torch.cuda.device_count()/current_device(), torch.distributed.get_rank() and
  /// friends, `x % n` / `x // n` with such an n, sums and products of them, or a name whose
  /// every origin is one. (torch.device(i) of an int i names CUDA device i: see evaluate.)
  bool int_typed(TSNode expr, const Scope* scope, int depth = 0) const;
  /// Evaluates a dict expression (literal, dict(...), `a if c else b` — either side —, a name
  /// plus its .update()/[k]= writes). A key one alternative lacks gets Value::absent() among its
  /// values. nullopt when any part is not a dict gpulint can read.
  std::optional<DictValue> evaluate_dict(TSNode expr, const Scope* scope, int depth = 0) const;

  /// The value an argument of `call` takes for parameter `param` of `sig`.
  ArgumentFact bind_argument(TSNode call, const Signature& sig, std::string_view param,
                             const Scope* scope) const;
  /// The expression passed for `param` (keyword or positional), or a null node.
  TSNode argument_node(TSNode call, const Signature& sig, std::string_view param) const;

  /// Where the value of `expr` comes from: follows names through assignments, parameters
  /// through this file's call sites, `self.attr` through the class's assignments, calls of
  /// this file's functions through their returns, and tuple unpacking of such a call
  /// (`a, b = f()`) to the element at the name's index when every return of `f` is a tuple.
  /// Returns the terminal expressions (calls, literals …). Empty: unknown.
  /// Reaching definitions are approximated in the use's own scope: bindings after the use
  /// (unless a loop around the use holds them) and bindings before one that dominates the use
  /// (see dominates) are left out.
  std::vector<Origin> origins(TSNode expr, const Scope* scope, int depth = 0) const;

  /// True when the binding statement `binding_stmt` (an assignment, or its expression
  /// statement) runs on every path to `use` after its own evaluation: it is a direct statement
  /// of a block (or of the module) that contains `use`, and it ends before `use` starts. Then a
  /// binding of the same name earlier in the file cannot reach `use` (structured control flow:
  /// Python has no goto; an exception raised by the statement skips `use` too).
  bool dominates(TSNode binding_stmt, TSNode use) const;

  /// For `accelerator.prepare(a, b, c)` of an accelerate.Accelerator (recognised by the
  /// qualified name of the receiver's origin): the positional argument at `index`, which the
  /// call returns prepared in the same place (accelerate/accelerator.py, Accelerator.prepare:
  /// "will return the objects in the same order"; a DataLoader comes back re-created with the
  /// original's num_workers and pin_memory). A null node for any other call, a splat, or an
  /// index out of range.
  TSNode prepared_argument(TSNode call, int index, const Scope* scope, int depth = 0) const;

  /// The expressions the `return` statements of `function_definition` give (not those of
  /// nested functions or classes; at most 16). Empty when it returns nothing.
  std::vector<TSNode> returned_values(TSNode function_definition) const;

  /// For a name bound by unpacking a call of this file's function (`train_loader, test_loader =
  /// load_data()`): the origins of the element at the name's position in every `return a, b`
  /// of that function. Empty when a return is not a tuple of the pattern's arity, the name sits
  /// in a nested pattern, the callee is not a function of this file, the binding is already
  /// being expanded by an enclosing query (a cycle: `model, acc = train(model)`), or the
  /// origins query it serves has already expanded kMaxUnpackExpansions bindings. `depth`: the
  /// origins query's recursion depth (origins stops at its own limit).
  std::vector<Origin> unpacked_return_origins(const Binding& b, int depth = 0) const;
  static constexpr int kMaxUnpackExpansions = 64;

  /// True when the identifier `ident` (used in `scope`) is the instance parameter of a method:
  /// the first parameter of a function defined directly in a class body, not decorated with
  /// builtins.staticmethod or builtins.classmethod (Python data model: a function attribute of
  /// a class is bound to the instance as its first argument). Closures inside the method see it
  /// too. Decided from bindings, not from the spelling `self`.
  bool is_instance_parameter(TSNode ident, const Scope* scope) const;

  /// The scope of a function's (or a class's) body; null when the node is no definition of
  /// this file.
  const Scope* function_scope(TSNode function_definition) const;

  /// Call sites in this file of the function defined by `function_definition` (for a class's
  /// `__init__`, the instantiations of the class too).
  std::vector<Origin> call_sites(TSNode function_definition) const;
  /// The function_definition a call's callee resolves to in this file, or a null node: a
  /// function bound to the callee's name, a method called on `self` (`self.step(x)`), or a
  /// method called on an instance of a class of this file (`agent = Agent(net)`, then
  /// `agent.select_action(s)`: instance_method).
  TSNode resolve_local_function(TSNode call, const Scope* scope) const;
  /// The method `method` that class instance_class(object) defines in its own body; a null
  /// node when there is no such class, or the method is decorated, rebound in the class body
  /// or only inherited. When `object` may be an instance of several classes of the file (`if
  /// mode == "lstm": self.net = LSTMNet() else: self.net = ConvNet()`), the method of the one
  /// class among them that defines it in its body (on the others the call would raise
  /// AttributeError unless a base class defines it: the call may run that one method).
  TSNode instance_method(TSNode object, std::string_view method, const Scope* scope) const;
  /// The class of this file that `object` (seen from `scope`) is an instance of: for a name,
  /// the class every binding of it instantiates (`agent = Agent(...)`); for `self` in a method,
  /// that method's class; for `x.attr` (`self.memory`, `agent.memory`), the class every store
  /// of `.attr` visible through an instance of x's class (self_attribute_stores) instantiates.
  /// A null node otherwise. With `classes`, every class of the file the object may be an
  /// instance of is listed there, in the order found, when each binding or store instantiates
  /// one (several: the function returns a null node); empty when one of them is unknown.
  TSNode instance_class(TSNode object, const Scope* scope, int depth = 0,
                        std::vector<TSNode>* classes = nullptr) const;
  /// The method `method` that class `cls` defines in its own body, undecorated and not
  /// rebound there; a null node otherwise.
  TSNode own_method(TSNode cls, std::string_view method) const;
  /// True when class `cls` (a class_definition of this file) has a base whose qualified name
  /// satisfies `base` (`pl.LightningModule` after `import pytorch_lightning as pl` gives
  /// "pytorch_lightning.LightningModule"), directly or through classes of this file
  /// (`class Net(BaseModel)` with `class BaseModel(nn.Module)`), at most 8 levels deep.
  bool derives_from(TSNode cls, const std::function<bool(std::string_view)>& base, int depth = 0) const;
  /// derives_from a torch.nn class (torch.nn.Module, nn.Sequential, ...), a PyTorch Geometric
  /// module or a LightningModule (lightning_module_name).
  bool module_subclass(TSNode cls) const;
  /// True when `method` called on an instance of class `cls` returns that instance: one of
  /// nn.Module's to / cuda / cpu / train / eval / float / double / half (each `return self`,
  /// torch/nn/modules/module.py), `cls` a module_subclass that does not define it itself.
  bool module_method_returning_self(TSNode cls, std::string_view method) const;

  /// The truth of condition `cond` when literals decide it: literals, names every binding of
  /// which assigns a literal (`ngpu = 0`; not argparse defaults or parameters, which a run may
  /// change), comparisons of such numbers, `not`, and `and` / `or` where one side decides
  /// (`torch.cuda.is_available() and ngpu > 0` is false); nullopt otherwise.
  /// Decides dead code (FactsBuilder) and picks the side of a conditional expression (evaluate).
  std::optional<bool> literal_truth(TSNode cond, const Scope* scope, int depth = 0) const;
  /// All `call` nodes of the module, in source order (collected in the model's walk).
  const std::vector<TSNode>& calls() const { return calls_; }
  /// All for/while loops, in source order.
  const std::vector<TSNode>& loops() const { return loops_; }
  /// All `if` statements the model's walk reached, in source order (what decides dead code).
  const std::vector<TSNode>& if_statements() const { return ifs_; }

  /// Every store into an attribute named `attr` of any object (`X.attr = v`, `X.attr += v`,
  /// `for X.attr in ...`): the binding statement and the scope it runs in, in walk order.
  struct AttributeStoreSite {
    TSNode stmt;
    const Scope* scope;
  };
  std::vector<AttributeStoreSite> attribute_store_sites(std::string_view attr) const;

  /// What a parameter receives at each call site of its function in the file: the argument
  /// (positional or keyword) and the scope it is evaluated in, or its default where a call passes
  /// none (passed_argument). A `**kwargs` parameter receives the dict each call site unpacks
  /// (kwargs_dict_arguments). Nothing when there is no call site or one cannot tell.
  struct ParamArgument {
    TSNode value;
    const Scope* scope;
  };
  std::optional<std::vector<ParamArgument>> param_arguments(const Binding& b) const;
  /// What call `site` (a call site of param's function: call_sites) passes for parameter
  /// `param`: the keyword argument of its name, the positional argument at its index (a method
  /// called as `obj.m(...)` passes `self` implicitly), or — when the call writes none — its
  /// default, evaluated in the scope around the definition. Nothing when a `*args` / `**kwargs`
  /// at the call may carry it, when there is no default, for `self`, and for a `*args` or
  /// `**kwargs` parameter itself.
  std::optional<ParamArgument> passed_argument(const Binding& param, const Origin& site) const;
  /// For a `**kwargs` parameter: the dict each call site unpacks with exactly one `**d`; nothing
  /// when a call site passes none, two, or a keyword no named parameter takes (it would land in
  /// **kwargs beside the dict).
  std::optional<std::vector<ParamArgument>> kwargs_dict_arguments(const Binding& b) const;

 private:
  struct Builder;
  std::vector<Value> evaluate_binding(const Binding& b, const Scope* scope, int depth) const;
  std::vector<Value> evaluate_argparse(TSNode attribute, const Scope* scope, int depth) const;
  /// `cfg.workers` where every origin of `cfg` is a call of an attribute-access dictionary or
  /// namespace built from known keys: `easydict.EasyDict({...})` (EasyDict reads keys as
  /// attributes: easydict's README), `types.SimpleNamespace(workers=0)`,
  /// `argparse.Namespace(workers=0)`, `munch.Munch({...})`, `addict.Dict({...})`. The values of
  /// that key, with every `<obj>.workers = v` store of the file; unknown when a key set is
  /// unknown or lacks the name. Empty (not unknown) when `cfg` has no such origin.
  std::vector<Value> evaluate_namespace_attribute(TSNode attribute, const Scope* scope, int depth) const;
  /// The names of `function_definition`'s parameters that can be passed by keyword (plain,
  /// default, typed; not `*args` / `**kwargs`).
  std::set<std::string> named_parameters(TSNode function_definition) const;
  std::vector<Value> evaluate_param(const Binding& b, int depth) const;
  /// The dict a parameter holds: what every call site of its function passes, or its default.
  std::optional<DictValue> evaluate_param_dict(const Binding& b, int depth) const;
  std::vector<Value> class_attribute_values(const Scope* cls, std::string_view attr, int depth) const;
  std::optional<std::string> qualified_name_uncached(TSNode expr, const Scope* scope) const;

  /// qualified_name memo: (expression node id, scope) -> answer. The model is read-only after
  /// construction, so an answer never changes; the facts builder and the rules ask for the same
  /// callees many times (every pass over the calls re-resolves them).
  mutable std::unordered_map<std::pair<const void*, const Scope*>, std::optional<std::string>, NodeScopeHash>
      qualified_memo_;
  std::vector<Origin> origins_uncached(TSNode expr, const Scope* scope, int depth) const;
  mutable std::unordered_map<const void*, bool> module_subclass_memo_;
  /// origins memo for outermost queries (none running, no unpacking under way): such a query
  /// starts from the same state every time (a fresh expansion budget), so its answer depends on
  /// (expression node id, scope, depth) alone. Nested queries share the running query's budget
  /// and are not memoised.
  struct OriginsKey {
    const void* node;
    const Scope* scope;
    int depth;
    bool operator==(const OriginsKey& o) const { return node == o.node && scope == o.scope && depth == o.depth; }
  };
  struct OriginsKeyHash {
    std::size_t operator()(const OriginsKey& k) const noexcept {
      return NodeScopeHash()({k.node, k.scope}) * 31 + static_cast<std::size_t>(k.depth);
    }
  };
  mutable std::unordered_map<OriginsKey, std::vector<Origin>, OriginsKeyHash> origins_memo_;

  std::string_view src_;
  TSNode root_;
  std::vector<std::unique_ptr<Scope>> scopes_;
  std::unordered_map<const void*, Scope*> scope_by_node_;
  std::vector<TSNode> calls_;
  std::vector<TSNode> loops_;
  std::vector<TSNode> ifs_;
  /// unpacked_return_origins: the bindings being expanded (innermost last), how many more
  /// expansions the current origins query may make, and how many origins calls are running
  /// (0: the next one starts a query).
  mutable std::vector<const void*> unpacking_;
  mutable int unpack_budget_ = 0;
  mutable int origins_active_ = 0;
  /// parent() memo: node id -> parent, filled for each ancestor a descent passes through.
  mutable std::unordered_map<const void*, TSNode> parent_memo_;
  std::vector<std::string> imported_;
  bool imports_torch_ = false;
  bool too_deep_ = false;
  /// The scope of every call node (recorded during the walk; scope_of reads it first).
  std::unordered_map<const void*, const Scope*> call_scope_;
  /// scope_of's answers for other nodes (each found by a walk up the parents), by node id.
  mutable std::unordered_map<const void*, const Scope*> scope_memo_;
  /// Set once the constructor's walk is done: the memos (qualified names, origins, scopes) are
  /// filled only then. The walk itself asks qualified_name (is_instance_parameter reads method
  /// decorators) while later bindings and star imports are not recorded yet; such an answer
  /// must not be kept.
  bool built_ = false;
  /// qualified_name's answer while !built_ (returned by reference, valid until the next call).
  mutable std::optional<std::string> unmemoised_qualified_;
  /// The module's top-level children in source order (for parent()).
  std::vector<TSNode> top_level_;
  /// Writes to names that hold dicts: (scope, name) -> update() calls / subscript stores.
  std::map<std::pair<const Scope*, std::string>, std::vector<TSNode>> dict_writes_;
  /// `parser.add_argument(...)` calls: dest -> default value expressions (null: no default).
  struct ArgparseArg { TSNode default_value{}; const Scope* scope = nullptr; bool store_true = false; bool store_false = false; };
  std::map<std::string, std::vector<ArgparseArg>> argparse_;
  /// One attribute store `X.attr = v`.
  struct AttributeStore {
    TSNode value{};               ///< null when the value is unknown (unpacked, augmented)
    TSNode stmt{};                ///< the storing statement (assignment, for, with …)
    const Scope* scope = nullptr; ///< where `v` is evaluated
    /// For `self.attr = v` in a method of a class (or a function nested in one): that class's
    /// scope. Null for any other object (`args.x = v`, `model.device = d`).
    const Scope* self_class = nullptr;
  };
  /// Attribute stores by attribute name. Used for `self.x` (through self_attribute_stores) and
  /// `args.x`.
  std::map<std::string, std::vector<AttributeStore>> attribute_stores_;
  /// The stores a read of `self.<attr>` in `scope` can see: the `self` stores of the reading
  /// method's class, of its base classes defined in this file (inherited) and of its subclasses
  /// defined in this file (`self` in a base-class method may be a subclass instance), and every
  /// store through another object. Outside a class (no enclosing class scope), every store.
  std::vector<const AttributeStore*> self_attribute_stores(std::string_view attr,
                                                           const Scope* scope) const;
  /// The class scopes of the in-file base classes of class scope `cls`, transitively (a base
  /// named by an identifier bound only to a class of this file; others are not followed).
  std::vector<const Scope*> base_class_scopes(const Scope* cls) const;
  /// Calls by callee identifier text, for call-site lookup.
  std::unordered_map<std::string, std::vector<TSNode>> calls_by_name_;
};

/// Canonical spelling of a qualified name ("torch.utils.data.dataloader.DataLoader" ->
/// "torch.utils.data.DataLoader", "pytorch_lightning" -> "lightning.pytorch").
std::string canonical_name(std::string name);

/// True when `v` is a string naming a CUDA device ("cuda", "cuda:1").
bool is_cuda_device(const Value& v);

/// True when the text `s` starts with "cuda:": the start of a CUDA device string whose index
/// follows (torch.device parses "cuda:<index>" as device type CUDA whatever the index;
/// c10/core/Device.cpp). Used for strings built at run time: `"cuda:" + str(gpu)`,
/// `f"cuda:{rank}"`, `"cuda:{}".format(i)`, `"cuda:%d" % i`.
bool cuda_device_with_index(std::string_view s);

/// A tensor type of torch's legacy typed-constructor API, named by a qualified name.
struct LegacyTensorType {
  /// torch.cuda.FloatTensor & co. (torch/cuda/__init__.py): constructing one allocates on the
  /// current CUDA device, and `x.type(torch.cuda.FloatTensor)` copies `x` there. False for the
  /// host types (torch.FloatTensor & co., torch.Tensor: torch/__init__.py's "legacy tensor
  /// constructors"), which allocate on the CPU and take no `device=`.
  bool cuda = false;
};
/// The legacy tensor type `qualified` names (a canonical qualified name, as
/// SemanticModel::qualified_name gives it): "torch.LongTensor" -> host, "torch.cuda.HalfTensor"
/// -> CUDA, "torch.Tensor" -> host. nullopt for anything else ("torch.tensor",
/// "torch.cuda.FloatStorage", "torch.cuda.current_device", "mylib.FloatTensor").
std::optional<LegacyTensorType> legacy_tensor_type(std::string_view qualified);

}  // namespace gpulint::python
