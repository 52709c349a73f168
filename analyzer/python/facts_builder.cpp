#include "analyzer/python/facts_builder.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace gpulint::python {
namespace {

// PyTorch facts this file relies on:
// - DataLoader signature (torch/utils/data/dataloader.py, torch 2.x): positional
//   dataset, batch_size, shuffle, sampler, batch_sampler, num_workers (index 5), collate_fn,
//   pin_memory (index 7), drop_last, timeout, worker_init_fn, multiprocessing_context,
//   generator; keyword-only prefetch_factor, persistent_workers, pin_memory_device, in_order.
const Signature kDataLoader{{"dataset", "batch_size", "shuffle", "sampler", "batch_sampler",
                             "num_workers", "collate_fn", "pin_memory", "drop_last", "timeout",
                             "worker_init_fn", "multiprocessing_context", "generator"},
                            {"prefetch_factor", "persistent_workers", "pin_memory_device",
                             "in_order"}};
// transformers.TrainingArguments: every argument is passed by keyword in practice;
// dataloader_num_workers defaults to 0, dataloader_pin_memory to True.
const Signature kTrainingArguments{{"output_dir"},
                                   {"dataloader_num_workers", "dataloader_pin_memory",
                                    "dataloader_persistent_workers", "dataloader_prefetch_factor"}};

// Tensor factories that take device= (torch/_torch_docs.py).
const std::set<std::string> kFactories = {
    "torch.zeros", "torch.ones", "torch.empty", "torch.full", "torch.rand", "torch.randn",
    "torch.randint", "torch.randperm", "torch.arange", "torch.linspace", "torch.logspace",
    "torch.eye", "torch.tensor"};

// Tensor methods that keep a tensor on its device (and attached to its graph).
const std::set<std::string_view> kSameDeviceMethods = {
    "float", "double", "half", "bfloat16", "long", "int", "short", "bool", "byte", "view",
    "reshape", "permute", "squeeze", "unsqueeze", "contiguous", "flatten", "transpose", "t",
    "clone", "view_as", "expand", "expand_as", "repeat", "squeeze_", "unsqueeze_", "requires_grad_",
    "type_as"};

// DEV003: methods that return a new tensor on the receiver's device computed from the receiver
// alone (casts, layout, masking with a scalar): a CPU creation stays a fresh host tensor
// through them, so `torch.triu(...).float().masked_fill(m == 0, v)` then `.cuda()` is still
// "created on the CPU, then moved".
const std::set<std::string_view> kHostTransforms = {
    "float", "double", "half", "bfloat16", "long", "int", "short", "bool", "byte", "char",
    "masked_fill", "transpose", "t", "permute", "view", "reshape", "unsqueeze", "squeeze",
    "contiguous", "clone", "expand", "repeat", "flip", "triu", "tril", "flatten",
    // Shaped like another tensor, on this one's device (torch/_tensor_docs.py: expand_as is
    // "self.expand(other.size())", view_as "self.view(other.size())", reshape_as likewise).
    "expand_as", "view_as", "reshape_as"};
// The dtypes of torch/__init__.py (torch.float32 and its aliases float, ..., torch.bool): the
// argument of a `Tensor.to(dtype)` cast, which keeps the tensor on its device
// (torch/_tensor_docs.py, Tensor.to: "torch.to(dtype, ...) -> Tensor" returns a Tensor with the
// specified dtype).
const std::set<std::string_view> kTorchDtypes = {
    "torch.float", "torch.float32", "torch.float64", "torch.double", "torch.float16", "torch.half",
    "torch.bfloat16", "torch.int", "torch.int32", "torch.long", "torch.int64", "torch.short", "torch.int16",
    "torch.int8", "torch.uint8", "torch.bool", "torch.complex64", "torch.cfloat", "torch.complex128",
    "torch.cdouble"};
// In-place fills that return the tensor itself (Tensor.fill_, zero_, and the random fills of
// torch/_tensor_docs.py: "Fills self tensor with ..."): with numeric arguments they work the same
// on any device.
const std::set<std::string_view> kNumericFills = {"fill_", "zero_", "uniform_", "normal_", "random_",
                                                  "bernoulli_", "exponential_", "geometric_",
                                                  "log_normal_", "cauchy_"};
// torch functions that join a sequence of tensors into one on their device (the inputs must
// share one: https://pytorch.org/docs/stable/generated/torch.cat.html).
const std::set<std::string_view> kConcatenating = {"cat", "concat", "concatenate", "stack", "hstack",
                                                   "vstack"};
// Torch functions that return a new tensor on their first argument's device.
const std::set<std::string> kHostTransformFunctions = {"torch.triu", "torch.tril", "torch.flip",
                                                       "torch.transpose", "torch.t"};
// The legacy typed constructors of the host (legacy_tensor_type: torch.LongTensor ...): they
// allocate on the CPU and take no device=, so a DEV003 on one is reported without a fix.
bool host_legacy_constructor(const std::string& q) {
  auto lt = legacy_tensor_type(q);
  return lt && !lt->cuda;
}
// The device type a device string names, as torch.device parses "<type>" or "<type>:<index>"
// (c10/core/DeviceType.cpp; the types met in training code): empty when it names none.
std::string_view device_type_of(std::string_view s) {
  static const std::set<std::string_view> kTypes = {"cpu", "cuda", "mps", "xpu", "hip", "xla", "hpu",
                                                    "npu", "mtia", "meta", "privateuseone"};
  std::string_view type = s.substr(0, s.find(':'));
  return kTypes.count(type) ? type : std::string_view{};
}
// A CUDA tensor type (torch.cuda.FloatTensor ...), by qualified name.
bool cuda_tensor_type(const std::optional<std::string>& q) {
  if (!q) return false;
  auto lt = legacy_tensor_type(*q);
  return lt && lt->cuda;
}

// Calls whose result no longer holds the autograd graph.
const std::set<std::string_view> kDetaching = {
    "item", "detach", "detach_", "tolist", "numpy",
    // Results without grad_fn: indices, comparisons, integer/bool casts, shape queries.
    "argmax", "argmin", "argsort", "eq", "ne", "gt", "lt", "ge", "le", "equal", "allclose",
    "isnan", "isinf", "isfinite", "nonzero", "count_nonzero", "long", "int", "bool", "byte",
    "short", "round", "floor", "ceil", "sign", "size", "numel", "dim", "all", "any",
    // A distribution's sample() draws under no_grad (torch/distributions/distribution.py,
    // Distribution.sample: "with torch.no_grad(): return self.rsample(sample_shape)"; the
    // concrete distributions without rsample draw without a graph too). rsample() keeps it.
    "sample"};

const std::set<std::string> kLossFunctions = {
    "cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div", "cosine_embedding_loss",
    "margin_ranking_loss", "hinge_embedding_loss", "poisson_nll_loss", "gaussian_nll_loss",
    "triplet_margin_loss", "multi_margin_loss", "soft_margin_loss", "multilabel_soft_margin_loss",
    "ctc_loss"};

bool starts_with(std::string_view s, std::string_view p) { return s.compare(0, p.size(), p) == 0; }

std::string_view method_name(TSNode call, std::string_view src) {
  TSNode fn = field(call, "function");
  if (!is(fn, "attribute")) return {};
  return text(field(fn, "attribute"), src);
}
TSNode receiver(TSNode call) {
  TSNode fn = field(call, "function");
  if (!is(fn, "attribute")) return TSNode{};
  return unparen(field(fn, "object"));
}
TSNode keyword_arg(TSNode call, std::string_view name, std::string_view src) {
  for (auto a : call_arguments(call))
    if (is(a, "keyword_argument") && text(field(a, "name"), src) == name) return field(a, "value");
  return TSNode{};
}
bool contains(TSNode outer, TSNode inner) {
  return start(inner) >= start(outer) && end(inner) <= end(outer);
}
bool is_def(TSNode n) {
  return is(n, "function_definition") || is(n, "class_definition") || is(n, "lambda");
}

// The three parts of a conditional expression `value if condition else otherwise`
// (tree-sitter-python gives them as its named children, in that order, without field names);
// nullopt for any other node.
struct Conditional {
  TSNode value, condition, otherwise;
};
std::optional<Conditional> conditional_parts(TSNode n) {
  if (!is(n, "conditional_expression")) return std::nullopt;
  auto parts = named_children(n);
  if (parts.size() != 3) return std::nullopt;
  return Conditional{parts[0], parts[1], parts[2]};
}

// True when `n` is a function or class definition, a lambda or a decorated definition (what
// visit() does not enter): is_def(n) || is(n, "decorated_definition"), read from a table by
// grammar symbol instead of comparing type names (ts_node_type names the public symbol that
// ts_node_symbol gives; the table holds, per symbol, whether its name is one of the four).
bool nested_definition(TSNode n) {
  static const std::vector<bool> table = [] {
    const TSLanguage* lang = python_language();
    uint32_t count = ts_language_symbol_count(lang);
    std::vector<bool> t(count, false);
    for (uint32_t i = 0; i < count; ++i) {
      const char* name = ts_language_symbol_name(lang, static_cast<TSSymbol>(i));
      if (!name) continue;
      std::string_view s(name);
      t[i] = s == "function_definition" || s == "class_definition" || s == "lambda" || s == "decorated_definition";
    }
    return t;
  }();
  if (is_null(n)) return false;
  TSSymbol s = ts_node_symbol(n);
  return s < table.size() && table[s];
}

// Visits every node under `n` (not into nested function/class definitions or lambdas).
// A template (not std::function): the loop analyses call it on every loop body.
template <class F>
void visit(TSNode n, const F& f, int depth = 0) {
  if (depth > 2000) return;
  f(n);
  for_each_named_child(n, [&](TSNode ch) {
    if (nested_definition(ch)) return;
    visit(ch, f, depth + 1);
  });
}

// The root identifier of `x`, `x.a`, `x[0]`, `x.a.b()`.
TSNode root_identifier(TSNode n) {
  for (int i = 0; i < 64; ++i) {
    n = unparen(n);
    if (is(n, "identifier")) return n;
    if (is(n, "attribute")) n = field(n, "object");
    else if (is(n, "subscript")) n = field(n, "value");
    else if (is(n, "call")) n = field(n, "function");
    else return TSNode{};
  }
  return TSNode{};
}

class Builder {
 public:
  Builder(const SemanticModel& m, const SourceFile& source)
      : m_(m), src_(m.src()), source_(source) {}

  FileFacts run() {
    facts_.language = Language::Python;
    classify_calls();
    facts_.placement_managed = managed_;
    facts_.gpu_intent = gpu_intent_;
    facts_.trains = trains_;
    find_models();
    models_final_ = true;
    find_loaders();
    analyse_loops();
    build_dev001_fixes();
    find_created_then_moved();
    collect_cross_file();
    for (auto& l : facts_.loaders) facts_.trains_on_cuda |= l.batches_copied_to_cuda;
    return std::move(facts_);
  }

 private:
  const SemanticModel& m_;
  std::string_view src_;
  const SourceFile& source_;
  FileFacts facts_;
  bool managed_ = false, gpu_intent_ = false, trains_ = false;
  std::vector<TSNode> loader_calls_;                 // index-aligned with facts_.loaders
  std::optional<std::vector<Edit>> import_os_;       // computed once per file
  std::unordered_map<const void*, int> loader_index_; // loader call node -> index
  struct ModelInfo {
    TSNode origin{};                 // creation call
    std::set<std::string> names;     // identifiers that held it
    bool placed = false;
    bool on_cuda = false;
    std::string device_text;         // ".to(<this>)" or empty with cuda_method
    bool cuda_method = false;        // placed with .cuda()
    bool opaque = false;             // built by code gpulint cannot see (may place itself)
    bool data_parallel = false;      // wrapped in nn.DataParallel, which scatters CPU inputs
    bool evaluated_only = false;     // no optimizer trains it: put in evaluation mode (`.eval()`)
    /// Every placement of the model in file order: (offset of the call, to CUDA). `.cpu()`
    /// and `.to("cpu")` are placements off CUDA.
    std::vector<std::pair<uint32_t, bool>> placements;
    /// The calls that place it on CUDA (`.cuda()`, `.to(<a CUDA device>)`), in file order.
    std::vector<TSNode> cuda_placements;
    /// The device argument of every `.to(<device>)` placement, whatever it evaluates to.
    std::vector<TSNode> placement_devices;
    /// Is the model on CUDA right after the placements before `offset` in straight-line code?
    /// False when there is none.
    bool on_cuda_before(uint32_t offset) const {
      bool cuda = false;
      for (const auto& [at, to_cuda] : placements)
        if (at < offset) cuda = to_cuda;
      return cuda;
    }
  };
  std::vector<ModelInfo> models_;
  std::optional<std::vector<std::pair<TSNode, std::vector<int>>>> loader_loops_;
  /// helper_moves: a helper parameter's identifier -> the moves of what it receives.
  std::unordered_map<const void*, std::vector<TSNode>> helper_moves_;
  /// Loaders drawn with next() inside a loop whose header iterates another loader (an OOD or
  /// unlabeled loader beside the training one), by loop; filled with loader_loops_.
  std::vector<std::pair<TSNode, std::vector<int>>> drawn_beside_header_;

  std::string_view t(TSNode n) const { return text(n, src_); }
  const std::optional<std::string>& qn(TSNode expr, const Scope* s) const { return m_.qualified_name(expr, s); }
  // For `Variable(x, ...)` (torch.autograd.Variable, pre-0.4 code): `x`, which Variable(x) is
  // since torch 0.4 (torch/autograd/variable.py: Variable returns the tensor itself; `volatile=`
  // only warns). A null node for any other expression.
  TSNode variable_wrapped(TSNode e, const Scope* s) const {
    e = unparen(e);
    if (!is(e, "call")) return TSNode{};
    const auto& q = m_.callee_name(e, s);
    if (!q || (*q != "torch.autograd.Variable" && *q != "torch.autograd.variable.Variable")) return TSNode{};
    auto a = positional_arguments(e);
    return a.empty() ? TSNode{} : unparen(a[0]);
  }
  // Reads through what leaves a tensor the same tensor on the same device: shape views and
  // casts called as methods (kHostTransforms: `x.float().unsqueeze(-1)`; not torch's functions
  // of the same name, `torch.t(x)`) and Variable(x). `e` itself when there is none.
  TSNode through_views(TSNode e, const Scope* s) const {
    e = unparen(e);
    for (int i = 0; i < 8 && is(e, "call"); ++i) {
      TSNode inner = variable_wrapped(e, s);
      if (is_null(inner) && !is_null(receiver(e)) && kHostTransforms.count(method_name(e, src_))) {
        const auto& q = m_.callee_name(e, s);
        if (!q || !starts_with(*q, "torch.")) inner = unparen(receiver(e));
      }
      if (is_null(inner)) break;
      e = inner;
    }
    return e;
  }
  // The module of `next(m.parameters())` / `next(m.buffers())` (where `m`'s parameters are):
  // `m`; a null node for any other expression.
  TSNode parameters_owner(TSNode e, const Scope* s) const {
    e = unparen(e);
    if (!is(e, "call")) return TSNode{};
    const auto& q = m_.callee_name(e, s);
    auto a = positional_arguments(e);
    if (!q || *q != "builtins.next" || a.size() != 1 || !is(unparen(a[0]), "call")) return TSNode{};
    TSNode inner = unparen(a[0]);
    std::string_view m = method_name(inner, src_);
    if (m != "parameters" && m != "buffers") return TSNode{};
    return unparen(receiver(inner));
  }
  // True when `cond` reads the instance parameter of a method (`self.args.cuda`).
  bool reads_instance(TSNode cond) const {
    bool found = false;
    visit(cond, [&](TSNode n) {
      if (!found && is(n, "identifier") && m_.is_instance_parameter(n, m_.scope_of(n))) found = true;
    });
    return found;
  }
  // True when class `cls` of the file names one of `bases` (qualified names) among its direct
  // base classes.
  bool direct_base_in(TSNode cls, std::initializer_list<std::string_view> bases) const {
    if (!is(cls, "class_definition")) return false;
    TSNode sup = field(cls, "superclasses");
    if (is_null(sup)) return false;
    const Scope* s = m_.scope_of(cls);
    for (TSNode b : named_children(sup)) {
      const auto& q = m_.qualified_name(b, s);
      if (q && std::find(bases.begin(), bases.end(), std::string_view(*q)) != bases.end()) return true;
    }
    return false;
  }

  bool values_cuda(const std::vector<Value>& vs) const {
    for (const auto& v : vs) if (is_cuda_device(v)) return true;
    return false;
  }
  bool values_known_devices(const std::vector<Value>& vs) const {
    for (const auto& v : vs)
      if (v.kind != Value::Kind::Str) return false;
    return !vs.empty();
  }

  // ---- dead code ----------------------------------------------------------------------
  // The truth value of a condition when every value it can take agrees (`DEBUG = False`,
  // `not isTrained` with `isTrained = True`, `if 0:`); nullopt when it depends on the run.
  // With `literals_only` (what decides dead code), only what literals decide counts
  // (SemanticModel::literal_truth: an argparse default or a parameter's default is what the run
  // starts with, not what it always is). Without it, every value SemanticModel::evaluate gives
  // counts (a parameter through the file's call sites: `use_gpu=True` never passed False).
  std::optional<bool> constant_truth(TSNode cond, const Scope* s, int depth = 0,
                                     bool literals_only = true) const {
    if (literals_only) return m_.literal_truth(cond, s);
    cond = unparen(cond);
    if (depth > 16) return std::nullopt;
    if (is(cond, "not_operator")) {
      auto v = constant_truth(field(cond, "argument"), s, depth + 1, literals_only);
      if (v) return !*v;
      return std::nullopt;
    }
    return agreed_truth(m_.evaluate(cond, s));
  }

  // True when `n` can never run: it sits in the body of an `if` whose condition is constantly
  // false, or in the `else` of one that is constantly true. Code gpulint proves dead neither
  // trains, nor loads, nor moves anything.
  bool dead(TSNode n) {
    // Only the consequence of an `if` whose condition is constantly false, or an else clause
    // of one that is constantly true, can make code dead: a node inside none of those byte
    // ranges is live, which answers almost every question without walking up its parents.
    // (A node in the subtree of such a clause lies inside its byte range, so this is exact;
    // a node inside a range still gets the exact walk.)
    const auto& ranges = dead_ranges();
    uint32_t b = start(n), e = end(n);
    for (const auto& [rb, re] : after_exit_)
      if (rb <= b && e <= re) return true;
    bool maybe = false;
    for (const auto& [rb, re] : ranges)
      if (rb <= b && e <= re) { maybe = true; break; }
    if (!maybe) return false;
    // Asked for the same calls by several passes: answer each once.
    auto memo = dead_.find(n.id);
    if (memo != dead_.end()) return memo->second;
    bool d = dead_uncached(n);
    dead_.emplace(n.id, d);
    return d;
  }
  std::unordered_map<const void*, bool> dead_;

  // The byte ranges of the clauses that constant conditions make dead (computed once).
  const std::vector<std::pair<uint32_t, uint32_t>>& dead_ranges() {
    if (dead_ranges_) return *dead_ranges_;
    dead_ranges_.emplace();
    for (TSNode p : m_.if_statements()) {
      auto it = if_truth_.find(p.id);
      if (it == if_truth_.end())
        it = if_truth_.emplace(p.id, constant_truth(field(p, "condition"), m_.scope_of(p))).first;
      if (!it->second) continue;
      if (!*it->second) {
        TSNode body = field(p, "consequence");
        if (!is_null(body)) dead_ranges_->emplace_back(start(body), end(body));
      } else {
        for_each_named_child(p, [&](TSNode ch) {
          if (is(ch, "else_clause")) dead_ranges_->emplace_back(start(ch), end(ch));
        });
      }
    }
    // The statements after `exit()` / `sys.exit()` / `os._exit()` in the same block: the
    // process ends there (a debugging `exit()` left in an evaluation loop).
    for (TSNode c : m_.calls()) {
      TSNode stmt = m_.parent(c);
      if (!is(stmt, "expression_statement")) continue;
      TSNode block = m_.parent(stmt);
      if (!(is(block, "block") || is(block, "module")) || end(stmt) >= end(block)) continue;
      const auto& q = m_.callee_name(c, m_.scope_of(c));
      if (q && (*q == "builtins.exit" || *q == "builtins.quit" || *q == "sys.exit" || *q == "os._exit"))
        after_exit_.emplace_back(end(stmt), end(block));
    }
    return *dead_ranges_;
  }
  std::optional<std::vector<std::pair<uint32_t, uint32_t>>> dead_ranges_;
  /// Byte ranges that follow a process exit in their block (filled with dead_ranges_): every
  /// node inside one is dead.
  std::vector<std::pair<uint32_t, uint32_t>> after_exit_;

  bool dead_uncached(TSNode n) {
    TSNode child = n;
    for (TSNode p = m_.parent(n); !is_null(p); child = p, p = m_.parent(p)) {
      if (is(p, "if_statement")) {
        bool in_body = same(child, field(p, "consequence"));
        bool in_else = is(child, "else_clause");
        if (!in_body && !in_else) continue;
        auto it = if_truth_.find(p.id);
        if (it == if_truth_.end())
          it = if_truth_.emplace(p.id, constant_truth(field(p, "condition"), m_.scope_of(p))).first;
        if (!it->second) continue;
        if (in_body && !*it->second) return true;
        if (in_else && *it->second) return true;
      }
    }
    return false;
  }
  std::unordered_map<const void*, std::optional<bool>> if_truth_;

  // ---- file-wide facts --------------------------------------------------------------
  void classify_calls() {
    for (TSNode c : m_.calls()) {
      if (dead(c)) continue;
      const Scope* s = m_.scope_of(c);
      const auto& q = m_.callee_name(c, s);
      std::string_view meth = method_name(c, src_);
      if (q) {
        // Not the seeding functions: "It's safe to call this function if CUDA is not available;
        // in that case, it is silently ignored" (torch/cuda/random.py, manual_seed and
        // manual_seed_all; seed and seed_all likewise) — scripts seed every backend they may run on.
        static const std::set<std::string_view> kSeeding = {"torch.cuda.manual_seed", "torch.cuda.manual_seed_all",
                                                            "torch.cuda.seed", "torch.cuda.seed_all",
                                                            "torch.cuda.random.manual_seed",
                                                            "torch.cuda.random.manual_seed_all"};
        if (starts_with(*q, "torch.cuda.") && !kSeeding.count(*q)) gpu_intent_ = true;
        if (*q == "torch.set_default_device" || *q == "transformers.Trainer" ||
            *q == "transformers.Seq2SeqTrainer" || starts_with(*q, "trl.") ||
            starts_with(*q, "deepspeed.") || starts_with(*q, "ray.train."))
          managed_ = true;
        if (*q == "torch.device") {
          auto a = positional_arguments(c);
          if (!a.empty() && values_cuda(m_.evaluate(a[0], s))) gpu_intent_ = true;
        }
        if (*q == "torch.autograd.backward") trains_ = true;
      }
      if (meth == "cuda" && (!q || !starts_with(*q, "torch.cuda"))) gpu_intent_ = true;
      if (meth == "backward") trains_ = true;
      if (meth == "to") {
        for (auto a : positional_arguments(c))
          if (values_cuda(m_.evaluate(a, s))) gpu_intent_ = true;
      }
      // `device=` and `device_map=` (the first of each, as keyword_arg finds it), in one pass.
      TSNode dev{}, device_map{};
      bool dev_seen = false, device_map_seen = false;
      for (auto a : call_arguments(c)) {
        if (!is(a, "keyword_argument")) continue;
        std::string_view name = t(field(a, "name"));
        if (name == "device" && !dev_seen) { dev = field(a, "value"); dev_seen = true; }
        else if (name == "device_map" && !device_map_seen) { device_map = field(a, "value"); device_map_seen = true; }
      }
      if (!is_null(dev) && values_cuda(m_.evaluate(dev, s))) gpu_intent_ = true;
      if (!is_null(device_map)) managed_ = true;
      // `with torch.device("cuda"):` places everything created inside it.
      if (q && *q == "torch.device" && is(m_.parent(c), "with_item")) managed_ = true;
    }
    for (const char* fw : {"lightning", "lightning.pytorch", "lightning_fabric", "accelerate",
                           "ignite", "fastai", "composer", "deepspeed", "ray.train", "pytorch_lightning"})
      if (m_.imports_module(fw)) managed_ = true;
  }

  // ---- models -----------------------------------------------------------------------
  // A call gpulint cannot see into: an imported (non-builtin) callable, not a local one.
  bool is_opaque_constructor(TSNode call, const Scope* s) const {
    if (!is(call, "call")) return false;
    const auto& q = m_.callee_name(call, s);
    if (!q) {
      if (imported_registry_entry(field(call, "function"), s)) return true;
      // `Head(...)` from one of several star imports (`from models import *`): unresolvable,
      // but not the file's own code either.
      TSNode fn = unparen(field(call, "function"));
      return is(fn, "identifier") && !m_.lookup(t(fn), s) && !m_.module_scope()->star_imports.empty();
    }
    return !starts_with(*q, "local.") && !starts_with(*q, "builtins.");
  }

  // `available_models[name]` where `available_models = {"gmm": GaussianMixture, ...}` is bound
  // once, to a dict literal whose values are all imported (non-builtin) callables.
  bool imported_registry_entry(TSNode fn, const Scope* s) const {
    fn = unparen(fn);
    if (!is(fn, "subscript")) return false;
    TSNode base = unparen(field(fn, "value"));
    if (!is(base, "identifier")) return false;
    const Scope* fs = nullptr;
    const auto* bs = m_.lookup(t(base), s, &fs);
    if (!bs || bs->size() != 1 || (*bs)[0].kind != Binding::Kind::Assign || (*bs)[0].unpack_index >= 0) return false;
    TSNode dict = unparen((*bs)[0].value);
    if (!is(dict, "dictionary")) return false;
    bool any = false;
    for (auto pair : named_children(dict)) {
      if (!is(pair, "pair")) return false;
      const auto& q = m_.qualified_name(field(pair, "value"), fs);
      if (!q || starts_with(*q, "local.") || starts_with(*q, "builtins.")) return false;
      any = true;
    }
    return any;
  }

  bool is_module_constructor(TSNode call, const Scope* s) const {
    if (!is(call, "call")) return false;
    const auto& q = m_.callee_name(call, s);
    if (!q) return false;
    if (is_wrapper(call, s)) return true;
    if (starts_with(*q, "local.")) return !is_null(local_class(call, s));
    if (starts_with(*q, "torch.nn.") || starts_with(*q, "torchvision.models.") || starts_with(*q, "timm."))
      return true;
    if (starts_with(*q, "transformers.") && method_name(call, src_) == "from_pretrained") return true;
    return false;
  }

  // The class_definition a call's callee names in this file, or a null node (functions too).
  TSNode local_class(TSNode call, const Scope* s) const {
    TSNode fn = unparen(field(call, "function"));
    if (!is(fn, "identifier")) return TSNode{};
    const auto* bs = m_.lookup(t(fn), s);
    if (!bs || bs->size() != 1 || (*bs)[0].kind != Binding::Kind::Class) return TSNode{};
    return (*bs)[0].function;
  }

  // True when the subtree calls .to()/.cuda() or passes device= (it may put data on a GPU).
  // Descends into nested definitions too: a dataset class's methods are what matter.
  // Memoised per node: find_loaders asks it of the same dataset classes and collate functions
  // for every loader that uses them (the answer depends on the subtree and the read-only
  // semantic model alone).
  bool moves_to_device(TSNode n) const {
    auto memo = moves_to_device_.find(n.id);
    if (memo != moves_to_device_.end()) return memo->second;
    bool r = moves_to_device(n, 0);
    moves_to_device_.emplace(n.id, r);
    return r;
  }
  mutable std::unordered_map<const void*, bool> moves_to_device_;
  bool moves_to_device(TSNode n, int depth) const {
    if (depth > 200) return false;
    // A device every value of which is the host (`device = "cpu"`) moves nothing to an
    // accelerator.
    auto host = [&](TSNode dev) { return !is_null(dev) && device_value(dev, m_.scope_of(dev)) == Where::Cpu; };
    if (is(n, "call")) {
      std::string_view mm = method_name(n, src_);
      if (mm == "cuda") return true;
      if (mm == "to") {
        auto a = positional_arguments(n);
        if (!host(a.empty() ? keyword_arg(n, "device", src_) : a[0])) return true;
      }
      if (creates_cuda_typed_tensor(n)) return true;
    }
    if (is(n, "keyword_argument") && t(field(n, "name")) == "device" && !host(field(n, "value"))) return true;
    bool found = false;
    for_each_named_child(n, [&](TSNode ch) { found = found || moves_to_device(ch, depth + 1); });
    return found;
  }

  // `torch.cuda.FloatTensor([label])` (a legacy typed constructor of the torch.cuda module: it
  // allocates on the current CUDA device) or `x.type(torch.cuda.FloatTensor)` (a copy there).
  bool creates_cuda_typed_tensor(TSNode call) const {
    TSNode fn = unparen(field(call, "function"));
    TSNode type_name{};
    if (is(fn, "attribute") && t(field(fn, "attribute")) == "type") {
      auto a = positional_arguments(call);
      if (!a.empty()) type_name = unparen(a[0]);
    } else if (is(fn, "attribute") || is(fn, "identifier")) {
      type_name = fn;
    }
    if (is_null(type_name) || !(is(type_name, "attribute") || is(type_name, "identifier"))) return false;
    return cuda_tensor_type(m_.qualified_name(type_name, m_.scope_of(type_name)));
  }

  // nn.DataParallel / DistributedDataParallel / torch.compile wrap a model built elsewhere.
  bool is_wrapper(TSNode call, const Scope* s) const {
    const auto& q = m_.callee_name(call, s);
    return q && (*q == "torch.nn.DataParallel" || *q == "torch.nn.parallel.DistributedDataParallel" ||
                 *q == "torch.nn.parallel.DataParallel" || *q == "torch.compile" ||
                 *q == "torch.nn.parallel.DistributedDataParallel");
  }

  // nn.DataParallel scatters its inputs from wherever they are to its device_ids, so CPU
  // batches are fine for the model call (https://pytorch.org/docs/stable/generated/torch.nn.DataParallel.html:
  // "splitting the input across the specified devices").
  bool is_data_parallel(TSNode call, const Scope* s) const {
    const auto& q = m_.callee_name(call, s);
    return q && (*q == "torch.nn.DataParallel" || *q == "torch.nn.parallel.DataParallel" ||
                 *q == "torch.nn.parallel.data_parallel.DataParallel");
  }

  // Modules constructed with `device=` (factory kwargs, torch.nn docs) have their parameters
  // there already. True when the creation, or a torch.nn constructor in the function that
  // builds it, passes device=.
  bool built_with_device(TSNode creation) const {
    TSNode scope_node = creation;
    for (TSNode p = m_.parent(creation); !is_null(p); p = m_.parent(p))
      if (is(p, "function_definition")) { scope_node = field(p, "body"); break; }
    bool found = false;
    visit(scope_node, [&](TSNode n) { found = found || layer_on_device(n, /*moved=*/false); });
    return found || layers_placed_in_constructor(creation);
  }
  // A class of the file whose __init__ places its own layers (`self.net0 = nn.Linear(20,
  // 10).to('cuda')`, `nn.Linear(..., device=d)`: model-parallel style) or the modules it is made
  // of (`self.original = Network().to(device)`, a DQN's online and target networks): its
  // instances need no placement of their own.
  bool layers_placed_in_constructor(TSNode creation) const {
    if (!is(creation, "call")) return false;
    TSNode cls = local_class(creation, m_.scope_of(creation));
    if (is_null(cls)) return false;
    TSNode init = class_method(cls, "__init__");
    if (is_null(init)) return false;
    bool found = false;
    visit(field(init, "body"), [&](TSNode n) {
      found = found || layer_on_device(n, /*moved=*/true) || places_given_module(n, init);
    });
    return found;
  }
  // Call `n` in constructor `init` places a module the constructor is given: `self.model.cuda()`
  // or `self.model.to(device)` (a device not known to be the CPU), with `self.model = model`
  // bound from a parameter of `init` (a trainer or wrapper class: `ModelWrapper(Net(),
  // use_cuda=True)`, under a flag or not).
  bool places_given_module(TSNode n, TSNode init) const {
    if (!is(n, "call")) return false;
    std::string_view meth = method_name(n, src_);
    if (meth != "to" && meth != "cuda") return false;
    TSNode r = unparen(receiver(n));
    if (is_null(r) || !is(r, "attribute")) return false;
    const Scope* s = m_.scope_of(n);
    if (!m_.is_instance_parameter(unparen(field(r, "object")), s)) return false;
    if (meth == "to") {
      auto a = positional_arguments(n);
      TSNode dev = a.empty() ? keyword_arg(n, "device", src_) : a[0];
      if (is_null(dev) || device_value(dev, s) == Where::Cpu) return false;
    }
    auto params = stored_from_parameters(init, t(field(r, "attribute")), /*views=*/false);
    return params && !params->empty();
  }
  // The parameters of constructor `init` its body stores into `self.<attr>` (`self.model =
  // model`; with `views`, also a slice or attribute of one: `self.tgt = tgt[:, :-1]`), in body
  // order; nullopt when a store of `self.<attr>` there is anything else. Shared by
  // places_given_module and batch_held_by_local_object.
  std::optional<std::vector<std::string>> stored_from_parameters(TSNode init, std::string_view attr,
                                                                 bool views) const {
    std::vector<std::string> params;
    bool other = false;
    visit(field(init, "body"), [&](TSNode n) {
      if (other || !is(n, "assignment")) return;
      TSNode l = unparen(field(n, "left"));
      if (!is(l, "attribute") || t(field(l, "attribute")) != attr ||
          !m_.is_instance_parameter(unparen(field(l, "object")), m_.scope_of(n)))
        return;
      TSNode v = unparen(field(n, "right"));
      TSNode root = is(v, "identifier") ? v
                    : (views && (is(v, "subscript") || is(v, "attribute"))) ? root_identifier(v)
                                                                             : TSNode{};
      const auto* bs = is_null(root) ? nullptr : m_.lookup(t(root), m_.scope_of(n));
      if (!bs || bs->size() != 1 || bs->front().kind != Binding::Kind::Param || !same(bs->front().function, init)) {
        other = true;
        return;
      }
      params.emplace_back(t(root));
    });
    if (other) return std::nullopt;
    return params;
  }
  // Call `n` builds a torch.nn layer on a device not known to be the CPU: `nn.Linear(...,
  // device=d)`, or — with `moved` — `nn.Linear(...).to(d)` / `.cuda()` as it is built.
  bool layer_on_device(TSNode n, bool moved) const {
    if (!is(n, "call")) return false;
    const Scope* s = m_.scope_of(n);
    std::string_view meth = method_name(n, src_);
    TSNode layer = n, dev = keyword_arg(n, "device", src_);
    if (moved && (meth == "to" || meth == "cuda")) {
      layer = unparen(receiver(n));
      auto a = positional_arguments(n);
      dev = meth == "cuda" ? TSNode{} : (a.empty() ? keyword_arg(n, "device", src_) : a[0]);
      if (meth == "to" && is_null(dev)) return false;
    } else if (is_null(dev)) {
      return false;
    }
    if (!is(layer, "call")) return false;
    const auto& q = m_.callee_name(layer, s);
    if (!q) return false;
    // With `moved`, any module the constructor builds and places: a torch.nn layer, or a
    // module class of the file or a library (`self.online = QNetwork().to(device)`).
    if (!starts_with(*q, "torch.nn.") && !(moved && is_module_constructor(layer, s))) return false;
    return is_null(dev) || device_value(dev, s) != Where::Cpu;
  }

  // `model = Seq2Seq(enc, dec)`: a class of the file whose `__init__` builds nothing (it calls
  // nothing but `super().__init__()`: its parameters are the modules it is given), given modules
  // that are placed on CUDA as they are built (`enc = Encoder(...).to(DEVICE)`) and no other
  // module. Its parameters are theirs, on CUDA already: `info` records it as placed there.
  bool wraps_placed_modules(TSNode creation, const Scope* s, ModelInfo& info) const {
    TSNode cls = local_class(creation, s);
    if (is_null(cls)) return false;
    TSNode init = class_method(cls, "__init__");
    if (is_null(init)) return false;
    bool builds = false;
    visit(field(init, "body"), [&](TSNode n) {
      if (builds || !is(n, "call")) return;
      // `super().__init__()` (and the `super()` call in it) builds nothing of its own.
      auto is_super = [&](TSNode c) {
        const auto& q = m_.callee_name(c, m_.scope_of(c));
        return q && *q == "builtins.super";
      };
      if (is_super(n)) return;
      TSNode r = unparen(receiver(n));
      if (method_name(n, src_) == "__init__" && is(r, "call") && is_super(r)) return;
      builds = true;
    });
    if (builds) return false;
    ModelInfo inner;
    bool any = false;
    for (TSNode a : call_arguments(creation)) {
      TSNode v = unparen(is(a, "keyword_argument") ? field(a, "value") : a);
      if (is(a, "list_splat") || is(a, "dictionary_splat")) return false;
      if (!is(v, "identifier")) continue;
      for (const Origin& o : m_.origins(v, s)) {
        if (!is(unparen(o.node), "call")) continue;  // a size, a flag: no module
        ModelInfo one;
        if (!chain_places(o.node, o.scope, one) || !one.on_cuda) return false;
        any = true;
        if (inner.device_text.empty()) { inner.device_text = one.device_text; inner.cuda_method = one.cuda_method; }
      }
    }
    if (!any) return false;
    info.placed = info.on_cuda = true;
    info.device_text = inner.device_text;
    info.cuda_method = inner.cuda_method;
    info.placements.emplace_back(start(creation), true);
    return true;
  }

  // Does `expr` (a model creation expression) include a placement (`.to()`, `.cuda()`)?
  bool chain_places(TSNode n, const Scope* s, ModelInfo& info) const {
    n = unparen(n);
    for (int i = 0; i < 32 && is(n, "call"); ++i) {
      std::string_view meth = method_name(n, src_);
      if (meth == "to" || meth == "cuda" || meth == "to_empty") {
        record_placement(n, s, info);
        return true;
      }
      TSNode rcv = receiver(n);
      if (is_null(rcv)) {
        // A wrapper such as nn.DataParallel(Net()).cuda() handled above; DataParallel(net) here.
        auto a = positional_arguments(n);
        if (!a.empty() && is(unparen(a[0]), "call")) { n = unparen(a[0]); continue; }
        return false;
      }
      n = rcv;
    }
    return false;
  }

  // True when the placement `call` (of the plain name `r`) runs before the model `mi` is
  // created and never after it: both are statements of the same block, outside any loop, the
  // placement first (a notebook that moves `model`, then rebinds `model = Net()` and trains that).
  bool placement_precedes_creation(TSNode call, TSNode r, const ModelInfo& mi) const {
    if (!is(unparen(r), "identifier") || is_null(mi.origin)) return false;
    auto statement_of = [&](TSNode n) {
      while (!is_null(m_.parent(n)) && !is(m_.parent(n), "block") && !is(m_.parent(n), "module")) n = m_.parent(n);
      return n;
    };
    TSNode ps = statement_of(call), cs = statement_of(mi.origin);
    if (is_null(m_.parent(ps)) || !same(m_.parent(ps), m_.parent(cs)) || end(ps) > start(cs)) return false;
    for (TSNode p = m_.parent(ps); !is_null(p) && !is_def(p); p = m_.parent(p))
      if (is(p, "for_statement") || is(p, "while_statement")) return false;
    return true;
  }

  void record_placement(TSNode call, const Scope* s, ModelInfo& info) const {
    info.placed = true;
    std::string_view meth = method_name(call, src_);
    if (meth == "cuda") {
      info.on_cuda = true;
      info.cuda_method = true;
      info.placements.emplace_back(start(call), true);
      info.cuda_placements.push_back(call);
      return;
    }
    auto a = positional_arguments(call);
    TSNode dev = a.empty() ? keyword_arg(call, "device", src_) : a[0];
    if (is_null(dev)) return;
    info.placement_devices.push_back(unparen(dev));
    bool cuda = values_cuda(m_.evaluate(dev, s));
    info.placements.emplace_back(start(call), cuda);
    if (cuda) {
      info.on_cuda = true;
      info.device_text = std::string(t(dev));
      info.cuda_placements.push_back(call);
    }
  }

  void find_models() {
    std::unordered_set<const void*> seen;
    for (TSNode c : m_.calls()) {
      const Scope* s = m_.scope_of(c);
      std::optional<std::string> q = m_.callee_name(c, s);
      if (!q || !starts_with(*q, "torch.optim.")) q = optimizer_class_through_name(c, s);
      if (!q || !starts_with(*q, "torch.optim.") || starts_with(*q, "torch.optim.lr_scheduler")) continue;
      // X.parameters() anywhere in the optimizer's arguments, or in what a name passed to it
      // holds (`params = [p for p in model.parameters() if p.requires_grad]`).
      auto parameters_in = [&](TSNode root, const Scope* rs) {
        visit(root, [&](TSNode n) {
          if (!is(n, "call") || same(n, c)) return;
          std::string_view meth = method_name(n, src_);
          if (meth != "parameters" && meth != "named_parameters") return;
          TSNode rcv = receiver(n);
          if (is_null(rcv)) return;
          add_model(owning_module(rcv), rs, seen);
        });
      };
      parameters_in(c, s);
      std::vector<TSNode> names;
      for (auto a : call_arguments(c))
        visit(is(a, "keyword_argument") ? field(a, "value") : a, [&](TSNode n) {
          if (is(n, "identifier") && !is(m_.parent(n), "attribute") && !is(m_.parent(n), "keyword_argument"))
            names.push_back(n);
        });
      for (TSNode v : names) {
        for (const auto& o : m_.origins(v, s))
          if (is(o.node, "list_comprehension") || is(o.node, "generator_expression") || is(o.node, "call") ||
              is(o.node, "list") || is(o.node, "binary_operator"))
            parameters_in(o.node, o.scope);
      }
    }
    find_manually_trained_models(seen);
    find_evaluated_models(seen);
    // Placement anywhere in the file through any name that held the model.
    for (TSNode c : m_.calls()) {
      std::string_view meth = method_name(c, src_);
      if (meth != "to" && meth != "cuda" && meth != "to_empty" && meth != "cpu") continue;
      // A placement under `if USE_GPU:` with `USE_GPU = False` never runs.
      if (dead(c)) continue;
      TSNode r = receiver(c);
      std::string name = placed_name(r);
      if (name.empty()) continue;
      const Scope* s = m_.scope_of(c);
      for (auto& mi : models_) {
        // By a name that held the model, or — for a function's parameter that receives it
        // (`def train(model, loader, device): model.to(device)`) — by its origins, all of them
        // the model's creation.
        bool held = mi.names.count(name) > 0 || origins_are_creation(r, s, mi);
        if (!held || placement_precedes_creation(c, r, mi)) continue;
        if (meth == "cpu") mi.placements.emplace_back(start(c), false);
        else record_placement(c, s, mi);
      }
    }
    // A model handed to another function may be placed there.
    for (TSNode c : m_.calls()) {
      // Nothing left to decide once every model is placed (placed only ever turns true).
      if (std::all_of(models_.begin(), models_.end(), [](const ModelInfo& mi) { return mi.placed; })) break;
      const Scope* s = m_.scope_of(c);
      for (auto a : call_arguments(c)) {
        TSNode v = is(a, "keyword_argument") ? field(a, "value") : a;
        std::string name = placed_name(unparen(v));
        if (name.empty()) continue;
        for (auto& mi : models_) {
          if (!mi.names.count(name) || mi.placed) continue;
          if (passes_without_placing(c, s, unparen(v))) continue;
          mi.placed = true;  // unknown callee: assume it may place the model (stay silent)
        }
      }
    }
    for (auto& mi : models_) {
      // DEV001 is about models a script trains (RULES.md: "a script that trains").
      if (mi.evaluated_only) continue;
      ModelFact f;
      f.binding = {start(mi.origin), end(mi.origin)};
      f.name = mi.names.empty() ? "model" : *mi.names.begin();
      f.placed = mi.placed || managed_ || mi.opaque || cpu_alternative(mi);
      facts_.models.push_back(f);
    }
  }

  // Models trained without a torch.optim optimizer: a hand-written update of their parameters
  // from their gradients (`for p in model.parameters(): p -= lr * p.grad`,
  // `p.data.add_(p.grad, alpha=-lr)`, `p.data = p.data - lr * p.grad`, also over
  // `named_parameters()`). Such a loop is what `optimizer.step()` does for torch.optim.SGD.
  void find_manually_trained_models(std::unordered_set<const void*>& seen) {
    for (TSNode loop : m_.loops()) {
      if (!is(loop, "for_statement") || dead(loop)) continue;
      TSNode it = unparen(field(loop, "right"));
      if (!is(it, "call") || !call_arguments(it).empty()) continue;
      std::string_view meth = method_name(it, src_);
      TSNode var = unparen(field(loop, "left"));
      if (meth == "named_parameters" && (is(var, "pattern_list") || is(var, "tuple_pattern")) &&
          named_count(var) == 2)
        var = unparen(named(var, 1));
      else if (meth != "parameters")
        continue;
      if (!is(var, "identifier")) continue;
      std::string param(t(var));
      bool updates = false;
      visit(field(loop, "body"), [&](TSNode n) { updates = updates || manual_update(n, param); });
      TSNode rcv = receiver(it);
      if (!updates || is_null(rcv)) continue;
      add_model(rcv, m_.scope_of(it), seen);
    }
  }

  // Models the file evaluates without training them: `net.eval()`, and never `net.train()` nor
  // `net.parameters()`, on a name every origin of which builds a module (a class of the file deriving from nn.Module, torch.nn /
  // torchvision / timm / Hugging Face from_pretrained) or unpickles one (`torch.load(path)`,
  // whose result is called here as a module: torch/serialization.py restores the pickled
  // nn.Module). nn.Module.eval() only sets `training = False` (torch/nn/modules/module.py): its
  // parameters still require grad, so what it computes outside no_grad holds a graph (MEM001's
  // evaluation loops). DEV001 leaves these out (it is about trained models).
  void find_evaluated_models(std::unordered_set<const void*>& seen) {
    std::optional<std::set<std::string>> trained_names;  // built at the first `.eval()` call
    for (TSNode c : m_.calls()) {
      if (method_name(c, src_) != "eval" || !call_arguments(c).empty()) continue;
      TSNode r = unparen(receiver(c));
      if (is_null(r) || !(is(r, "identifier") || is(r, "attribute"))) continue;
      std::string nm = placed_name(r);
      if (nm.empty() || dead(c)) continue;
      if (std::any_of(models_.begin(), models_.end(), [&](const ModelInfo& mi) { return mi.names.count(nm) > 0; }))
        continue;
      // Put back in training mode, or its parameters handed on (`self.actor.eval()` ...
      // `self.actor.train()` in an agent whose network trains itself): not evaluated only.
      if (!trained_names) {
        trained_names.emplace();
        for (TSNode o : m_.calls()) {
          std::string_view om = method_name(o, src_);
          if ((om == "train" || om == "parameters" || om == "named_parameters") && !is_null(receiver(o)))
            trained_names->insert(placed_name(receiver(o)));
        }
      }
      if (trained_names->count(nm)) continue;
      const Scope* s = m_.scope_of(c);
      auto os = m_.origins(r, s);
      if (os.empty()) continue;
      bool all = std::all_of(os.begin(), os.end(), [&](const Origin& o) {
        TSNode n = unparen(o.node);
        // Through placements and mode switches of the creation: `Net().to(device).eval()`.
        for (int i = 0; i < 8 && is(n, "call") && !is_module_constructor(n, o.scope); ++i) {
          TSNode rcv = receiver(n);
          if (is_null(rcv) || !is(unparen(rcv), "call")) break;
          n = unparen(rcv);
        }
        // A class of the file only when it derives from nn.Module (an `Evaluator` class with an
        // `eval()` method of its own is no model).
        if (TSNode cls = local_class(n, o.scope); !is_null(cls)) return m_.module_subclass(cls);
        if (is_module_constructor(n, o.scope)) return true;
        const auto& q = m_.callee_name(n, o.scope);
        return q && (*q == "torch.load" || *q == "torch.jit.load");
      });
      if (!all) continue;
      std::size_t before = models_.size();
      add_model(r, s, seen);
      for (std::size_t i = before; i < models_.size(); ++i) models_[i].evaluated_only = true;
    }
  }

  // True when `n` updates parameter `p` in place from its gradient: `p -= e`, `p.data -= e`,
  // `p.data = e`, `p.add_(e)` / `p.data.sub_(e)` / `copy_` / `addcdiv_` / `addcmul_`, where `e`
  // reads `p.grad`.
  bool manual_update(TSNode n, const std::string& p) const {
    auto is_param = [&](TSNode x, bool allow_bare) {
      x = unparen(x);
      if (is(x, "identifier")) return allow_bare && t(x) == p;
      if (!is(x, "attribute") || t(field(x, "attribute")) != "data") return false;
      TSNode o = unparen(field(x, "object"));
      return is(o, "identifier") && t(o) == p;
    };
    auto reads_grad = [&](TSNode e) {
      bool g = false;
      visit(e, [&](TSNode x) {
        if (!is(x, "attribute") || t(field(x, "attribute")) != "grad") return;
        TSNode o = unparen(field(x, "object"));
        if (is(o, "identifier") && t(o) == p) g = true;
      });
      return g;
    };
    if (is(n, "augmented_assignment"))
      return is_param(field(n, "left"), true) && reads_grad(field(n, "right"));
    if (is(n, "assignment"))
      return is_param(field(n, "left"), false) && !is_null(field(n, "right")) && reads_grad(field(n, "right"));
    if (is(n, "call")) {
      static const std::set<std::string_view> kInPlace = {"add_", "sub_", "copy_", "addcdiv_", "addcmul_"};
      TSNode r = receiver(n);
      return kInPlace.count(method_name(n, src_)) && !is_null(r) && is_param(r, true) &&
             reads_grad(field(n, "arguments"));
    }
    return false;
  }

  // The module whose submodule's parameters are trained: `net.fc` -> `net` (moving `net` moves
  // `net.fc`), `self.net.fc` -> `self.net`; `self.fc` and plain names stay as they are.
  TSNode owning_module(TSNode rcv) const {
    for (int i = 0; i < 8; ++i) {
      rcv = unparen(rcv);
      if (!is(rcv, "attribute") || !placed_name(rcv).empty()) return rcv;
      TSNode o = unparen(field(rcv, "object"));
      if (!is(o, "identifier") && !is(o, "attribute")) return rcv;
      rcv = o;
    }
    return rcv;
  }

  // `optimizer(model.parameters(), lr=lr)` where the name holds an optimizer class
  // (`def train(optimizer=optim.SGD)`, `opt_cls = torch.optim.Adam`): that class's qualified
  // name, when every origin of the callee is one torch.optim class; nullopt otherwise.
  std::optional<std::string> optimizer_class_through_name(TSNode call, const Scope* s) const {
    TSNode fn = unparen(field(call, "function"));
    if (!is(fn, "identifier")) return std::nullopt;
    std::optional<std::string> found;
    for (const auto& o : m_.origins(fn, s)) {
      // `optimizer = optimizer(model.parameters())` rebinds the name to this very call.
      if (contains(o.node, call)) continue;
      const auto& q = m_.qualified_name(unparen(o.node), o.scope);
      if (!q || !starts_with(*q, "torch.optim.") || starts_with(*q, "torch.optim.lr_scheduler")) return std::nullopt;
      found = q;
    }
    return found;
  }

  // The name a placement or argument refers to: `model` or `self.model` -> "model".
  std::string placed_name(TSNode r) const {
    r = unparen(r);
    if (is(r, "identifier")) return std::string(t(r));
    if (is(r, "attribute")) {
      TSNode o = unparen(field(r, "object"));
      if (m_.is_instance_parameter(o, m_.scope_of(o))) return std::string(t(field(r, "attribute")));
      // model.module.to(...) (DataParallel/DDP wrappers)
      if (t(field(r, "attribute")) == "module") return placed_name(o);
    }
    return {};
  }

  // True when `call` receives the model (as argument `arg`) but provably does not move it:
  // a library function that never places modules, or a function of this file whose body
  // never calls .to()/.cuda() on the parameter that receives it (nor hands it on).
  bool passes_without_placing(TSNode call, const Scope* s, TSNode arg, int depth = 0) const {
    const auto& q = m_.callee_name(call, s);
    std::string_view meth = method_name(call, src_);
    if (meth == "to" || meth == "cuda") return false;
    if (q && (starts_with(*q, "builtins.") || starts_with(*q, "torch.") || starts_with(*q, "torchvision.") ||
              starts_with(*q, "transformers.") || starts_with(*q, "copy.") || starts_with(*q, "timm.")))
      return true;
    TSNode def = m_.resolve_local_function(call, s);
    if (is_null(def)) return false;
    // The parameter that receives the model.
    TSNode kw = m_.parent(arg);
    std::string param = receiving_parameter(call, def, is(kw, "keyword_argument") ? kw : arg);
    if (param.empty()) return false;
    bool moves_or_escapes = false;
    visit(field(def, "body"), [&](TSNode n) {
      if (!is(n, "call")) return;
      std::string_view mm = method_name(n, src_);
      TSNode r = receiver(n);
      if ((mm == "to" || mm == "cuda" || mm == "to_empty") && !is_null(r) && placed_name(r) == param)
        moves_or_escapes = true;
      for (auto a : call_arguments(n)) {
        TSNode v = is(a, "keyword_argument") ? field(a, "value") : a;
        if (placed_name(unparen(v)) != param || passes_without_placing_shallow(n)) continue;
        // Handed on to another function of the file (`train(model, ...)` calling
        // `one_epoch(model, ...)`): followed, three calls deep.
        if (depth < 3 && !is_null(m_.resolve_local_function(n, m_.scope_of(n))) &&
            passes_without_placing(n, m_.scope_of(n), is(a, "keyword_argument") ? v : a, depth + 1))
          continue;
        moves_or_escapes = true;
      }
    });
    return !moves_or_escapes;
  }

  // For a call of a function of this file and one of its arguments `arg` (a positional or
  // keyword argument node of `call`): does the function's body move the parameter receiving it
  // to a device — a `.to(...)` / `.cuda()` whose receiver is rooted at the parameter
  // (`labels.to(device)`, `labels["bbox"].to(device).float()`)? False for any other callee, and
  // when no named parameter receives the argument (`*args`).
  bool helper_moves_argument(TSNode call, TSNode arg, const Scope* s) const {
    TSNode def = m_.resolve_local_function(call, s);
    if (is_null(def)) return false;
    std::string param = receiving_parameter(call, def, arg);
    if (param.empty()) return false;
    return moves_rooted_at(field(def, "body"), {param});
  }
  // True when `block` holds a `.to(...)` / `.cuda()` whose receiver is rooted at one of `names`
  // (`x.to(d)`, `batch[0].cuda()`, `x.float().to(d)`).
  bool moves_rooted_at(TSNode block, const std::set<std::string>& names) const {
    bool moves = false;
    visit(block, [&](TSNode n) {
      if (moves || !is(n, "call")) return;
      std::string_view mm = method_name(n, src_);
      if (mm != "to" && mm != "cuda") return;
      TSNode r = receiver(n);
      TSNode root = is_null(r) ? TSNode{} : root_identifier(r);
      if (!is_null(root) && names.count(std::string(t(root)))) moves = true;
    });
    return moves;
  }

  bool passes_without_placing_shallow(TSNode call) const {
    const auto& q = m_.callee_name(call, m_.scope_of(call));
    return q && (starts_with(*q, "builtins.") || starts_with(*q, "torch.optim.") || *q == "torch.save");
  }

  // True when `r` is a parameter every origin of which (through the file's call sites) is the
  // creation of model `mi`, possibly placed or wrapped on the way (`Net().to(dev)`).
  bool origins_are_creation(TSNode r, const Scope* s, const ModelInfo& mi) const {
    r = unparen(r);
    if (!is(r, "identifier") || is_null(mi.origin)) return false;
    const auto* bs = m_.lookup(t(r), s);
    if (!bs || bs->empty() || !std::all_of(bs->begin(), bs->end(), [](const Binding& b) { return b.kind == Binding::Kind::Param; }))
      return false;
    auto os = m_.origins(r, s);
    return !os.empty() && std::all_of(os.begin(), os.end(), [&](const Origin& o) {
      TSNode n = unparen(o.node);
      for (int i = 0; i < 32 && is(n, "call") && !same(n, mi.origin); ++i) {
        TSNode rcv = receiver(n);
        if (is_null(rcv)) break;
        n = unparen(rcv);
      }
      return same(n, mi.origin);
    });
  }

  void add_model(TSNode expr, const Scope* s, std::unordered_set<const void*>& seen) {
    auto os = m_.origins(expr, s);
    for (const auto& o : os) {
      TSNode n = unparen(o.node);
      // Strip placements/wrappers to find the creation: Net().to(dev), nn.DataParallel(Net()).
      ModelInfo info;
      bool placed = chain_places(n, o.scope, info);
      TSNode creation = n;
      for (int i = 0; i < 32 && is(creation, "call") && !is_module_constructor(creation, o.scope); ++i) {
        TSNode r = receiver(creation);
        if (!is_null(r) && is(r, "call")) { creation = r; continue; }
        break;
      }
      bool opaque = false;
      if (!is_module_constructor(creation, o.scope)) {
        // Something this file cannot see into (`UNet3D()` from the project's own module,
        // `torch.load(path)`, a factory) whose parameters an optimizer trains: a model, but
        // one that may have been placed where it was built.
        if (!is_opaque_constructor(creation, o.scope)) continue;
        opaque = true;
      }
      if (is_wrapper(creation, o.scope)) {
        // `model = DDP(model)` rebinds the name it wraps: visit each wrapper once.
        if (seen.count(creation.id)) continue;
        seen.insert(creation.id);
        auto a = positional_arguments(creation);
        if (!a.empty()) {
          std::size_t before = models_.size();
          add_model(a[0], o.scope, seen);
          bool dp = is_data_parallel(creation, o.scope);
          for (std::size_t i = before; i < models_.size(); ++i) {
            collect_names(expr, s, models_[i]);
            models_[i].data_parallel |= dp;
            if (placed) { models_[i].placed = true; models_[i].on_cuda |= info.on_cuda; if (models_[i].device_text.empty()) { models_[i].device_text = info.device_text; models_[i].cuda_method = info.cuda_method; } }
          }
          // Already-known models reached through the wrapper get the wrapper's names too.
          TSNode inner = unparen(a[0]);
          for (auto& mi : models_) {
            std::string nm = placed_name(inner);
            if (!nm.empty() && mi.names.count(nm)) {
              collect_names(expr, s, mi);
              if (placed) mi.placed = true;
              mi.data_parallel |= dp;
            }
          }
        }
        continue;
      }
      if (seen.count(creation.id)) {
        for (auto& mi : models_)
          if (same(mi.origin, creation)) collect_names(expr, s, mi);
        continue;
      }
      seen.insert(creation.id);
      info.origin = creation;
      info.opaque = opaque;
      info.placed = placed || built_with_device(creation) || wraps_placed_modules(creation, o.scope, info);
      collect_names(expr, s, info);
      // The name bound to the creation statement.
      TSNode p = m_.parent(creation);
      for (int i = 0; i < 6 && !is_null(p); ++i, p = m_.parent(p)) {
        if (is(p, "assignment")) {
          std::string nm = placed_name(field(p, "left"));
          if (!nm.empty()) info.names.insert(nm);
          break;
        }
      }
      models_.push_back(std::move(info));
    }
  }

  void collect_names(TSNode expr, const Scope* s, ModelInfo& info) const {
    std::string nm = placed_name(expr);
    if (!nm.empty()) info.names.insert(nm);
    // A parameter that received it: the names its call sites pass for that parameter (one
    // level).
    TSNode e = unparen(expr);
    if (is(e, "identifier")) {
      const Scope* fs = nullptr;
      const auto* bs = m_.lookup(t(e), s, &fs);
      if (!bs) return;
      for (const auto& b : *bs) {
        if (b.kind == Binding::Kind::Param) {
          for (const auto& site : m_.call_sites(b.function)) {
            auto passed = m_.passed_argument(b, site);
            if (!passed) continue;
            std::string n2 = placed_name(passed->value);
            if (!n2.empty()) info.names.insert(n2);
          }
        } else if (b.kind == Binding::Kind::Assign && !is_null(b.value)) {
          std::string n2 = placed_name(b.value);
          if (!n2.empty()) info.names.insert(n2);
        }
      }
    }
  }

  // The models a callee may refer to (by its origins, else by a name that held one), each once,
  // in the order of the callee's origins; and whether a module is constructed at one of its
  // origins that is none of the file's trained models (a copy re-created for evaluation, whose
  // placement gpulint does not follow). One walk over the callee's origins.
  struct CalleeModels {
    std::vector<const ModelInfo*> models;
    bool untrained_module = false;
  };
  // Memoised per (callee node, scope) once find_models has built every model (the answer
  // depends on models_ and the read-only semantic model alone; the loop analyses, DEV001's fix
  // and MEM001 ask for the same callees many times).
  const CalleeModels& callee_models(TSNode callee, const Scope* s) const {
    auto key = std::make_pair(static_cast<const void*>(callee.id), s);
    if (models_final_) {
      auto memo = callee_models_memo_.find(key);
      if (memo != callee_models_memo_.end()) return memo->second;
      return callee_models_memo_.emplace(key, callee_models_uncached(callee, s)).first->second;
    }
    callee_models_scratch_ = callee_models_uncached(callee, s);
    return callee_models_scratch_;
  }
  bool models_final_ = false;
  mutable std::unordered_map<std::pair<const void*, const Scope*>, CalleeModels, NodeScopeHash>
      callee_models_memo_;
  mutable CalleeModels callee_models_scratch_;
  CalleeModels callee_models_uncached(TSNode callee, const Scope* s) const {
    CalleeModels out;
    callee = unparen(callee);
    // `model.forward(x)` runs the same forward as `model(x)` (without the hooks).
    if (is(callee, "attribute") && t(field(callee, "attribute")) == "forward")
      callee = unparen(field(callee, "object"));
    // `QNet(obs, act).to(device)`, `Net().parameters()`: a method of a call's result (here the
    // module's own API), not a call of the model, although the callee contains its creation.
    else if (is(callee, "attribute") && is(unparen(field(callee, "object")), "call"))
      return out;
    auto origins = m_.origins(callee, s);
    // Every origin is a fresh object that none of the file's models flows into (`model =
    // IR_RGB_Model(...)` rebinding an evaluate() parameter): the callee is none of them, so a
    // model that merely shares its name is not looked up.
    bool all_fresh = !origins.empty();
    for (const auto& o : origins) {
      // A class or function the file defines is not a model object: `DQN(obs, act)` constructs
      // one (the class body merely contains its layers' creations), `make_model()` builds one.
      if (is_def(o.node) || is(o.node, "decorated_definition")) { all_fresh = false; continue; }
      const ModelInfo* found = nullptr;
      for (const auto& mi : models_)
        if (contains(o.node, mi.origin) || same(o.node, mi.origin)) { found = &mi; break; }
      if (found) {
        if (std::find(out.models.begin(), out.models.end(), found) == out.models.end()) out.models.push_back(found);
      } else if (is_module_constructor(unparen(o.node), o.scope)) {
        out.untrained_module = true;
      }
      if (found || !fresh_object(unparen(o.node))) all_fresh = false;
    }
    if (!out.models.empty() || all_fresh) return out;
    std::string nm = placed_name(callee);
    if (!nm.empty())
      for (const auto& mi : models_)
        if (mi.names.count(nm)) { out.models.push_back(&mi); break; }
    return out;
  }
  // A call that makes a new object out of none of the file's models: the callee is a plain or
  // dotted name (`IR_RGB_Model(...)`, `timm.create_model(...)`) and no identifier in the call
  // ever held a model (`nn.DataParallel(model)`, `model.to(device)` are not fresh).
  bool fresh_object(TSNode call) const {
    if (!is(call, "call")) return false;
    TSNode fn = unparen(field(call, "function"));
    for (TSNode x = fn; !is(x, "identifier");) {
      if (!is(x, "attribute")) return false;
      x = unparen(field(x, "object"));
    }
    bool model_name = false;
    visit(call, [&](TSNode n) {
      if (model_name || !is(n, "identifier")) return;
      std::string nm(t(n));
      for (const auto& mi : models_)
        if (mi.names.count(nm)) { model_name = true; break; }
    });
    return !model_name;
  }

  // The model a callee refers to (by origin or by a name that held it): the first of
  // callee_models, or null.
  const ModelInfo* model_for_callee(TSNode callee, const Scope* s) const {
    const auto& cm = callee_models(callee, s);
    return cm.models.empty() ? nullptr : cm.models.front();
  }
  // The model a callee refers to when every model it may refer to is on CUDA and no untrained
  // module copy is among its origins; null otherwise (`net` trained on CUDA, then bound again at
  // module level to a fresh CPU model that the notebook evaluates: which one a later `net(x)`
  // calls is not decided here).
  const ModelInfo* cuda_model_for_callee(TSNode callee, const Scope* s) const {
    const auto& cm = callee_models(callee, s);
    if (cm.models.empty() || cm.untrained_module) return nullptr;
    for (const ModelInfo* m : cm.models)
      if (!m->on_cuda) return nullptr;
    return cm.models.front();
  }

  // The tensor `call` back-propagates, or a null node when it is no backward call:
  // `t.backward()` → t; `torch.autograd.backward(t)` → t (its first argument,
  // torch/autograd/__init__.py); `accelerator.backward(t)` of an accelerate.Accelerator and
  // `fabric.backward(t)` of a Lightning Fabric → t (both run t.backward() after their own
  // scaling: accelerate/accelerator.py Accelerator.backward, lightning/fabric/fabric.py
  // Fabric.backward). The object is recognised by its origin's qualified name. Memoised per
  // call: the loop analyses ask for the same calls many times.
  TSNode backpropagated(TSNode call) const {
    if (!is(call, "call")) return TSNode{};
    auto memo = backpropagated_.find(call.id);
    if (memo != backpropagated_.end()) return memo->second;
    TSNode out = backpropagated_uncached(call, m_.scope_of(call));
    backpropagated_.emplace(call.id, out);
    return out;
  }
  TSNode backpropagated_uncached(TSNode call, const Scope* s, bool follow_helpers = true) const {
    auto first_arg = [&]() {
      auto a = positional_arguments(call);
      if (!a.empty()) return a[0];
      TSNode k = keyword_arg(call, "tensors", src_);
      return is_null(k) ? keyword_arg(call, "loss", src_) : k;
    };
    TSNode r = receiver(call);
    if (method_name(call, src_) == "backward" && !is_null(r)) {
      for (const auto& o : m_.origins(r, s)) {
        if (!is(o.node, "call")) continue;
        const auto& q = m_.callee_name(o.node, o.scope);
        // (canonical_name folds accelerate.accelerator.* and lightning_fabric.* into these)
        if (q && (*q == "accelerate.Accelerator" || *q == "lightning.Fabric" || *q == "lightning.fabric.Fabric"))
          return first_arg();
      }
      return r;
    }
    const auto& q = m_.callee_name(call, s);
    if (q && *q == "torch.autograd.backward") return first_arg();
    // A function of the file that back-propagates one of its parameters itself (`def
    // _backprop(self, loss, opt): opt.zero_grad(); loss.backward(); opt.step()`): the argument
    // bound to it. One level: a backward inside the helper is read directly.
    if (!follow_helpers) return TSNode{};
    TSNode def = m_.resolve_local_function(call, s);
    if (is_null(def)) return TSNode{};
    const std::string& param = backpropagated_parameter(def);
    if (param.empty()) return TSNode{};
    for (TSNode a : call_arguments(call))
      if (receiving_parameter(call, def, a) == param) return is(a, "keyword_argument") ? field(a, "value") : a;
    return TSNode{};
  }
  // The parameter of function `def` that its body back-propagates directly (a tensor's
  // `.backward()`, torch.autograd.backward, an Accelerator's / Fabric's), or empty. Memoised.
  const std::string& backpropagated_parameter(TSNode def) const {
    auto it = backpropagated_parameter_.find(def.id);
    if (it != backpropagated_parameter_.end()) return it->second;
    std::string param;
    visit(field(def, "body"), [&](TSNode n) {
      if (!param.empty() || !is(n, "call")) return;
      TSNode bt = unparen(backpropagated_uncached(n, m_.scope_of(n), false));
      if (!is(bt, "identifier")) return;
      const auto* bs = m_.lookup(t(bt), m_.scope_of(n));
      if (!bs || bs->size() != 1 || bs->front().kind != Binding::Kind::Param || !same(bs->front().function, def)) return;
      param = std::string(t(bt));
    });
    return backpropagated_parameter_[def.id] = std::move(param);
  }
  mutable std::unordered_map<const void*, std::string> backpropagated_parameter_;
  bool is_backward_call(TSNode n) const { return !is_null(backpropagated(n)); }

  // The calls of the file that back-propagate (is_backward_call), in source order; computed
  // once, so the questions "does this loop / function back-propagate" below read the few
  // backward calls in a range instead of walking the subtree.
  const std::vector<TSNode>& backward_calls() const {
    if (backward_calls_) return *backward_calls_;
    backward_calls_.emplace();
    for (TSNode c : m_.calls())
      if (is_backward_call(c)) backward_calls_->push_back(c);
    std::stable_sort(backward_calls_->begin(), backward_calls_->end(),
                     [](TSNode a, TSNode b) { return start(a) < start(b); });
    return *backward_calls_;
  }
  mutable std::optional<std::vector<TSNode>> backward_calls_;

  // True when `pred(c)` holds for some backward call `c` that visit(block) reaches: inside
  // `block`, not in a function, class or lambda nested in it.
  template <class Pred>
  bool any_backward_call_in(TSNode block, Pred&& pred) const {
    if (is_null(block)) return false;
    const auto& calls = backward_calls();
    auto it = std::lower_bound(calls.begin(), calls.end(), start(block),
                               [](TSNode c, uint32_t pos) { return start(c) < pos; });
    for (; it != calls.end() && start(*it) < end(block); ++it) {
      if (end(*it) > end(block)) continue;
      bool nested = false;
      for (TSNode p = m_.parent(*it); !is_null(p) && !same(p, block); p = m_.parent(p))
        if (nested_definition(p)) { nested = true; break; }
      if (!nested && pred(*it)) return true;
    }
    return false;
  }
  mutable std::unordered_map<const void*, TSNode> backpropagated_;

  // The objects whose call results the file back-propagates (`loss = criterion(out, y)` then
  // `loss.backward()`): custom criteria (`criterion = LabelSmoothing()`) and the file's loss
  // functions (`def dice_loss(...)`) are losses too. Node ids of the callees' origins (the
  // constructing call, or the function_definition), computed once.
  const std::unordered_set<const void*>& backprop_callee_origins() const {
    if (backprop_callees_) return *backprop_callees_;
    backprop_callees_.emplace();
    for (TSNode c : m_.calls()) {
      const Scope* s = m_.scope_of(c);
      TSNode r = unparen(backpropagated(c));
      if (!is(r, "identifier")) continue;
      const auto* bs = m_.lookup(t(r), s);
      if (!bs) continue;
      for (const Binding& b : *bs) {
        TSNode v = unparen(b.value);
        if (b.kind != Binding::Kind::Assign || b.unpack_index >= 0 || !is(v, "call")) continue;
        TSNode fn = unparen(field(v, "function"));
        if (!is(fn, "identifier") && !is(fn, "attribute")) continue;
        for (const auto& o : m_.origins(fn, m_.scope_of(v)))
          if (is(o.node, "call")) backprop_callees_->insert(o.node.id);
        if (TSNode def = m_.resolve_local_function(v, m_.scope_of(v)); !is_null(def))
          backprop_callees_->insert(def.id);
        // An imported function (`from losses import displacement_error`), by qualified name.
        else if (auto q = m_.qualified_name(fn, m_.scope_of(v));
                 q && !starts_with(*q, "torch.") && !starts_with(*q, "builtins.") && q->find('.') != std::string::npos)
          backprop_callee_names_.insert(*q);
      }
    }
    return *backprop_callees_;
  }
  mutable std::optional<std::unordered_set<const void*>> backprop_callees_;
  /// Qualified names of imported functions whose results the file back-propagates (filled
  /// with backprop_callees_).
  mutable std::set<std::string> backprop_callee_names_;
  // The LightningModule class whose training_step MEM001 is walking (null otherwise), and the
  // depth of lightning_returns' recursion through the class's methods.
  TSNode lightning_class_{};
  mutable int lightning_depth_ = 0;

  bool is_criterion(TSNode callee, const Scope* s) const {
    const auto& q = m_.qualified_name(callee, s);
    if (q && starts_with(*q, "torch.nn.functional.")) return kLossFunctions.count(q->substr(20)) > 0;
    // A function of this file (`def dice_loss(pred, y)`) whose result the file back-propagates
    // somewhere: what it computes is a loss.
    if (TSNode call = m_.parent(callee); is(call, "call") && same(field(call, "function"), callee))
      if (TSNode def = m_.resolve_local_function(call, s); !is_null(def) && backprop_callee_origins().count(def.id))
        return true;
    // An imported function whose result the file back-propagates elsewhere (`loss =
    // displacement_error(pred, gt); loss.backward()` in training): the same loss in evaluation.
    if (q && (backprop_callee_origins(), backprop_callee_names_.count(*q))) return true;
    for (const auto& o : m_.origins(callee, s)) {
      // An object built by a call whose results the file back-propagates (a criterion).
      if (is(o.node, "call") && backprop_callee_origins().count(o.node.id)) return true;
      if (!is(o.node, "call")) continue;
      const auto& cq = m_.callee_name(o.node, o.scope);
      if (cq && starts_with(*cq, "torch.nn.") && cq->size() > 4 && cq->compare(cq->size() - 4, 4, "Loss") == 0)
        return true;
    }
    return false;
  }

  // ---- loaders ----------------------------------------------------------------------
  // True when every origin of `e` puts the tensor on a device other than the CPU (or on a
  // device gpulint cannot name): `.cuda()`, `.to(d)`, `device=d` with d not provably "cpu".
  // DataLoader workers cannot hand such tensors between processes.
  // Where a tensor expression's data lives, as far as this file shows: every origin followed
  // through device-keeping methods (`.float()`, `.permute()`, indexing, torch.cat/stack) to a
  // creation. Factories and conversions from host data (`torch.tensor(np_array)`,
  // `torch.from_numpy`, `torch.randn(n)`) without `device=` are on the CPU
  // (https://pytorch.org/docs/stable/tensor_attributes.html#torch-device: "the default device
  // is the CPU" unless torch.set_default_device says otherwise, which makes placement managed).
  enum class Where { Cpu, Accelerator, Unknown };
  static Where join(Where a, Where b) {
    if (a == b) return a;
    if (a == Where::Accelerator || b == Where::Accelerator) return Where::Accelerator;
    return Where::Unknown;
  }
  // Where a device expression puts a tensor: Cpu when every value gpulint can evaluate is a
  // host device string ("cpu", "cpu:0"), Accelerator when one is a device string of another
  // type ("cuda", "mps:0"; not "meta"), Unknown otherwise (a value it cannot evaluate or that
  // names no device).
  Where device_value(TSNode dev, const Scope* sc) const {
    auto vs = m_.evaluate(dev, sc);
    bool all_cpu = !vs.empty(), any_accel = false;
    for (const auto& v : vs) {
      std::string_view type = v.kind == Value::Kind::Str ? device_type_of(v.s) : std::string_view{};
      all_cpu = all_cpu && type == "cpu";
      if (!type.empty() && type != "cpu" && type != "meta") any_accel = true;
    }
    if (all_cpu) return Where::Cpu;
    return any_accel ? Where::Accelerator : Where::Unknown;
  }
  // True when `e` is provably a torch tensor: its placement is known (a torch factory or
  // conversion, followed by tensor_where), or it ends in a method only tensors have (NumPy
  // arrays have reshape/flatten/squeeze/view but not these).
  bool is_tensor_expression(TSNode e, const Scope* s) const {
    e = unparen(e);
    if (tensor_where(e, s) != Where::Unknown) return true;
    if (!is(e, "call") || is_null(receiver(e))) return false;
    static const std::set<std::string_view> kTensorOnly = {"unsqueeze", "permute", "contiguous", "cuda",
                                                           "float", "half", "long", "bfloat16"};
    return kTensorOnly.count(method_name(e, src_)) > 0;
  }

  // The value of the assignment that provably gives `name` its value at `use`: the nearest
  // `name = v` statement before the use's statement in the same block, with no other binding of
  // the name between them (`X = torch.tensor(X, dtype=torch.float32)` replaces what
  // `X, Xv = train_test_split(...)` bound). Null when there is none or it is not that simple.
  TSNode straight_line_value(TSNode name, const Scope* s) const {
    if (!is(name, "identifier")) return TSNode{};
    const Scope* fs = nullptr;
    const auto* bs = m_.lookup(t(name), s, &fs);
    if (!bs || fs != s) return TSNode{};
    TSNode use_stmt = name;
    for (TSNode p = m_.parent(name); !is_null(p); p = m_.parent(p)) {
      if (is(p, "block") || is(p, "module")) break;
      if (is_def(p) || is(p, "lambda")) return TSNode{};
      use_stmt = p;
    }
    TSNode block = m_.parent(use_stmt);
    const Binding* best = nullptr;
    for (const auto& b : *bs) {
      if (is_null(b.stmt) || start(b.stmt) >= start(use_stmt)) continue;
      if (b.kind == Binding::Kind::Assign && b.unpack_index < 0 && !is_null(b.value) &&
          is(b.stmt, "assignment") && is(m_.parent(b.stmt), "expression_statement") &&
          same(m_.parent(m_.parent(b.stmt)), block)) {
        if (!best || start(b.stmt) > start(best->stmt)) best = &b;
      }
    }
    if (!best) return TSNode{};
    for (const auto& b : *bs) {
      if (&b == best || is_null(b.stmt)) continue;
      TSNode at = is_null(b.target) ? b.stmt : b.target;
      if (start(at) > start(best->stmt) && start(at) < start(use_stmt)) return TSNode{};
    }
    return best->value;
  }

  Where tensor_where(TSNode e, const Scope* s, int depth = 0) const {
    if (depth > 12) return Where::Unknown;
    if (TSNode v = straight_line_value(unparen(e), s); !is_null(v)) return tensor_where(v, s, depth + 1);
    auto os = m_.origins(e, s);
    if (os.empty()) return Where::Unknown;
    std::optional<Where> out;
    for (const auto& o : os) {
      Where w = origin_where(unparen(o.node), o.scope, depth);
      out = out ? join(*out, w) : w;
      if (*out == Where::Accelerator) return *out;
    }
    return out.value_or(Where::Unknown);
  }
  // A value that is a Python number: a numeric literal, a name or expression whose every value
  // gpulint can evaluate is an int or float, or len(...).
  bool python_number(TSNode e, const Scope* s) const {
    e = unparen(e);
    if (is(e, "integer") || is(e, "float")) return true;
    if (is(e, "call")) {
      const auto& q = m_.callee_name(e, s);
      return q && *q == "builtins.len";
    }
    auto vs = m_.evaluate(e, s);
    if (vs.empty()) return false;
    for (const auto& v : vs)
      if (v.kind != Value::Kind::Int && v.kind != Value::Kind::Float) return false;
    return true;
  }
  // A literal of plain host data: numbers, strings, and lists / tuples of them (`ids = []`
  // before the appends that fill it).
  static bool host_literal(TSNode n, int depth = 0) {
    n = unparen(n);
    if (is(n, "integer") || is(n, "float") || is(n, "string") || is(n, "true") || is(n, "false") || is(n, "none"))
      return true;
    if (depth > 4 || !(is(n, "list") || is(n, "tuple"))) return false;
    for (TSNode el : named_children(n))
      if (!host_literal(el, depth + 1)) return false;
    return true;
  }
  Where origin_where(TSNode n, const Scope* s, int depth) const {
    if (host_literal(n)) return Where::Cpu;
    if (is(n, "subscript")) return tensor_where(field(n, "value"), s, depth + 1);
    if (is(n, "binary_operator")) {
      // A Python number on one side (`x / 255.0`, `t * scale` with a constant scale) has no
      // device: the result is on the tensor's.
      TSNode l = field(n, "left"), r = field(n, "right");
      if (python_number(r, s)) return tensor_where(l, s, depth + 1);
      if (python_number(l, s)) return tensor_where(r, s, depth + 1);
      return join(tensor_where(l, s, depth + 1), tensor_where(r, s, depth + 1));
    }
    // `train_set.data` / `.targets` of a torchvision dataset (`datasets.MNIST(...)`): held in host
    // memory — the MNIST family loads them with torch.load / from the raw files, CIFAR keeps a
    // NumPy array (torchvision/datasets/mnist.py, cifar.py).
    if (is(n, "attribute")) {
      std::string_view a = t(field(n, "attribute"));
      if (a != "data" && a != "targets") return Where::Unknown;
      auto os = m_.origins(field(n, "object"), s);
      bool all = !os.empty() && std::all_of(os.begin(), os.end(), [&](const Origin& o) {
        if (!is(unparen(o.node), "call")) return false;
        const auto& q = m_.callee_name(unparen(o.node), o.scope);
        return q && starts_with(*q, "torchvision.datasets.");
      });
      return all ? Where::Cpu : Where::Unknown;
    }
    if (!is(n, "call")) return Where::Unknown;
    std::string_view meth = method_name(n, src_);
    TSNode r = receiver(n);
    // `torch.clone(x)` is a function of the torch module, not a method of a tensor `torch`.
    const auto& fq = m_.callee_name(n, s);
    bool module_function = fq && starts_with(*fq, "torch.");
    if (!is_null(r) && !is(field(n, "function"), "identifier") && !module_function) {
      if (meth == "cuda") return Where::Accelerator;
      if (meth == "cpu" || meth == "numpy") return Where::Cpu;
      if (meth == "to") {
        auto a = positional_arguments(n);
        TSNode dev = a.empty() ? keyword_arg(n, "device", src_) : a[0];
        if (is_null(dev)) return tensor_where(r, s, depth + 1);
        const auto& dq = m_.qualified_name(dev, s);
        // x.to(torch.float32): a dtype, the device stays.
        if (dq && starts_with(*dq, "torch.") && !starts_with(*dq, "torch.device")) return tensor_where(r, s, depth + 1);
        return device_value(dev, s);
      }
      if (kSameDeviceMethods.count(meth)) return tensor_where(r, s, depth + 1);
      // Element-wise maths and reductions compute on the receiver's device (`X.sum(dim=1)`).
      static const std::set<std::string_view> kComputeOnDevice = {
          "sum", "mean", "std", "var", "prod", "cumsum", "abs", "exp", "log", "sqrt", "clamp", "norm",
          "sin", "cos", "tanh", "sigmoid", "softmax", "pow", "round", "floor", "ceil"};
      if (kComputeOnDevice.count(meth)) return tensor_where(r, s, depth + 1);
    }
    // A function of the file: where every value it returns is (`train_inputs =
    // mask_inputs(input_ids)` with `mask_ids = torch.clone(input_ids); ...; return mask_ids`).
    if (TSNode def = m_.resolve_local_function(n, s); !is_null(def)) {
      const Scope* fs = m_.function_scope(def);
      auto rets = m_.returned_values(def);
      if (!fs || rets.empty() || depth > 8) return Where::Unknown;
      std::optional<Where> out;
      for (TSNode ret : rets) {
        Where w = tensor_where(ret, fs, depth + 1);
        out = out ? join(*out, w) : w;
        if (*out == Where::Accelerator) break;
      }
      return out.value_or(Where::Unknown);
    }
    const auto& q = m_.callee_name(n, s);
    if (!q || !starts_with(*q, "torch.")) return Where::Unknown;
    TSNode dev = keyword_arg(n, "device", src_);
    if (!is_null(dev)) return device_value(dev, s);
    std::string_view fn = std::string_view(*q).substr(6);
    auto pa = positional_arguments(n);
    if (kConcatenating.count(fn) && !pa.empty()) {
      TSNode seq = unparen(pa[0]);
      if (!(is(seq, "list") || is(seq, "tuple"))) return tensor_where(seq, s, depth + 1);
      std::optional<Where> out;
      for (auto el : named_children(seq)) {
        Where w = tensor_where(el, s, depth + 1);
        out = out ? join(*out, w) : w;
      }
      return out.value_or(Where::Unknown);
    }
    if (kSameDeviceMethods.count(fn) && !pa.empty()) return tensor_where(pa[0], s, depth + 1);
    // torch.tensor / as_tensor / *_like of a tensor keep that tensor's device; from host data
    // (lists, NumPy arrays) they, the factories and the legacy typed constructors give CPU
    // tensors.
    static const std::set<std::string_view> kFromInput = {
        "tensor", "as_tensor", "zeros_like", "ones_like", "rand_like", "randn_like", "empty_like", "full_like"};
    if (kFromInput.count(fn) && !pa.empty()) {
      Where a = tensor_where(pa[0], s, depth + 1);
      return a == Where::Accelerator ? a : Where::Cpu;
    }
    if (kFactories.count(*q) || host_legacy_constructor(*q) || *q == "torch.from_numpy") return Where::Cpu;
    return Where::Unknown;
  }

  void find_loaders() {
    for (TSNode c : m_.calls()) {
      if (dead(c)) continue;
      const Scope* s = m_.scope_of(c);
      const auto& q = m_.callee_name(c, s);
      if (!q) continue;
      LoaderSite site;
      if (*q == "torch.utils.data.DataLoader") {
        site.kind = LoaderSite::Kind::TorchDataLoader;
        site.num_workers = m_.bind_argument(c, kDataLoader, "num_workers", s);
        site.pin_memory = m_.bind_argument(c, kDataLoader, "pin_memory", s);
        site.persistent_workers = m_.bind_argument(c, kDataLoader, "persistent_workers", s);
        site.prefetch_factor = m_.bind_argument(c, kDataLoader, "prefetch_factor", s);
        TSNode ds = m_.argument_node(c, kDataLoader, "dataset");
        TSNode collate = m_.argument_node(c, kDataLoader, "collate_fn");
        if (!is_null(collate)) {
          // A collate function of this file that moves tensors: batches arrive on the device.
          std::vector<Origin> cos = m_.origins(collate, s);
          if (is(unparen(collate), "identifier")) cos.push_back({unparen(collate), s});
          for (const auto& o : cos) {
            TSNode n = unparen(o.node);
            if (is(n, "lambda") && moves_to_device(n)) site.dataset_on_cuda = true;
            if (is(n, "identifier")) {
              const auto* bs = m_.lookup(t(n), o.scope);
              // A function, or a batch class whose constructor builds the batch (`collate_fn=Batch`).
              if (bs)
                for (const auto& b : *bs)
                  if ((b.kind == Binding::Kind::Def || b.kind == Binding::Kind::Class) && moves_to_device(b.function))
                    site.dataset_on_cuda = true;
            }
          }
        }
        if (!is_null(ds)) {
          // The dataset's origins, through random_split(ds, ...) and Subset(ds, indices).
          auto origins = m_.origins(ds, s);
          for (std::size_t oi = 0; oi < origins.size() && oi < 64; ++oi) {
            auto o = origins[oi];
            if (!is(o.node, "call")) {
              // Arithmetic on tensors, as a function of the file returns it (`train_data =
              // normalize(torch.from_numpy(x).cuda())` with `return (data - .5) / .5`): a tensor
              // used as the dataset, in memory; on the accelerator when provably there.
              if (tensor_where(o.node, o.scope) == Where::Accelerator) {
                site.dataset_small_in_memory = true;
                site.dataset_on_cuda = true;
              }
              continue;
            }
            const auto& sq = m_.callee_name(o.node, o.scope);
            if (sq && (*sq == "torch.utils.data.random_split" || *sq == "torch.utils.data.Subset" ||
                       *sq == "torch.utils.data.dataset.random_split" ||
                       *sq == "torch.utils.data.dataset.Subset")) {
              auto pa = positional_arguments(o.node);
              if (!pa.empty())
                for (const auto& inner : m_.origins(pa[0], o.scope)) origins.push_back(inner);
              continue;
            }
            TSNode cls = local_class(o.node, o.scope);
            if (!is_null(cls) && moves_to_device(cls)) site.dataset_on_cuda = true;
            // A dataset class of this file given tensors that are provably on an accelerator
            // (`ArtificialDataset(torch.from_numpy(x).to(device))`): its items are slices of them.
            if (!is_null(cls))
              for (auto a : call_arguments(o.node)) {
                TSNode v = is(a, "keyword_argument") ? field(a, "value") : a;
                if (is(v, "list_splat") || is(v, "dictionary_splat")) continue;
                if (tensor_where(v, o.scope) == Where::Accelerator) site.dataset_on_cuda = true;
              }
            // A tensor used as the dataset itself (`DataLoader(img)`: items are its rows), in
            // memory like a TensorDataset.
            if (is_tensor_expression(o.node, o.scope)) {
              site.dataset_small_in_memory = true;
              if (tensor_where(o.node, o.scope) == Where::Accelerator) site.dataset_on_cuda = true;
            }
            // A dataset given an accelerator device under any parameter name
            // (`PGNDataset(path, device)` with `device = torch.device("mps")`), or built with a
            // `device=` that is not provably the host, may build its items there.
            for (auto a : call_arguments(o.node)) {
              bool kw = is(a, "keyword_argument");
              TSNode v = kw ? field(a, "value") : a;
              if (is_null(v) || is(v, "list_splat") || is(v, "dictionary_splat")) continue;
              Where w = device_value(v, o.scope);
              if (w == Where::Accelerator || (kw && t(field(a, "name")) == "device" && w != Where::Cpu))
                site.dataset_on_cuda = true;
            }
            const auto& dq = m_.callee_name(o.node, o.scope);
            if (!dq || *dq != "torch.utils.data.TensorDataset") continue;
            // In memory either way (DL001 stays silent); tensors that may already be on an
            // accelerator make batches that need no copy (DL002, DEV002 stay silent too).
            auto ta = positional_arguments(o.node);
            bool all_cpu = !ta.empty();
            for (auto a : ta) all_cpu = all_cpu && tensor_where(a, o.scope) == Where::Cpu;
            if (!all_cpu) site.dataset_on_cuda = true;
            site.dataset_small_in_memory = true;
          }
        }
      } else if (*q == "torch_geometric.loader.DataLoader" || *q == "torch_geometric.data.DataLoader" ||
                 *q == "torch_geometric.loader.dataloader.DataLoader") {
        // Followed for DEV002 only: its batches are `Batch` objects (a whole batch's `.to()`
        // works in place), and DL001/DL002 leave it alone.
        site.kind = LoaderSite::Kind::GraphDataLoader;
        // Graphs moved before batching (`DataLoader([g.to(device) for g in graphs])`) come out
        // on the device: only a dataset built by a call that moves nothing is followed.
        auto pa = positional_arguments(c);
        TSNode ds = pa.empty() ? keyword_arg(c, "dataset", src_) : pa[0];
        auto os = is_null(ds) ? std::vector<Origin>{} : m_.origins(ds, s);
        bool host = !os.empty();
        for (const auto& o : os) {
          TSNode n = unparen(o.node);
          while (is(n, "subscript")) {  // `dataset[:800]`: a slice of the dataset
            auto inner = m_.origins(field(n, "value"), o.scope);
            n = inner.size() == 1 ? unparen(inner[0].node) : TSNode{};
          }
          if (!is(n, "call") || moves_to_device(n)) host = false;
        }
        site.dataset_on_cuda = !host;
      } else if (*q == "transformers.TrainingArguments" || *q == "transformers.Seq2SeqTrainingArguments") {
        site.kind = LoaderSite::Kind::HfTrainingArguments;
        site.num_workers = m_.bind_argument(c, kTrainingArguments, "dataloader_num_workers", s);
        site.pin_memory = {{Value::boolean(true)}, ValueOrigin::Other, {}};
        site.persistent_workers = m_.bind_argument(c, kTrainingArguments, "dataloader_persistent_workers", s);
      } else {
        continue;
      }
      site.call = {start(c), end(c)};
      TSNode fn = field(c, "function");
      site.callee = {start(fn), end(fn)};
      if (site.kind != LoaderSite::Kind::GraphDataLoader)
        site.set_arguments = make_set_arguments(c, site.kind == LoaderSite::Kind::TorchDataLoader ? &kDataLoader : &kTrainingArguments);
      if (!import_os_) import_os_ = import_os_edits();
      site.fix_prelude = *import_os_;
      facts_.loaders.push_back(std::move(site));
      loader_index_[c.id] = static_cast<int>(loader_calls_.size());
      loader_calls_.push_back(c);
    }
  }

  // Edits that add `import os` before the first top-level import when `os` is not imported.
  std::vector<Edit> import_os_edits() const {
    const Scope* ms = m_.module_scope();
    auto it = ms->names.find("os");
    if (it != ms->names.end())
      for (const auto& b : it->second)
        if (b.kind == Binding::Kind::Import && b.qualified == "os") return {};
    TSNode root = m_.root();
    uint32_t at = 0;
    bool found = false;
    for (auto ch : named_children(root)) {
      if (is(ch, "import_statement") || is(ch, "import_from_statement")) {
        at = start(ch);
        found = true;
        break;
      }
    }
    if (!found) {
      // After a module docstring and __future__ imports, else at the top.
      for (auto ch : named_children(root)) {
        if (is(ch, "future_import_statement") ||
            (is(ch, "expression_statement") && named_count(ch) == 1 && is(named(ch, 0), "string"))) {
          at = source_.line_start(std::min<uint32_t>(source_.line_of(end(ch)) + 1, source_.line_count() - 1));
          if (source_.line_of(end(ch)) + 1 >= source_.line_count()) at = static_cast<uint32_t>(src_.size());
          continue;
        }
        break;
      }
    }
    return {Edit{at, at, std::string("import os") + source_.newline()}};
  }

  SetArgumentsFn make_set_arguments(TSNode call, const Signature* sig) const {
    TSNode args = field(call, "arguments");
    if (!is(args, "argument_list")) return {};
    std::string_view src = src_;
    const SourceFile* source = &source_;
    return [args, sig, src, source](const std::vector<std::pair<std::string, std::string>>& kv) {
      std::vector<Edit> edits;
      auto children = named_children(args);
      std::vector<std::pair<std::string, std::string>> to_add;
      for (const auto& [name, value] : kv) {
        bool replaced = false;
        int pos = 0;
        int pos_index = -1;
        for (std::size_t i = 0; i < sig->positional.size(); ++i)
          if (sig->positional[i] == name) pos_index = static_cast<int>(i);
        for (auto ch : children) {
          if (is(ch, "keyword_argument")) {
            if (text(field(ch, "name"), src) == name) {
              TSNode v = field(ch, "value");
              edits.push_back({start(v), end(v), value});
              replaced = true;
            }
          } else if (!is(ch, "list_splat") && !is(ch, "dictionary_splat")) {
            if (pos == pos_index) { edits.push_back({start(ch), end(ch), value}); replaced = true; }
            ++pos;
          }
        }
        if (!replaced) to_add.emplace_back(name, value);
      }
      if (to_add.empty()) return edits;
      if (children.empty()) {
        std::string text;
        for (std::size_t i = 0; i < to_add.size(); ++i)
          text += (i ? ", " : "") + to_add[i].first + "=" + to_add[i].second;
        uint32_t at = start(args) + 1;
        edits.push_back({at, at, text});
        return edits;
      }
      TSNode last = children.back();
      uint32_t open_line = source->line_of(start(args));
      uint32_t last_line = source->line_of(start(last));
      std::string text;
      if (open_line == last_line) {
        for (const auto& [n, v] : to_add) text += ", " + n + "=" + v;
      } else {
        std::string_view line = source->line_text(last_line);
        std::string indent;
        for (char c : line) { if (c == ' ' || c == '\t') indent.push_back(c); else break; }
        for (const auto& [n, v] : to_add) text += std::string(",") + source->newline() + indent + n + "=" + v;
      }
      edits.push_back({end(last), end(last), text});
      return edits;
    };
  }

  // Indices (into facts_.loaders) of every DataLoader a loop's iterable may be.
  // `zip(train_loader, truth_loader)` yields a batch of each loader per step: every zipped
  // loader is iterated by the loop (https://docs.python.org/3/library/functions.html#zip).
  std::vector<int> loader_indices_for(TSNode iterable, const Scope* s, int depth = 0) const {
    std::vector<int> out;
    TSNode e = unparen(iterable);
    for (int i = 0; i < 4 && is(e, "call"); ++i) {
      const auto& q = m_.callee_name(e, s);
      if (!q) break;
      // `list(loader)` materialises the same batches (`for src, trg in list(iterator)`).
      if (*q == "builtins.enumerate" || *q == "builtins.iter" || *q == "builtins.list" || starts_with(*q, "tqdm.")) {
        auto a = positional_arguments(e);
        if (a.empty()) return out;
        e = unparen(a[0]);
      } else if (*q == "builtins.zip" && depth < 2) {
        for (TSNode a : positional_arguments(e))
          for (int li : loader_indices_for(a, s, depth + 1))
            if (std::find(out.begin(), out.end(), li) == out.end()) out.push_back(li);
        return out;
      } else {
        break;
      }
    }
    for (const auto& o : m_.origins(e, s)) {
      auto it = loader_index_.find(o.node.id);
      if (it != loader_index_.end() && std::find(out.begin(), out.end(), it->second) == out.end())
        out.push_back(it->second);
      // `train_iter = iter(loader)`, `bar = tqdm(enumerate(loader))` bound elsewhere: the
      // loader they wrap.
      if (it == loader_index_.end() && is(o.node, "call") && depth < 2) {
        const auto& q = m_.callee_name(o.node, o.scope);
        if (q && (*q == "builtins.iter" || *q == "builtins.enumerate" || *q == "builtins.zip" ||
                  starts_with(*q, "tqdm.")))
          for (int li : loader_indices_for(o.node, o.scope, depth + 1))
            if (std::find(out.begin(), out.end(), li) == out.end()) out.push_back(li);
      }
    }
    return out;
  }

  // `next(train_iter)` where the iterator comes from `iter(loader)`: the loaders it draws a
  // batch from (https://docs.python.org/3/library/functions.html#next); empty otherwise.
  // `next(enumerate(x, ...))`: a (count, item) pair.
  bool next_of_enumerate(TSNode call, const Scope* s) const {
    call = unparen(call);
    if (!is(call, "call")) return false;
    const auto& q = m_.callee_name(call, s);
    auto pa = positional_arguments(call);
    if (!q || *q != "builtins.next" || pa.empty() || !is(unparen(pa[0]), "call")) return false;
    const auto& iq = m_.callee_name(unparen(pa[0]), s);
    return iq && *iq == "builtins.enumerate";
  }

  // `def sample_data(loader): while True: for batch in loader: yield batch`, called as
  // `loader = sample_data(loader)` and drawn with `next(loader)`: the loaders passed for the
  // parameter a generator function of the file iterates and yields from (a generator's items
  // are what its `yield`s give: https://docs.python.org/3/reference/expressions.html#yield-expressions).
  // Empty for any other call.
  std::vector<int> generator_loaders(TSNode call, const Scope* s) const {
    TSNode def = m_.resolve_local_function(call, s);
    const Scope* fs = is_null(def) ? nullptr : m_.function_scope(def);
    if (!fs) return {};
    std::vector<int> out;
    visit(field(def, "body"), [&](TSNode loop) {
      if (!is(loop, "for_statement") || !same(enclosing_function(loop), def)) return;
      TSNode it = unparen(field(loop, "right"));
      if (is(it, "call")) {  // `for x, y in iter(dataloader):`
        const auto& iq = m_.callee_name(it, fs);
        auto ia = positional_arguments(it);
        if (iq && *iq == "builtins.iter" && ia.size() == 1) it = unparen(ia[0]);
      }
      if (!is(it, "identifier")) return;
      // The loop's body yields what it draws (`yield batch`, `yield x, y`), not something else.
      std::vector<TSNode> targets;
      collect_identifiers(field(loop, "left"), targets);
      bool yields = false;
      visit(field(loop, "body"), [&](TSNode y) {
        if (yields || !is(y, "yield") || !same(enclosing_function(y), def)) return;
        TSNode v = named_count(y) > 0 ? unparen(named(y, 0)) : TSNode{};
        for (TSNode tg : targets)
          if (!is_null(v) && mentions(v, std::string(t(tg)))) yields = true;
      });
      if (!yields) return;
      const auto* bs = m_.lookup(t(it), fs);
      if (!bs || bs->size() != 1 || (*bs)[0].kind != Binding::Kind::Param) return;
      auto arg = m_.passed_argument((*bs)[0], Origin{call, s});
      if (!arg) return;
      for (int li : loader_indices_for(arg->value, arg->scope))
        if (std::find(out.begin(), out.end(), li) == out.end()) out.push_back(li);
    });
    return out;
  }

  std::vector<int> next_batch_loaders(TSNode call, const Scope* s) const {
    if (!is(call, "call")) return {};
    const auto& q = m_.callee_name(call, s);
    auto pa = positional_arguments(call);
    TSNode it{};
    if (q && *q == "builtins.next" && !pa.empty()) {
      it = unparen(pa[0]);
    } else if (method_name(call, src_) == "next" && call_arguments(call).empty() && !is_null(receiver(call))) {
      // `dataiter.next()`: the loader iterator's Python 2 spelling of __next__, which
      // torch.utils.data.dataloader._BaseDataLoaderIter kept as `next = __next__` until 1.13.
      // `iter(loader).next()` inline too.
      it = unparen(receiver(call));
      if (!is(it, "identifier") && !is(it, "call")) return {};
    } else {
      return {};
    }
    // next(iter(loader)) inline, or a name bound to iter(loader); next(enumerate(loader, 0))
    // draws (0, the first batch) from a fresh enumerate (next_of_enumerate).
    if (is(it, "call")) {
      const auto& iq = m_.callee_name(it, s);
      auto ia = positional_arguments(it);
      if (!iq || (*iq != "builtins.iter" && *iq != "builtins.enumerate") || ia.empty()) return {};
      return loader_indices_for(ia[0], s);
    }
    std::vector<int> out;
    auto origins = m_.origins(it, s);
    // `loader = iter(loader)`: the name's first value, the loader, is what iter() wraps.
    auto wrapped_by_iter = [&](TSNode n) {
      for (const auto& o : origins) {
        if (!is(o.node, "call")) continue;
        const auto& iq = m_.callee_name(o.node, o.scope);
        auto ia = positional_arguments(o.node);
        if (iq && *iq == "builtins.iter" && ia.size() == 1 && is(unparen(ia[0]), "identifier") &&
            m_.lookup(t(unparen(ia[0])), o.scope) != nullptr &&
            m_.lookup(t(unparen(ia[0])), o.scope) == m_.lookup(t(it), s) && start(n) < start(o.node))
          return true;
      }
      return false;
    };
    for (const auto& o : origins) {
      if (!is(o.node, "call")) return {};
      if (wrapped_by_iter(o.node) && !loader_indices_for(o.node, o.scope).empty()) continue;
      // `loader = sample_data(loader)` reads the name it rebinds, so the loader itself is an
      // origin too; but next() of a DataLoader raises (it is an iterable, not an iterator), so
      // what next() draws from is the rebinding.
      if (const auto& lq = m_.callee_name(o.node, o.scope);
          lq && (*lq == "torch.utils.data.DataLoader" || *lq == "torch.utils.data.dataloader.DataLoader"))
        continue;
      if (auto gl = generator_loaders(o.node, o.scope); !gl.empty()) {
        for (int li : gl)
          if (std::find(out.begin(), out.end(), li) == out.end()) out.push_back(li);
        continue;
      }
      const auto& iq = m_.callee_name(o.node, o.scope);
      auto ia = positional_arguments(o.node);
      if (!iq || *iq != "builtins.iter" || ia.empty()) return {};
      for (int li : loader_indices_for(ia[0], o.scope))
        if (std::find(out.begin(), out.end(), li) == out.end()) out.push_back(li);
    }
    return out;
  }

  // ---- loops: DEV002, DL002's batch copies, MEM001 ---------------------------------
  enum class State { Unmoved, Moved };

  // `enumerate(loader)`, `tqdm(enumerate(loader))`, or a name bound to one of them.
  bool enumerate_wrapped(TSNode iterable, const Scope* s, int depth = 0) const {
    TSNode e = unparen(iterable);
    if (is(e, "identifier") && depth == 0) {
      auto os = m_.origins(e, s);
      if (os.empty()) return false;
      for (const auto& o : os)
        if (!enumerate_wrapped(o.node, o.scope, depth + 1)) return false;
      return true;
    }
    if (!is(e, "call")) return false;
    const auto& q = m_.callee_name(e, s);
    if (q && starts_with(*q, "tqdm.") && depth < 3) {
      auto pa = positional_arguments(e);
      return !pa.empty() && enumerate_wrapped(pa[0], s, depth + 1);
    }
    return q && *q == "builtins.enumerate";
  }

  void collect_identifiers(TSNode pattern, std::vector<TSNode>& out) const {
    pattern = unparen(pattern);
    if (is(pattern, "identifier")) { out.push_back(pattern); return; }
    for (auto ch : named_children(pattern)) collect_identifiers(ch, out);
  }

  bool in_loop_within_function(TSNode n) const {
    for (TSNode p = m_.parent(n); !is_null(p); p = m_.parent(p)) {
      if (is(p, "for_statement") || is(p, "while_statement")) return true;
      if (is_def(p)) return false;
    }
    return false;
  }

  // True when `n` is in the `forward` method of a class of this file that subclasses
  // torch.nn.Module: nn.Module.__call__ runs forward once per step
  // (https://pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.forward).
  bool in_module_forward(TSNode n) const {
    TSNode fn{};
    for (TSNode p = m_.parent(n); !is_null(p); p = m_.parent(p)) {
      if (is(p, "lambda") || is(p, "class_definition")) return false;
      if (is(p, "function_definition")) { fn = p; break; }
    }
    if (is_null(fn) || t(field(fn, "name")) != "forward") return false;
    TSNode cls = m_.parent(fn);
    while (!is_null(cls) && (is(cls, "block") || is(cls, "decorated_definition"))) cls = m_.parent(cls);
    // Directly, or through classes of the file (`class LSTMModel(BaseModel)` with `class
    // BaseModel(nn.Module)`): SemanticModel::module_subclass.
    return m_.module_subclass(cls);
  }

  // In the `__init__` of a class of the file derived from torch.utils.data's Dataset or
  // IterableDataset (directly): building the dataset, once per dataset, not once per step —
  // unless the file creates that dataset inside a loop.
  bool in_dataset_constructor(TSNode n) const {
    TSNode fn = enclosing_function(n);
    if (is_null(fn) || t(field(fn, "name")) != "__init__") return false;
    if (!direct_base_in(enclosing_class(fn), {"torch.utils.data.Dataset", "torch.utils.data.IterableDataset",
                                              "torch.utils.data.dataset.Dataset",
                                              "torch.utils.data.dataset.IterableDataset"}))
      return false;
    for (const auto& site : m_.call_sites(fn))
      if (!is_null(innermost_loop(site.node))) return false;
    return true;
  }

  // `if self.mask is None or self.mask.size(0) != n: self.mask = torch.ones(n, n).cuda()`:
  // the statement holding `n` assigns a target under an `if` (inside its loop or function) whose
  // condition reads that same target — a cache filled when it is missing or stale, not a
  // tensor made every step.
  bool cache_fill(TSNode n) const {
    TSNode stmt = n;
    while (!is_null(m_.parent(stmt)) && !is(m_.parent(stmt), "block")) stmt = m_.parent(stmt);
    if (!is(stmt, "expression_statement") || named_count(stmt) != 1 || !is(named(stmt, 0), "assignment")) return false;
    TSNode target = unparen(field(named(stmt, 0), "left"));
    if (!is(target, "identifier") && !is(target, "attribute") && !is(target, "subscript")) return false;
    for (TSNode p = m_.parent(stmt); !is_null(p); p = m_.parent(p)) {
      if (is_def(p) || is(p, "lambda") || is(p, "for_statement") || is(p, "while_statement")) break;
      if (!is(p, "if_statement")) continue;
      TSNode cond = field(p, "condition");
      // A name is read where it appears as a name (not as the attribute of `buffer.states`);
      // an attribute or subscript target, where the same expression appears.
      bool reads = is(target, "identifier") ? mentions(cond, std::string(t(target))) : same_expression(cond, target);
      if (!is(target, "identifier"))
        visit(cond, [&](TSNode c) {
          if (!reads && same_expression(c, target)) reads = true;
        });
      if (reads) return true;
    }
    return false;
  }

  // True when `n` runs once per iteration of a loop or once per step of a model: it is in a
  // loop (in_loop_within_function), in the `forward` of an nn.Module subclass of the file
  // (in_module_forward), or in a function of the file (not a lambda or class body) called from
  // a step — `hidden = self._init_hidden(b)` in forward(), `noise = make_noise(b)` in a loop
  // that back-propagates or iterates a DataLoader at its own level (step_site) — followed
  // through at most two calls. A helper called once per epoch (saving sample images) is not.
  bool runs_per_step(TSNode n) {
    if (in_dataset_constructor(n)) return false;
    if (in_loop_within_function(n)) return !beside_inner_step_loop(n) && !under_periodic_guard(n);
    return in_module_forward(n) || called_per_step(n, 0);
  }
  // True when `n` sits in the body of an `if` inside its innermost loop whose condition tests a
  // period — `if step % 1000 == 0:`, `if (i + 1) % args.sample_every == 0 and i > 0:`, `if not
  // it % freq:`, `if step in range(0, total, freq):` — so it runs on every N-th iteration (saving
  // sample images, a periodic test), not on every step: the same guard that makes a host sync
  // periodic (RULES.md, SYNC001: "not under a `step % N` guard"). A divisor that evaluates to 1
  // or 2 is no period worth the name. The `else` of such an `if` runs on the other iterations:
  // still per step; so does a branch that back-propagates (`if i % n_critic == 0:` around a
  // GAN generator's update is that generator's training step).
  bool under_periodic_guard(TSNode n) {
    // Up to the innermost step loop around `n` (through loops that are no steps of their own:
    // `if (i + 1) % 100 == 0: for _ in range(5): sample(torch.randn(b, z).cuda())`), or the
    // innermost loop when none is a step loop.
    TSNode loop{};
    for (TSNode p = m_.parent(n); !is_null(p); p = m_.parent(p)) {
      if (is_def(p)) break;
      if (!is(p, "for_statement") && !is(p, "while_statement")) continue;
      if (is_null(loop)) loop = p;
      if (step_loop(p)) { loop = p; break; }
    }
    if (is_null(loop)) return false;
    TSNode child = n;
    for (TSNode p = m_.parent(n); !is_null(p) && !same(p, loop); child = p, p = m_.parent(p)) {
      if (!is(p, "if_statement") || !same(field(p, "consequence"), child)) continue;
      // `if i % n_critic == 0:` around a generator's update: a training step of its own.
      if (periodic_condition(field(p, "condition")) &&
          !any_backward_call_in(child, [](TSNode) { return true; }))
        return true;
    }
    return false;
  }
  bool periodic_condition(TSNode cond) const {
    cond = unparen(cond);
    if (is_null(cond)) return false;
    auto periodic_modulo = [&](TSNode e) {
      e = unparen(e);
      if (!is(e, "binary_operator")) return false;
      TSNode op = field(e, "operator");
      if (is_null(op) || t(op) != "%") return false;
      // A divisor that evaluates to at most 2 (`% 2`, `EVERY = 1` then `% EVERY`) is no period.
      auto ds = m_.evaluate(field(e, "right"), m_.scope_of(e));
      if (!ds.empty() && std::all_of(ds.begin(), ds.end(), [](const Value& v) {
            return v.kind == Value::Kind::Int && v.i <= 2;
          }))
        return false;
      return !is(unparen(field(e, "left")), "string");  // `"%d" % n` formats a string
    };
    if (is(cond, "boolean_operator")) {
      TSNode op = field(cond, "operator");
      if (!is_null(op) && t(op) == "and")
        return periodic_condition(field(cond, "left")) || periodic_condition(field(cond, "right"));
      return false;
    }
    if (is(cond, "not_operator")) return periodic_modulo(field(cond, "argument"));
    std::string op = comparison_operator(cond, src_);
    if (op.empty()) return false;
    TSNode l = unparen(named(cond, 0)), r = unparen(named(cond, 1));
    if (op == "==") {
      auto literal = [&](TSNode e) { return is(e, "integer"); };
      return (periodic_modulo(l) && literal(r)) || (periodic_modulo(r) && literal(l));
    }
    if (op == "in" && is(r, "call")) {
      const auto& q = m_.callee_name(r, m_.scope_of(r));
      return q && *q == "builtins.range" && positional_arguments(r).size() == 3;
    }
    return false;
  }

  // True when the innermost loop holding `n` is no step loop itself but runs, beside `n` and on
  // every iteration, a loop over a DataLoader (a statement of its body, or inside a `with` there):
  // `for epoch in ...: labels = torch.ones(b).to(device)` then `for x, y in loader:` — `n`
  // runs once per epoch, not once per step. (A GAN's generator step around its critic's inner
  // loop back-propagates at its own level, a step loop; a PPO update's epochs over a rollout and
  // a replay agent's occasional inner update loop are no loader loops: those stay per step.)
  bool beside_inner_step_loop(TSNode n) {
    TSNode loop = innermost_loop(n);
    if (is_null(loop)) return false;
    // `loop` is the innermost loop around `n`, so no loop of its body holds `n`: the answer is
    // the loop's own (memoised).
    auto memo = epoch_loop_.find(loop.id);
    if (memo != epoch_loop_.end()) return memo->second;
    return epoch_loop_[loop.id] = epoch_loop(loop);
  }
  std::unordered_map<const void*, bool> epoch_loop_;
  bool epoch_loop(TSNode loop) {
    if (step_loop(loop)) return false;
    TSNode body = field(loop, "body");
    auto beside_every_iteration = [&](TSNode inner) {
      if (same(inner, loop) || !contains(body, inner)) return false;
      for (TSNode p = m_.parent(inner); !is_null(p) && !same(p, body); p = m_.parent(p))
        if (!is(p, "block") && !is(p, "with_statement")) return false;
      return true;
    };
    for (const auto& [inner, indices] : loader_loops())
      if (beside_every_iteration(inner)) return true;
    // A batch loop over something gpulint cannot name a DataLoader (`for i, (images, labels) in
    // enumerate(pbar)` with `pbar = tqdm(get_data(args))`, or `for i in range(0, n, seq_len)`
    // reading `ids[:, i:i + seq_len]`) that back-propagates at its own level — not a `range()`
    // loop whose counter the body never reads (a PPO update's epochs over its rollout).
    bool found = false;
    visit(body, [&](TSNode x) {
      if (found || !same(innermost_loop(x), loop)) return;
      // `for epoch in range(1, epochs + 1): train(epoch); test(epoch)` — a function of the file
      // called on every iteration that runs a pass over the data itself (runs_step_loop).
      if (is(x, "call")) {
        if (!beside_every_iteration(enclosing_statement(x))) return;
        TSNode def = m_.resolve_local_function(x, m_.scope_of(x));
        if (!is_null(def) && !contains(def, loop) && runs_step_loop(def)) found = true;
        return;
      }
      if (!is(x, "while_statement") && !is(x, "for_statement")) return;
      if (!beside_every_iteration(x)) return;
      // `for episode in ...: obs = torch.tensor(env.reset()[0]).to(device)` then `while not done:
      // ... env.step(a)`: the inner loop steps the environment, so the outer one runs once per
      // episode.
      if (steps_environment_at_its_level(x)) { found = true; return; }
      if (!is(x, "for_statement")) return;
      if (iterates_range(x)) {
        TSNode counter = unparen(field(x, "left"));
        if (!is(counter, "identifier") || !mentions(field(x, "body"), std::string(t(counter)))) return;
      }
      if (backprops_at_its_level(x) || moves_its_elements(x)) found = true;
    });
    return found;
  }
  // True when a call at `loop`'s own level (not in a loop inside it) steps a Gym / Gymnasium
  // environment (steps_gym_environment).
  bool steps_environment_at_its_level(TSNode loop) const {
    bool steps = false;
    visit(field(loop, "body"), [&](TSNode c) {
      if (!steps && is(c, "call") && same(innermost_loop(c), loop) && steps_gym_environment(c)) steps = true;
    });
    return steps;
  }
  // True when function `def` holds, in its own body (not a nested definition's), a pass over a
  // dataset: a loop over a DataLoader, or a for-loop that moves what it iterates to the GPU
  // (moves_its_elements). An RL rollout or update function (a loop over environment steps or
  // over a rollout's minibatches already on the device) is no such pass: the loop calling it
  // once per rollout stays a loop of updates. Memoised per function.
  bool runs_step_loop(TSNode def) {
    auto memo = runs_step_loop_.find(def.id);
    if (memo != runs_step_loop_.end()) return memo->second;
    bool found = false;
    for (const auto& [l, indices] : loader_loops())
      if (!found && contains(def, l) && same(enclosing_function(l), def)) found = true;
    visit(field(def, "body"), [&](TSNode x) {
      if (!found && is(x, "for_statement") && same(enclosing_function(x), def) && moves_its_elements(x))
        found = true;
    });
    return runs_step_loop_[def.id] = found;
  }
  std::unordered_map<const void*, bool> runs_step_loop_;
  // True when for-loop `loop` moves what it iterates to an accelerator in its body: `for x, _ in
  // train_loader: x = x.to(device)`, `batch[0].cuda()` — a loop over batches, whatever gpulint
  // can tell of the iterable (a parameter, a project loader), even when its steps happen in
  // functions gpulint cannot read (`D.train_step(x, ...)` of an imported model).
  bool moves_its_elements(TSNode loop) {
    std::vector<TSNode> ids;
    collect_identifiers(field(loop, "left"), ids);
    std::set<std::string> names;
    for (TSNode id : ids) names.insert(std::string(t(id)));
    return !names.empty() && moves_rooted_at(field(loop, "body"), names);
  }

  bool called_per_step(TSNode n, int depth) {
    TSNode fn = enclosing_function(n);
    if (is_null(fn)) return false;
    for (const auto& site : m_.call_sites(fn)) {
      if (dead(site.node)) continue;
      if (step_site(site.node) || (depth < 1 && called_per_step(site.node, depth + 1))) return true;
    }
    // A training-step function (`update_global(trajectory)` under `if done:`, a replay agent's
    // `learn()` that the training script in another file calls): each call is one optimizer
    // step, whoever calls it and however often.
    return step_function(fn) || acting_method(fn);
  }
  // `model = init_model()` in a function that never places it, where init_model() is a
  // function of the file building a new module on each call: this instance is not the one the
  // file placed elsewhere (`model = init_model(); model.to(device)` in train()) — one
  // ModelInfo stands for every instance the factory builds, so its placements say nothing of
  // this one. True when every binding of the callee name in its own function is such a call and
  // no CUDA placement of the model is in this function or in the factory.
  bool fresh_factory_instance(TSNode callee, const Scope* s, const ModelInfo& mi) const {
    callee = unparen(callee);
    if (!is(callee, "identifier")) return false;
    TSNode fn = enclosing_function(callee);
    if (is_null(fn)) return false;
    const Scope* fs = nullptr;
    const auto* bs = m_.lookup(t(callee), s, &fs);
    if (!bs || bs->empty() || fs != m_.function_scope(fn)) return false;
    std::vector<TSNode> factories;
    for (const Binding& b : *bs) {
      if (b.kind != Binding::Kind::Assign || b.unpack_index >= 0 || is_null(b.value)) return false;
      TSNode v = unparen(b.value);
      if (!is(v, "call")) return false;
      TSNode def = m_.resolve_local_function(v, fs);
      if (!is(def, "function_definition")) return false;
      factories.push_back(def);
    }
    for (TSNode pc : mi.cuda_placements) {
      if (contains(fn, pc)) return false;
      for (TSNode f : factories)
        if (contains(f, pc)) return false;
      // A helper this function calls may place it (`move_to_device(model)`).
      TSNode placer = enclosing_function(pc);
      if (!is_null(placer))
        for (const auto& site : m_.call_sites(placer))
          if (contains(fn, site.node)) return false;
    }
    return true;
  }

  // An agent's acting method: a method without loops of its own that the file never calls,
  // which computes with a model of the file, in a class another method of which is a training
  // step (`select_action(state)` beside `update()`). The environment loop in another file calls
  // it once per environment step — at least as often as the training step, which counts as per
  // step already.
  bool acting_method(TSNode fn) {
    if (!is(fn, "function_definition") || starts_with(t(field(fn, "name")), "__")) return false;
    TSNode cls = enclosing_class(fn);
    if (is_null(cls) || !same(m_.parent(fn), field(cls, "body"))) return false;
    if (!m_.call_sites(fn).empty() || models_called_in(fn).empty()) return false;
    // One action per call: a method that runs a loop of its own (`run()` playing whole
    // episodes) is no acting method.
    bool loops = false;
    visit(field(fn, "body"), [&](TSNode n) { loops = loops || is(n, "for_statement") || is(n, "while_statement"); });
    if (loops) return false;
    for (TSNode st : named_children(field(cls, "body"))) {
      TSNode def = is(st, "decorated_definition") ? field(st, "definition") : st;
      if (is(def, "function_definition") && !same(def, fn) && step_function(def)) return true;
    }
    return false;
  }

  // True when function `def` is a training step: it back-propagates once per call (outside
  // any loop of its own) and steps an optimizer once per call, outside loops too —
  // `optimizer.step()`, `self.optimizer.step()` (a `step()` without arguments on anything but
  // an lr scheduler), or a GradScaler's `scaler.step(optimizer)`. Memoised.
  bool step_function(TSNode def) {
    auto memo = step_function_.find(def.id);
    if (memo != step_function_.end()) return memo->second;
    bool steps = false;
    if (backprops_outside_loops(def)) {
      visit(field(def, "body"), [&](TSNode n) {
        if (steps || !is(n, "call") || !is_null(innermost_loop(n)) || dead(n)) return;
        StepOf k = optimizer_step(n);
        // An object the file cannot resolve (`self.global_optimizer` passed in by another file,
        // an optimizer an imported model class builds) stepped without arguments right in a
        // function that back-propagates once per call: taken as its optimizer (sets 17-20: 15
        // labels, no trap, depend on this).
        steps = k == StepOf::Optimizer || (k == StepOf::Unknown && call_arguments(n).empty());
      });
    }
    return step_function_[def.id] = steps;
  }
  std::unordered_map<const void*, bool> step_function_;

  // What a `.step(...)` call steps, by its receiver's origins: a torch.optim optimizer
  // (`optimizer.step()`; also through `optimizer = optim_cls(...)`) or a GradScaler
  // (`scaler.step(optimizer)`, torch/amp/grad_scaler.py: it runs optimizer.step()); something
  // else gpulint knows (an lr scheduler, a Gym environment, any other call's result); or
  // Unknown — no origin the file shows (`self.q_eval.optimizer`, a parameter no call site
  // passes). None for a call that is no `.step(...)`.
  enum class StepOf { None, Optimizer, Other, Unknown };
  StepOf optimizer_step(TSNode call) const {
    if (method_name(call, src_) != "step") return StepOf::None;
    TSNode r = unparen(receiver(call));
    if (is_null(r)) return StepOf::None;
    auto os = m_.origins(r, m_.scope_of(call));
    bool args = !call_arguments(call).empty();
    bool all_known = !os.empty();
    for (const auto& o : os) {
      // An origin that is no call (a parameter, an attribute no store of which the file shows)
      // says nothing about what it is.
      if (!is(o.node, "call")) { all_known = false; continue; }
      auto q = m_.callee_name(o.node, o.scope);
      if (!q || !starts_with(*q, "torch.")) q = optimizer_class_through_name(o.node, o.scope);
      if (!q) return StepOf::Other;
      bool optimizer = starts_with(*q, "torch.optim.") && !starts_with(*q, "torch.optim.lr_scheduler");
      bool scaler = *q == "torch.cuda.amp.GradScaler" || *q == "torch.amp.GradScaler" ||
                    *q == "torch.cuda.amp.grad_scaler.GradScaler" || *q == "torch.amp.grad_scaler.GradScaler";
      if (!(optimizer && !args) && !(scaler && args)) return StepOf::Other;
    }
    return all_known ? StepOf::Optimizer : StepOf::Unknown;
  }

  // `if len(memory) > batch_size:` / `if len(buffer) >= warmup:` — a replay buffer's length
  // compared against a threshold: false while the buffer fills, then true on every later
  // iteration (the buffer only grows or stays full), unlike a periodic `step % n == 0`.
  bool warm_up_guard(TSNode cond, const Scope* s) const {
    cond = unparen(cond);
    std::string op = comparison_operator(cond, src_);
    if (op.empty()) return false;
    TSNode l = unparen(named(cond, 0)), r = unparen(named(cond, 1));
    auto is_len = [&](TSNode e) {
      if (!is(e, "call")) return false;
      const auto& q = m_.callee_name(e, s);
      return q && *q == "builtins.len";
    };
    if (op == ">" || op == ">=") return is_len(l) && !is_len(r);
    if (op == "<" || op == "<=") return is_len(r) && !is_len(l);
    return false;
  }

  // True when condition `cond` of an `if` inside `loop` has the same value on every iteration
  // of a run: a mode or option (`if mode == 'gp':`, `if args.gradient_penalty:`, `if
  // self.use_gp:`) — so a call under it runs on every iteration of the runs that take it. Made
  // of literals, comparisons, `and`/`or`/`not`, names no statement inside the loop binds, and
  // attributes whose every store in the file is at module level or in an `__init__`; no calls
  // and no subscripts (which may read what the loop changes).
  // With `setup_only` false (a flag read where a creation is moved), an attribute may also be
  // set elsewhere before the run gets there (`args.cuda = args.use_gpu and
  // torch.cuda.is_available()` in main()), as long as no store is in `loop` or in a function
  // that runs once per step (attribute_unchanged_per_step).
  bool run_constant(TSNode cond, TSNode loop, bool setup_only = true) {
    bool ok = !is_null(cond);
    const Scope* s = m_.scope_of(cond);
    visit(cond, [&](TSNode n) {
      if (!ok) return;
      if (is(n, "call") || is(n, "subscript") || is(n, "lambda") || is(n, "await") ||
          is(n, "named_expression") || is(n, "list_comprehension") || is(n, "generator_expression")) {
        ok = false;
        return;
      }
      if (is(n, "attribute")) {
        std::string attr(t(field(n, "attribute")));
        if (setup_only ? !attribute_set_only_at_setup(attr, loop) : !attribute_unchanged_per_step(attr, loop))
          ok = false;
        return;
      }
      if (!is(n, "identifier")) return;
      TSNode par = m_.parent(n);
      if (is(par, "attribute") && same(field(par, "attribute"), n)) return;  // `x.attr`'s name
      const auto* bs = m_.lookup(t(n), s);
      if (!bs) return;  // a builtin or unbound global: nothing in the loop rebinds it
      for (const Binding& b : *bs)
        if (!is_null(b.stmt) && contains(loop, b.stmt)) ok = false;
    });
    return ok;
  }
  // Every store `<obj>.attr = v` / `<obj>.attr += v` of the file is outside `loop` and in no
  // function that runs once per step (called_per_step): the attribute may be set anywhere else
  // before the run reaches `loop` (`args.cuda = args.use_gpu and torch.cuda.is_available()` in
  // main()), but not changed while it runs.
  bool attribute_unchanged_per_step(const std::string& attr, TSNode loop) {
    for (const auto& [stmt, sc] : m_.attribute_store_sites(attr))
      if (is_null(stmt) || contains(loop, stmt) || called_per_step(stmt, 0)) return false;
    return true;
  }
  // Every store `<obj>.attr = v` / `<obj>.attr += v` of the file (the semantic model records
  // them all) is outside `loop`, at module level or in an `__init__` method.
  bool attribute_set_only_at_setup(const std::string& attr, TSNode loop) const {
    for (const auto& [stmt, sc] : m_.attribute_store_sites(attr)) {
      if (is_null(stmt) || contains(loop, stmt)) return false;
      if (!sc || sc->kind == Scope::Kind::Module) continue;
      if (sc->kind != Scope::Kind::Function || !is(sc->node, "function_definition") ||
          t(field(sc->node, "name")) != "__init__")
        return false;
    }
    return true;
  }

  bool step_site(TSNode site) {
    if (in_module_forward(site)) return true;
    TSNode loop = innermost_loop(site);
    if (is_null(loop)) return false;
    // Under an `if` inside the loop (`if epoch % evaluate_every == 0: evaluate_randomly()`):
    // not every iteration, unless the condition holds on every GPU run (`if USE_CUDA:`).
    for (TSNode p = m_.parent(site); !is_null(p) && !same(p, loop); p = m_.parent(p)) {
      if (is(p, "elif_clause") || is(p, "else_clause")) return false;
      if (!is(p, "if_statement")) continue;
      if (warm_up_guard(field(p, "condition"), m_.scope_of(p))) continue;
      if (run_constant(field(p, "condition"), loop)) continue;
      bool assumes = false;
      auto truth = truth_on_gpu(field(p, "condition"), m_.scope_of(p), &assumes);
      if (!truth || !*truth) return false;
    }
    return step_loop(loop);
  }

  // True when each iteration of `loop` is a training step: it back-propagates at its own level,
  // iterates a DataLoader, calls a function of the file that back-propagates once per call
  // (`loss = train(input_batches, target_batches, ...)`), or steps a Gym / Gymnasium environment
  // (`obs, r, done, *_ = env.step(action)`, `env = gym.make(...)`: once per environment step,
  // the unit an agent's `select_action()` / replay `push()` work in). Memoised per loop: every
  // call site in the loop asks (step_site, collect_cross_file).
  bool step_loop(TSNode loop) {
    auto memo = step_loop_.find(loop.id);
    if (memo != step_loop_.end()) return memo->second;
    bool step = backprops_at_its_level(loop);
    for (const auto& [l, indices] : loader_loops())
      if (!step && same(l, loop)) step = true;
    if (!step)
      visit(field(loop, "body"), [&](TSNode n) {
        if (step || !is(n, "call") || !same(innermost_loop(n), loop)) return;
        TSNode def = m_.resolve_local_function(n, m_.scope_of(n));
        if ((!is_null(def) && backprops_outside_loops(def)) || steps_gym_environment(n)) step = true;
      });
    return step_loop_[loop.id] = step;
  }
  std::unordered_map<const void*, bool> step_loop_;

  // `env.step(action)` where every origin of `env` is an environment Gym or Gymnasium made
  // (gym.make, gym.vector.make, gymnasium.make, gymnasium.make_vec, gymnasium.vector.make).
  bool steps_gym_environment(TSNode call) const {
    if (method_name(call, src_) != "step" || positional_arguments(call).empty()) return false;
    TSNode env = unparen(receiver(call));
    if (is_null(env)) return false;
    auto os = m_.origins(env, m_.scope_of(call));
    return !os.empty() && std::all_of(os.begin(), os.end(), [&](const Origin& o) {
      if (!is(o.node, "call")) return false;
      const auto& q = m_.callee_name(o.node, o.scope);
      return q && (*q == "gym.make" || *q == "gym.vector.make" || *q == "gymnasium.make" ||
                   *q == "gymnasium.make_vec" || *q == "gymnasium.vector.make");
    });
  }

  // The nearest for/while loop around `n` in its own function; a null node when none.
  TSNode innermost_loop(TSNode n) const {
    for (TSNode p = m_.parent(n); !is_null(p); p = m_.parent(p)) {
      if (is(p, "for_statement") || is(p, "while_statement")) return p;
      if (is_def(p) || is(p, "lambda")) break;
    }
    return TSNode{};
  }

  bool iterated_per_epoch(TSNode loop) const {
    if (in_loop_within_function(loop)) return true;
    for (TSNode p = m_.parent(loop); !is_null(p); p = m_.parent(p)) {
      if (is(p, "function_definition")) {
        for (const auto& site : m_.call_sites(p))
          if (in_loop_within_function(site.node)) return true;
        return false;
      }
    }
    return false;
  }

  struct LoopState {
    std::unordered_map<std::string, State> names;
    std::set<std::string> ever;        // names that held batch data
    std::set<std::string> reported;
    std::set<std::string> gpu_outputs;  // names bound to the CUDA model's output (not brought back)
    std::set<std::string> whole_batch;  // names bound to a whole batch (`for batch in loader`)
    std::set<std::string> discarded;    // batch tensors whose `.to()` result was thrown away
    // A whole batch's elements that are no tensor (non_tensor_batch_elements): `data[2]` of
    // `for data in loader` whose collate function returns `x, y, lengths_list`.
    std::unordered_map<std::string, std::vector<bool>> non_tensor_elements;
    bool copied_to_cuda = false;
    bool discarded_copy_to_cuda = false;  // a batch copied to CUDA by a statement that drops it
    /// Entries of a batch container stored in the loop (`batch["x"] = batch["x"].to(dev)`), by
    /// element_key: their state, or nullopt when unknown. A store under a key that is no
    /// literal (`for k, v in batch.items(): batch[k] = v.to(dev)`) may write any entry: the
    /// container's own state is dropped instead.
    std::unordered_map<std::string, std::optional<State>> elements;
  };
  /// The key of `container[literal]` in LoopState::elements; empty when `sub` is not a
  /// subscript of a name by a string or integer literal.
  std::string element_key(TSNode sub) const {
    if (!is(sub, "subscript")) return {};
    TSNode v = unparen(field(sub, "value"));
    TSNode k = unparen(field(sub, "subscript"));
    if (!is(v, "identifier") || !(is(k, "string") || is(k, "integer"))) return {};
    std::string key(t(v));
    key += '\0';
    if (is(k, "string")) {
      std::string lit;
      if (!string_literal_value(k, src_, &lit)) return {};
      key += 's';
      key += lit;
    } else {
      key += 'i';
      key += t(k);
    }
    return key;
  }
  static void forget_elements(LoopState& st, const std::string& name) {
    for (auto it = st.elements.begin(); it != st.elements.end();)
      if (it->first.size() > name.size() && it->first.compare(0, name.size(), name) == 0 &&
          it->first[name.size()] == '\0')
        it = st.elements.erase(it);
      else
        ++it;
  }

  // The parameter of `def` (a function_definition of this file) that receives the positional
  // argument at `index` of a call: a method called as `obj.m(...)` gets `self` first, a
  // @staticmethod does not. nullptr when no named parameter takes it (`*args`, too many).
  const Binding* parameter_at(TSNode def, int index) const {
    const Scope* fs = m_.function_scope(def);
    if (!fs || index < 0) return nullptr;
    const Scope* outer = m_.scope_of(def);
    if (outer && outer->kind == Scope::Kind::Class && !is_staticmethod(def)) ++index;
    for (const auto& [name, bs] : fs->names)
      for (const auto& b : bs)
        if (b.kind == Binding::Kind::Param && same(b.function, def) && b.param_index == index) return &b;
    return nullptr;
  }

  // The name of the parameter of `def` (the function `call` resolves to) that receives `arg`,
  // one of call_arguments(call): a keyword_argument's name, or for a positional argument
  // parameter_at's. Empty when none does (`*args`, too many arguments).
  std::string receiving_parameter(TSNode call, TSNode def, TSNode arg) const {
    if (is(arg, "keyword_argument")) return std::string(t(field(arg, "name")));
    int index = 0;
    for (auto a : positional_arguments(call)) {
      if (same(a, arg)) {
        const Binding* b = parameter_at(def, index);
        return b ? std::string(t(b->target)) : std::string();
      }
      ++index;
    }
    return {};
  }

  bool is_staticmethod(TSNode def) const {
    TSNode p = m_.parent(def);
    if (!is(p, "decorated_definition")) return false;
    bool found = false;
    for_each_named_child(p, [&](TSNode d) {
      if (!is(d, "decorator") || named_count(d) == 0) return;
      const auto& q = m_.qualified_name(unparen(named(d, 0)), m_.scope_of(def));
      if (q && *q == "builtins.staticmethod") found = true;
    });
    return found;
  }

  // True when `e`, an expression in the body of `def`, holds what `param` (one of its
  // parameters) was given: the parameter itself, an element, key, value or attribute of it, a
  // same-device view or cast of it, or a name `def` binds to one of these (assignment, `for`
  // loop or comprehension over it). Follows only bindings made inside `def`; `visited` holds
  // the bindings already followed (a name rebound to itself, `x = x.float()`, is followed
  // once) and `budget` bounds the nodes looked at (false when it runs out: undecided).
  bool holds_parameter(TSNode e, const Scope* s, TSNode def, const Binding& param,
                       std::unordered_set<const void*>& visited, int& budget) const {
    e = unparen(e);
    if (is_null(e) || --budget < 0) return false;
    if (is(e, "identifier")) {
      const Scope* found = nullptr;
      const auto* bs = m_.lookup(t(e), s, &found);
      if (!bs || !found || !contains(def, found->node)) return false;
      for (const auto& b : *bs) {
        if (b.kind == Binding::Kind::Param) {
          if (same(b.target, param.target)) return true;
          continue;
        }
        if (b.kind != Binding::Kind::Assign && b.kind != Binding::Kind::AugAssign &&
            b.kind != Binding::Kind::For)
          continue;
        if (is_null(b.value) || !visited.insert(b.target.id).second) continue;
        if (holds_parameter(b.value, m_.scope_of(b.value), def, param, visited, budget)) return true;
      }
      return false;
    }
    if (is(e, "subscript")) return holds_parameter(field(e, "value"), s, def, param, visited, budget);
    if (is(e, "attribute")) return holds_parameter(field(e, "object"), s, def, param, visited, budget);
    if (is(e, "conditional_expression")) {
      auto ch = named_children(e);  // `a if cond else b`: the values are children 0 and 2
      return ch.size() == 3 && (holds_parameter(ch[0], s, def, param, visited, budget) ||
                                holds_parameter(ch[2], s, def, param, visited, budget));
    }
    if (is(e, "list") || is(e, "tuple") || is(e, "expression_list")) {
      for (auto el : named_children(e))
        if (holds_parameter(el, s, def, param, visited, budget)) return true;
      return false;
    }
    if (!is(e, "call")) return false;
    TSNode r = receiver(e);
    if (!is_null(r)) {
      std::string_view meth = method_name(e, src_);
      return (kSameDeviceMethods.count(meth) || meth == "items" || meth == "values" || meth == "get" ||
              meth == "to" || meth == "cuda") &&
             holds_parameter(r, s, def, param, visited, budget);
    }
    const auto& q = m_.callee_name(e, s);
    if (!q) return false;
    auto pa = positional_arguments(e);
    // zip(xs, ys), enumerate(batch), list(batch): their elements are the arguments' elements.
    if (*q == "builtins.zip" || *q == "builtins.enumerate" || *q == "builtins.list" ||
        *q == "builtins.tuple" || *q == "builtins.reversed" || *q == "builtins.sorted" ||
        *q == "builtins.iter") {
      for (auto a : pa)
        if (holds_parameter(a, s, def, param, visited, budget)) return true;
      return false;
    }
    if (pa.empty()) return false;
    if (TSNode w = variable_wrapped(e, s); !is_null(w)) return holds_parameter(w, s, def, param, visited, budget);
    if (starts_with(*q, "torch.")) {
      std::string_view fn = std::string_view(*q).substr(6);
      if (kConcatenating.count(fn) || kSameDeviceMethods.count(fn))
        return holds_parameter(pa[0], s, def, param, visited, budget);
    }
    return false;
  }

  // The `.to()` / `.cuda()` calls in the body of helper `def` (not in functions nested in it)
  // whose receiver holds what `param` was given (holds_parameter). Computed once per parameter:
  // classify asks at every call of the helper.
  const std::vector<TSNode>& helper_moves(TSNode def, const Binding& param) {
    auto it = helper_moves_.find(param.target.id);
    if (it != helper_moves_.end()) return it->second;
    std::vector<TSNode> out;
    visit(field(def, "body"), [&](TSNode n) {
      if (!is(n, "call")) return;
      std::string_view mm = method_name(n, src_);
      if (mm != "to" && mm != "cuda") return;
      std::unordered_set<const void*> visited;
      int budget = 256;
      if (holds_parameter(receiver(n), m_.scope_of(n), def, param, visited, budget)) out.push_back(n);
    });
    return helper_moves_.emplace(param.target.id, std::move(out)).first->second;
  }

  // `batch.src` where `batch = Batch(src_data, tgt_data)` (a class of the file) and Batch's
  // `__init__` stores `self.src = src` (or a slice or attribute of it, `self.tgt = tgt[:, :-1]`)
  // from the parameter that receives a batch tensor of this loop: the attribute holds (a view
  // of) the loader's batch, so moving it copies the batch. Only the copy is read from this (DL002's
  // evidence); the object gets no state, so what else it holds is not taken for a batch.
  bool batch_held_by_local_object(TSNode attr, const Scope* s, LoopState& st) {
    attr = unparen(attr);
    if (!is(attr, "attribute")) return false;
    TSNode obj = unparen(field(attr, "object"));
    if (!is(obj, "identifier")) return false;
    std::string_view name = t(field(attr, "attribute"));
    auto os = m_.origins(obj, s);
    if (os.empty()) return false;
    for (const Origin& o : os) {
      TSNode call = unparen(o.node);
      if (!is(call, "call")) return false;
      TSNode cls = local_class(call, o.scope);
      if (is_null(cls)) return false;
      TSNode init = class_method(cls, "__init__");
      const Scope* fs = is_null(init) ? nullptr : m_.function_scope(init);
      if (!fs) return false;
      // The parameters `self.<name>` is stored from in __init__ (a slice or attribute of one).
      auto params = stored_from_parameters(init, name, /*views=*/true);
      if (!params || params->empty()) return false;
      for (const std::string& p : *params) {
        const auto* bs = m_.lookup(p, fs);
        if (!bs || bs->size() != 1) return false;
        auto passed = m_.passed_argument(bs->front(), Origin{call, o.scope});
        if (!passed || !classify(passed->value, passed->scope, st)) return false;
      }
    }
    return true;
  }

  // Classifies an expression as holding (un)moved batch data; nullopt: neither / unknown.
  std::optional<State> classify(TSNode e, const Scope* s, LoopState& st) {
    e = unparen(e);
    if (is(e, "identifier")) {
      auto it = st.names.find(std::string(t(e)));
      if (it == st.names.end()) return std::nullopt;
      return it->second;
    }
    // `[d.cuda() for d in data] if cuda else data`: on the runs that train on CUDA (the
    // condition true there: truth_on_gpu) the value side; otherwise what both sides agree on.
    if (auto parts = conditional_parts(e)) {
      bool assumes = false;
      auto truth = truth_on_gpu(parts->condition, s, &assumes);
      if (truth && *truth) return classify(parts->value, s, st);
      auto a = classify(parts->value, s, st);
      auto b = classify(parts->otherwise, s, st);
      if (a && b && *a == *b) return a;
      return std::nullopt;
    }
    if (is(e, "subscript")) {
      if (std::string key = element_key(e); !key.empty()) {
        auto it = st.elements.find(key);
        if (it != st.elements.end()) return it->second;
      }
      TSNode v = unparen(field(e, "value"));
      TSNode k = unparen(field(e, "subscript"));
      if (is(v, "identifier") && is(k, "integer")) {
        auto it = st.non_tensor_elements.find(std::string(t(v)));
        if (it != st.non_tensor_elements.end()) {
          long i = std::strtol(std::string(t(k)).c_str(), nullptr, 10);
          if (i >= 0 && static_cast<std::size_t>(i) < it->second.size() && it->second[i]) return std::nullopt;
        }
      }
      return classify(field(e, "value"), s, st);
    }
    if (is(e, "attribute")) {
      std::string_view a = t(field(e, "attribute"));
      if (a == "shape" || a == "size" || a == "device" || a == "dtype") return std::nullopt;
      return classify(field(e, "object"), s, st);
    }
    // `images * 2 - 1`, `x / 255.0`: arithmetic with a Python number computes on the tensor's
    // device, so the result is where the batch is.
    if (is(e, "binary_operator")) {
      TSNode l = field(e, "left"), r = field(e, "right");
      if (python_number(r, s)) return classify(l, s, st);
      if (python_number(l, s)) return classify(r, s, st);
      return std::nullopt;
    }
    if (is(e, "call")) {
      std::string_view meth = method_name(e, src_);
      TSNode r = receiver(e);
      if (!is_null(r) && (meth == "to" || meth == "cuda" || meth == "type")) {
        auto rs = classify(r, s, st);
        if (!rs && !batch_held_by_local_object(r, s, st)) return std::nullopt;
        note_move(e, s, st);
        return State::Moved;
      }
      if (!is_null(r) && (kSameDeviceMethods.count(meth) || meth == "items" || meth == "values"))
        return classify(r, s, st);
      // Helper function in this file that moves what it is given: only the moves whose
      // receiver holds the parameter bound to a batch argument at this call are batch copies;
      // whether they go to CUDA is decided by note_move, which evaluates the device (a
      // parameter resolves through the helper's call sites).
      TSNode def = m_.resolve_local_function(e, s);
      if (!is_null(def)) {
        auto pa = positional_arguments(e);
        bool moves = false;
        for (std::size_t i = 0; i < pa.size(); ++i) {
          if (!classify(pa[i], s, st)) continue;
          const Binding* param = parameter_at(def, static_cast<int>(i));
          if (!param) continue;
          for (TSNode mv : helper_moves(def, *param)) {
            moves = true;
            note_move(mv, m_.scope_of(mv), st);
          }
        }
        if (moves) return State::Moved;
        return std::nullopt;
      }
      if (!next_batch_loaders(e, s).empty()) return State::Unmoved;
      // tuple(t.to(d) for t in batch), list(...), dict(...); Variable(x) (pre-0.4 code) is x.
      if (TSNode w = variable_wrapped(e, s); !is_null(w)) return classify(w, s, st);
      const auto& q = m_.callee_name(e, s);
      // A legacy typed constructor given one tensor (`x = torch.FloatTensor(x)`) returns an
      // alias of it, same storage and device (torch/csrc/utils/tensor_new.cpp, new_with_tensor:
      // `return other.alias()`; it raises when the dtype differs).
      if (q && host_legacy_constructor(*q) && call_arguments(e).size() == 1) {
        auto pa = positional_arguments(e);
        if (pa.size() == 1) return classify(pa[0], s, st);
      }
      // torch.cat / torch.stack of batch tensors: the result is on their device (the inputs
      // must share one: https://pytorch.org/docs/stable/generated/torch.cat.html). The
      // function forms of the same-device methods (torch.flatten(x), torch.unsqueeze(x, 0)).
      if (q && starts_with(*q, "torch.")) {
        std::string_view fn = std::string_view(*q).substr(6);
        auto pa = positional_arguments(e);
        if (kConcatenating.count(fn) && !pa.empty()) {
          TSNode seq = unparen(pa[0]);
          if (is(seq, "list") || is(seq, "tuple")) {
            std::optional<State> out;
            for (auto el : named_children(seq)) {
              auto es = classify(el, s, st);
              if (es == State::Moved) return State::Moved;
              if (es) out = es;
            }
            return out;
          }
          return classify(seq, s, st);
        }
        if (kSameDeviceMethods.count(fn) && !pa.empty()) return classify(pa[0], s, st);
        // torch.nn.functional ops (pad, interpolate, normalize, one_hot …) compute on their
        // input's device.
        if (starts_with(fn, "nn.functional.") && !pa.empty()) return classify(pa[0], s, st);
      }
      if (q && (*q == "builtins.tuple" || *q == "builtins.list" || *q == "builtins.dict")) {
        auto a = call_arguments(e);
        TSNode argsn = field(e, "arguments");
        if (is(argsn, "generator_expression")) return classify(argsn, s, st);
        if (a.size() == 1) return classify(a[0], s, st);
      }
      return std::nullopt;
    }
    if (is(e, "list_comprehension") || is(e, "dictionary_comprehension") || is(e, "generator_expression") ||
        is(e, "set_comprehension")) {
      bool over_batch = false, moves = false;
      for (auto ch : named_children(e)) {
        if (is(ch, "for_in_clause") && classify(field(ch, "right"), s, st)) over_batch = true;
      }
      if (!over_batch) return std::nullopt;
      visit(e, [&](TSNode n) {
        if (!is(n, "call")) return;
        std::string_view mm = method_name(n, src_);
        if (mm == "to" || mm == "cuda") {
          moves = true;
          note_move(n, s, st);
        }
      });
      return moves ? std::optional<State>(State::Moved) : std::optional<State>(State::Unmoved);
    }
    return std::nullopt;
  }

  // True for `x.to(...)` / `x.cuda()` / `x.type(...)` whose result is thrown away while `x`
  // holds batch data: https://pytorch.org/docs/stable/generated/torch.Tensor.to.html — "returns
  // a Tensor": the receiver is not modified.
  bool discarded_tensor_move(TSNode e, const Scope* s, LoopState& st) {
    e = unparen(e);
    if (!is(e, "call")) return false;
    std::string_view meth = method_name(e, src_);
    if (meth != "to" && meth != "cuda" && meth != "type") return false;
    TSNode r = receiver(e);
    return !is_null(r) && classify(r, s, st).has_value();
  }

  // x.type(torch.cuda.FloatTensor), or through a name the file binds to one:
  // `Tensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor` (either branch may run).
  bool names_cuda_tensor_type(TSNode e, const Scope* s) const {
    std::vector<Origin> cands{{unparen(e), s}};
    for (const auto& o : m_.origins(e, s)) cands.push_back(o);
    for (std::size_t i = 0; i < cands.size() && i < 32; ++i) {
      TSNode n = unparen(cands[i].node);
      if (is(n, "conditional_expression")) {
        // `a if cond else b`: the values are the first and third named children.
        auto ch = named_children(n);
        if (ch.size() == 3) {
          cands.push_back({ch[0], cands[i].scope});
          cands.push_back({ch[2], cands[i].scope});
        }
        continue;
      }
      if (cuda_tensor_type(m_.qualified_name(n, cands[i].scope))) return true;
    }
    return false;
  }

  // `data.to(device)` as a statement of its own. The copy still happens (DL002's evidence that
  // the loader's batches go to the GPU, when the loop also calls a model on CUDA: a file whose
  // only CUDA use is a dropped copy does not train there), but Tensor.to returns it and leaves `data` where it was
  // (unlike Module.to), so `data` stays unmoved (DEV002). A whole batch (`for batch in loader:
  // batch.to(device)`) may be an object whose .to() works in place (Hugging Face BatchEncoding,
  // PyG Batch; a default-collated list or dict has no .to()): it counts as moved then.
  void discarded_move(TSNode call, const Scope* s, LoopState& st) {
    bool before = st.copied_to_cuda;
    note_move(call, s, st);
    if (st.copied_to_cuda && !before) {
      st.copied_to_cuda = false;
      st.discarded_copy_to_cuda = true;
    }
    TSNode r = unparen(receiver(call));
    if (is(r, "identifier") && st.whole_batch.count(std::string(t(r)))) {
      st.names[std::string(t(r))] = State::Moved;
      return;
    }
    st.discarded.insert(std::string(t(r)));
  }

  void note_move(TSNode call, const Scope* s, LoopState& st) {
    std::string_view meth = method_name(call, src_);
    if (meth == "cuda") { st.copied_to_cuda = true; return; }
    auto a = positional_arguments(call);
    TSNode dev = a.empty() ? keyword_arg(call, "device", src_) : a[0];
    if (meth == "type") {
      if (!is_null(dev) && names_cuda_tensor_type(dev, s)) st.copied_to_cuda = true;
      return;
    }
    // A CUDA device value, or the device of something on the accelerator (`model.device`,
    // `next(model.parameters()).device` of a model on CUDA: accelerator_device) — not an
    // Accelerate / Fabric object's device, which may be the CPU (the framework decides).
    if (!is_null(dev) && (values_cuda(m_.evaluate(dev, s)) || (accelerator_device(dev, s) && !framework_device(dev, s))))
      st.copied_to_cuda = true;
  }
  // `accelerator.device`, or a name one origin of which is one (a device the framework may
  // choose on some path is no evidence of CUDA).
  bool framework_device(TSNode dev, const Scope* s) const {
    dev = unparen(dev);
    if (is(dev, "identifier")) {
      auto os = m_.origins(dev, s);
      return !os.empty() && std::any_of(os.begin(), os.end(), [&](const Origin& o) {
        TSNode n = unparen(o.node);
        return is(n, "attribute") && t(field(n, "attribute")) == "device" && framework_object(field(n, "object"), o.scope);
      });
    }
    return is(dev, "attribute") && t(field(dev, "attribute")) == "device" && framework_object(field(dev, "object"), s);
  }

  struct LoopCtx {
    TSNode loop;
    const Scope* scope;
    const ModelInfo* cuda_model = nullptr;  // a model on CUDA called in this loop
    std::set<const ModelInfo*> models_called;  // models on CUDA called in this loop
    /// Straight-line code (a batch drawn outside any loop): a model counts as on CUDA at a
    /// call only when the last placement before the call in the file is one on CUDA.
    bool straight_line = false;
  };

  void assign_targets(TSNode left, TSNode right, const Scope* s, LoopState& st, bool conditional) {
    left = unparen(left);
    right = unparen(right);
    {
      // `out = model(x)`, `logits, aux = model(x)`: the model's outputs, on its device.
      bool gpu = cuda_model_output(right, s, st);
      std::vector<TSNode> ids;
      if (is(left, "identifier")) ids.push_back(left);
      else collect_identifiers(left, ids);
      for (auto id : ids) {
        st.whole_batch.erase(std::string(t(id)));
        st.discarded.erase(std::string(t(id)));
        if (gpu) st.gpu_outputs.insert(std::string(t(id)));
        else if (!conditional) st.gpu_outputs.erase(std::string(t(id)));
      }
    }
    if (is(left, "subscript")) {
      // `batch["x"] = batch["x"].to(dev)`: that entry's state from now on;
      // `batch[k] = v.to(dev)` (k not a literal): any entry may have changed.
      TSNode cont = unparen(field(left, "value"));
      if (!is(cont, "identifier")) return;
      std::string name(t(cont));
      auto c = classify(right, s, st);
      bool unmoved = c && *c == State::Unmoved;
      std::string key = element_key(left);
      if (!key.empty()) {
        if (unmoved || (c && !conditional)) st.elements[key] = c;
        else st.elements[key] = std::nullopt;
      } else if (!unmoved) {
        st.names.erase(name);
        forget_elements(st, name);
      }
      return;
    }
    if (is(left, "identifier")) {
      std::string name(t(left));
      forget_elements(st, name);
      // A whole batch stays one under another name or when drawn with next().
      bool whole = (is(right, "identifier") && st.whole_batch.count(std::string(t(right)))) ||
                   (is(right, "call") && !next_batch_loaders(right, s).empty());
      if (whole) st.whole_batch.insert(name);
      auto c = classify(right, s, st);
      if (c && !(conditional && *c == State::Moved)) {
        st.names[name] = *c;
        st.ever.insert(name);
      } else {
        st.names.erase(name);
      }
      return;
    }
    if (is(left, "pattern_list") || is(left, "tuple_pattern") || is(left, "list_pattern") ||
        is(left, "tuple") || is(left, "list")) {
      auto elems = named_children(left);
      if ((is(right, "expression_list") || is(right, "tuple") || is(right, "list")) &&
          named_children(right).size() == elems.size()) {
        auto vals = named_children(right);
        // Evaluate all right-hand sides before binding (Python semantics).
        std::vector<std::optional<State>> cs;
        for (auto v : vals) cs.push_back(classify(v, s, st));
        for (std::size_t i = 0; i < elems.size(); ++i) {
          std::vector<TSNode> ids;
          collect_identifiers(elems[i], ids);
          for (auto id : ids) {
            std::string name(t(id));
            if (cs[i] && !(conditional && *cs[i] == State::Moved)) { st.names[name] = *cs[i]; st.ever.insert(name); }
            else st.names.erase(name);
          }
        }
        return;
      }
      auto c = classify(right, s, st);
      std::vector<TSNode> ids;
      collect_identifiers(left, ids);
      // `j, data = next(enumerate(test_loader, 0))`: `j` is the count, `data` the batch.
      if (next_of_enumerate(right, s) && elems.size() == 2) {
        ids.clear();
        collect_identifiers(elems[1], ids);
        std::vector<TSNode> count;
        collect_identifiers(elems[0], count);
        for (auto id : count) st.names.erase(std::string(t(id)));
      }
      for (auto id : ids) {
        std::string name(t(id));
        if (c && !(conditional && *c == State::Moved)) { st.names[name] = *c; st.ever.insert(name); }
        else st.names.erase(name);
      }
    }
  }

  // True when `e` is the output of a model on CUDA that stays there: `model(x)`, `out`,
  // `out.logits`, `out[0]`, `model(x).float()` — not `model(x).cpu()` or `.item()`.
  bool cuda_model_output(TSNode e, const Scope* s, const LoopState& st) const {
    for (int i = 0; i < 32; ++i) {
      e = unparen(e);
      if (is(e, "identifier")) return st.gpu_outputs.count(std::string(t(e))) > 0;
      if (is(e, "attribute")) { e = field(e, "object"); continue; }
      if (is(e, "subscript")) { e = field(e, "value"); continue; }
      if (!is(e, "call")) return false;
      TSNode r = receiver(e);
      if (!is_null(r) && method_name(e, src_) == "forward")  // model.forward(x)
        return cuda_model_for_callee(field(e, "function"), s) != nullptr;
      if (!is_null(r)) {
        std::string_view meth = method_name(e, src_);
        if (!kSameDeviceMethods.count(meth)) return false;  // .cpu(), .item(), .numpy(), .to(x) ...
        e = r;
        continue;
      }
      return cuda_model_for_callee(field(e, "function"), s) != nullptr;
    }
    return false;
  }

  // Reports unmoved batch tensors passed to the CUDA model or a loss.
  void check_uses(TSNode stmt, const Scope* s, LoopState& st, LoopCtx& ctx) {
    std::vector<TSNode> calls;
    visit(stmt, [&](TSNode n) { if (is(n, "call")) calls.push_back(n); });
    // Inner calls first: in `criterion(model(x), y)` the model call tells which device the
    // loss's other arguments must be on.
    std::reverse(calls.begin(), calls.end());
    // Batch copies written inline (`model(x.cuda())`, `criterion(out, y.to(device))`): the
    // copy happens wherever the call sits, except as a statement of its own whose result is
    // thrown away (discarded_tensor_move).
    for (TSNode c : calls) {
      std::string_view meth = method_name(c, src_);
      if (meth != "to" && meth != "cuda" && meth != "type") continue;
      if (is(m_.parent(c), "expression_statement")) continue;
      TSNode r = receiver(c);
      if (!is_null(r) && classify(r, s, st)) note_move(c, s, st);
    }
    // A helper of this file given batch data (`yield to_device(batch, self.device)`): its moves
    // are batch copies (classify notes them), unless its result is thrown away.
    for (TSNode c : calls) {
      if (is(m_.parent(c), "expression_statement")) continue;
      if (!is_null(m_.resolve_local_function(c, s))) classify(c, s, st);
    }
    for (TSNode c : calls) {
      TSNode fn = field(c, "function");
      const ModelInfo* mi = cuda_model_for_callee(fn, s);
      if (mi && ctx.straight_line && !mi->on_cuda_before(start(c))) mi = nullptr;
      if (mi && fresh_factory_instance(fn, s, *mi)) mi = nullptr;
      bool model_call = mi != nullptr;
      bool loss_call = !model_call && is_criterion(fn, s);
      if (model_call && !ctx.cuda_model) ctx.cuda_model = mi;
      if (model_call) ctx.models_called.insert(mi);
      if (!model_call && !loss_call) continue;
      if (loss_call && !ctx.cuda_model) continue;
      if (loss_call) {
        // The loss compares the model's output with the batch: only when the output is still
        // on the GPU does a CPU batch tensor make PyTorch raise.
        bool gpu_arg = false;
        for (auto a : call_arguments(c)) {
          TSNode v = is(a, "keyword_argument") ? field(a, "value") : a;
          gpu_arg |= cuda_model_output(v, s, st);
        }
        if (!gpu_arg) continue;
      }
      const ModelInfo* dev_model = model_call ? mi : ctx.cuda_model;
      if (model_call && mi->data_parallel) continue;
      for (auto a : call_arguments(c)) {
        TSNode v = a;
        if (is(a, "keyword_argument")) v = field(a, "value");
        else if (is(a, "list_splat") || is(a, "dictionary_splat")) v = named(a, 0);
        v = unparen(v);
        // A batch tensor, possibly through same-device casts (`model(batch["X"].float())`).
        TSNode base = v;
        for (int i = 0; i < 16 && is(base, "call") && kSameDeviceMethods.count(method_name(base, src_)) &&
                        !is_null(receiver(base));
             ++i)
          base = unparen(receiver(base));
        if (!(is(base, "identifier") || is(base, "subscript") || is(base, "attribute"))) continue;
        // A loss helper of this file that moves what it is given (`def custom_loss(out,
        // labels): labels["bbox"].to(device)`): the batch reaches the loss on the device.
        if (loss_call && helper_moves_argument(c, a, s)) continue;
        auto cst = classify(v, s, st);
        if (!cst || *cst != State::Unmoved) continue;
        TSNode root = root_identifier(v);
        std::string var = is_null(root) ? std::string(t(v)) : std::string(t(root));
        std::string key = std::string(t(v));
        if (st.reported.count(key) || st.reported.count(var)) continue;
        st.reported.insert(key);
        UnmovedBatchUse u;
        u.argument = {start(v), end(v)};
        u.variable = key;
        u.consumer = model_call ? "model" : "loss";
        u.move_discarded = st.discarded.count(key) > 0 || st.discarded.count(var) > 0;
        std::string moved;
        if (dev_model->cuda_method) moved = key + ".cuda()";
        else if (!dev_model->device_text.empty()) {
          // The device expression's root name must be visible here: bound in a scope around
          // the use, or a global the module's star imports give (`torch` through
          // `from utils import *`), which every scope of the module sees alike.
          bool visible = true;
          std::string root_name = dev_model->device_text.substr(0, dev_model->device_text.find_first_of(".(["));
          if (!root_name.empty() && std::all_of(root_name.begin(), root_name.end(), [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; })) {
            if (!m_.lookup(root_name, s)) {
              auto q = m_.unbound_name(root_name);
              if (!q || starts_with(*q, "builtins.")) visible = false;
            }
          }
          if (visible) moved = key + ".to(" + dev_model->device_text + ")";
        }
        if (!moved.empty()) u.fix.push_back({start(v), end(v), moved});
        facts_.unmoved_batches.push_back(std::move(u));
      }
    }
  }

  // An inner loop over parts of a batch (`for word_ids, labels in zip(word_ids_list,
  // labels_list):` where the lists come from the batch, or `for x in batch_list:`): its targets
  // are batch tensors still on the CPU when what they iterate is.
  void iterate_batch_elements(TSNode left, TSNode right, const Scope* s, LoopState& st) {
    left = unparen(left);
    right = unparen(right);
    auto unmoved = [&](TSNode e) {
      e = unparen(e);
      if (!(is(e, "identifier") || is(e, "subscript") || is(e, "attribute"))) return false;
      auto c = classify(e, s, st);
      return c && *c == State::Unmoved;
    };
    auto mark = [&](TSNode target) {
      target = unparen(target);
      if (!is(target, "identifier")) return;
      st.names[std::string(t(target))] = State::Unmoved;
      st.ever.insert(std::string(t(target)));
    };
    if (is(right, "call")) {
      const auto& q = m_.callee_name(right, s);
      auto a = positional_arguments(right);
      bool tuple_target = is(left, "pattern_list") || is(left, "tuple_pattern");
      auto targets = tuple_target ? named_children(left) : std::vector<TSNode>{};
      if (q && *q == "builtins.zip" && targets.size() == a.size() && call_arguments(right).size() == a.size()) {
        for (std::size_t i = 0; i < a.size(); ++i)
          if (unmoved(a[i])) mark(targets[i]);
        return;
      }
      if (q && *q == "builtins.enumerate" && a.size() == 1 && targets.size() == 2 && unmoved(a[0])) mark(targets[1]);
      return;
    }
    if (unmoved(right)) mark(left);
  }

  void walk_block(TSNode block, const Scope* s, LoopState& st, LoopCtx& ctx, bool conditional) {
    for (auto stmt : named_children(block))
      if (!dead(stmt)) walk_statement(stmt, s, st, ctx, conditional);
  }

  void walk_statement(TSNode stmt, const Scope* s, LoopState& st, LoopCtx& ctx, bool conditional) {
    std::string_view ty = type(stmt);
    if (ty == "expression_statement") {
      check_uses(stmt, s, st, ctx);
      for (auto ch : named_children(stmt)) {
        if (is(ch, "assignment")) {
          TSNode right = field(ch, "right");
          while (is(right, "assignment")) right = field(right, "right");
          assign_targets(field(ch, "left"), right, s, st, conditional);
        } else if (is(ch, "augmented_assignment")) {
          TSNode left = unparen(field(ch, "left"));
          if (is(left, "identifier")) st.names.erase(std::string(t(left)));
        } else if (discarded_tensor_move(ch, s, st)) {
          discarded_move(ch, s, st);
        } else {
          classify(ch, s, st);  // records inline moves such as `x.to(device)` used as a value
        }
      }
      return;
    }
    // `if self.use_gpu: data = x.cuda()` / `else: data = x`: on the runs that train on CUDA
    // (truth_on_gpu true) only the consequence runs; the else branch is the CPU runs'.
    if (ty == "if_statement") {
      TSNode condition = field(stmt, "condition");
      TSNode else_body{};
      bool elif = false;
      for (auto ch : named_children(stmt)) {
        if (is(ch, "elif_clause")) elif = true;
        if (is(ch, "else_clause")) else_body = field(ch, "body");
      }
      // Only a condition true there: a false one may be an argparse default (`--gpu` with
      // `default=False`) that the runs on the GPU override.
      bool assumes = false;
      auto truth = elif || is_null(else_body) ? std::nullopt : truth_on_gpu(condition, s, &assumes);
      if (truth && *truth) {
        check_uses(condition, s, st, ctx);
        classify(condition, s, st);
        TSNode taken = field(stmt, "consequence");
        if (is(taken, "block")) walk_block(taken, s, st, ctx, conditional);
        return;
      }
    }
    if (ty == "if_statement" || ty == "try_statement" || ty == "while_statement" || ty == "for_statement" ||
        ty == "with_statement" || ty == "match_statement") {
      bool cond = conditional || ty != "with_statement";
      // Conditions / headers first.
      for (auto ch : named_children(stmt)) {
        if (is(ch, "block")) walk_block(ch, s, st, ctx, cond);
        else if (is(ch, "elif_clause") || is(ch, "else_clause") || is(ch, "except_clause") ||
                 is(ch, "finally_clause") || is(ch, "case_clause")) {
          for (auto g : named_children(ch)) {
            if (is(g, "block")) walk_block(g, s, st, ctx, true);
            else check_uses(g, s, st, ctx);
          }
        } else if (is(ch, "with_clause")) {
          check_uses(ch, s, st, ctx);
        } else if (ty == "for_statement" && same(ch, field(stmt, "left"))) {
          std::vector<TSNode> ids;
          collect_identifiers(ch, ids);
          for (auto id : ids) st.names.erase(std::string(t(id)));
          iterate_batch_elements(ch, field(stmt, "right"), s, st);
        } else {
          check_uses(ch, s, st, ctx);
          classify(ch, s, st);
        }
      }
      return;
    }
    if (ty == "return_statement" || ty == "delete_statement" || ty == "assert_statement" || ty == "print_statement") {
      check_uses(stmt, s, st, ctx);
      return;
    }
  }

  // `for image, target in metric_logger.log_every(data_loader, 100, header):` with `image =
  // image.to(device)` in the body: a loop over a call of code gpulint cannot read (a logging or
  // progress wrapper of the project) given the loader as its first argument, that moves what it
  // iterates to the accelerator as batches are moved (moves_its_elements): the loader's batches.
  // Not a function of this file (followed as written) and not torch's or Python's own.
  std::vector<int> wrapped_loader_moved(TSNode loop) {
    TSNode it = unparen(field(loop, "right"));
    const Scope* s = m_.scope_of(loop);
    if (!is(it, "call") || !is_null(m_.resolve_local_function(it, s))) return {};
    const auto& q = m_.callee_name(it, s);
    if (q && (starts_with(*q, "torch.") || starts_with(*q, "builtins.") || starts_with(*q, "local."))) return {};
    auto pa = positional_arguments(it);
    if (pa.empty() || !moves_its_elements(loop)) return {};
    return loader_indices_for(pa[0], s);
  }

  /// The loops whose header iterates a loader (directly, through enumerate / tqdm / zip, or a
  /// wrapper: wrapped_loader_moved), so that their target is the batch; filled by loader_loops.
  std::unordered_set<const void*> header_loader_loops_;
  // The loops that iterate a loader, in file order (computed once).
  const std::vector<std::pair<TSNode, std::vector<int>>>& loader_loops() {
    if (!loader_loops_) {
      loader_loops_.emplace();
      // A step loop that draws each batch with `batch = next(train_iter)`: the nearest
      // enclosing loop of the next() call iterates the loader. One pass over the calls.
      std::unordered_map<const void*, std::vector<int>> drawn;  // loop id -> loaders
      for (TSNode c : m_.calls()) {
        auto li = next_batch_loaders(c, m_.scope_of(c));
        if (li.empty()) continue;
        TSNode loop = innermost_loop(c);
        if (is_null(loop)) continue;
        auto& v = drawn[loop.id];
        for (int i : li)
          if (std::find(v.begin(), v.end(), i) == v.end()) v.push_back(i);
      }
      for (TSNode loop : m_.loops()) {
        if (dead(loop)) continue;
        std::vector<int> indices;
        if (is(loop, "for_statement")) indices = loader_indices_for(field(loop, "right"), m_.scope_of(loop));
        if (is(loop, "for_statement") && indices.empty()) indices = wrapped_loader_moved(loop);
        if (!indices.empty()) header_loader_loops_.insert(loop.id);  // its target is the batch
        if (auto it = drawn.find(loop.id); it != drawn.end()) {
          if (indices.empty()) {
            indices = it->second;
          } else {
            std::vector<int> beside;
            for (int li : it->second)
              if (std::find(indices.begin(), indices.end(), li) == indices.end()) beside.push_back(li);
            if (!beside.empty()) drawn_beside_header_.emplace_back(loop, std::move(beside));
          }
        }
        if (!indices.empty()) loader_loops_->emplace_back(loop, std::move(indices));
      }
    }
    return *loader_loops_;
  }

  // Follows the batches of one loader loop through its body: appends the unmoved batch uses
  // (DEV002) to facts_.unmoved_batches and returns what the walk saw.
  struct LoopWalk {
    bool copied_to_cuda = false;
    bool skipped = false;  // placement is managed or the data is already on the GPU
    std::set<const ModelInfo*> models_called;
  };
  // With `drawn_only`, the header's batches are not followed (only next() draws are), and the
  // walk reports no DEV002 (the walk of the header's loaders already saw the same statements):
  // what it tells is whether the drawn batches are copied to CUDA.
  LoopWalk walk_loader_loop(TSNode loop, const std::vector<int>& indices, bool drawn_only = false) {
    const Scope* s = m_.scope_of(loop);
    TSNode right = field(loop, "right");
    bool on_cuda = false, managed = false;
    for (int li : indices) {
      on_cuda |= facts_.loaders[li].dataset_on_cuda;
      managed |= facts_.loaders[li].placement_managed;
    }
    LoopState st;
    TSNode left = unparen(field(loop, "left"));
    TSNode batch_pattern = left;
    if (enumerate_wrapped(right, s) && (is(left, "pattern_list") || is(left, "tuple_pattern"))) {
      auto el = named_children(left);
      if (el.size() == 2) batch_pattern = el[1];
    }
    std::vector<TSNode> ids;
    std::vector<bool> non_tensor;
    loader_loops();
    if (!drawn_only && header_loader_loops_.count(loop.id)) {
      // `inputs, labels` where every loader's collate function of this file returns
      // `X, torch.LongTensor(y)` with `X, y = zip(*batch)`: `inputs` is a tuple of raw samples,
      // no tensor to move.
      non_tensor = non_tensor_batch_elements(indices);
      auto elems = (is(batch_pattern, "pattern_list") || is(batch_pattern, "tuple_pattern"))
                       ? named_children(batch_pattern) : std::vector<TSNode>{};
      if (!non_tensor.empty() && elems.size() == non_tensor.size()) {
        for (std::size_t i = 0; i < elems.size(); ++i)
          if (!non_tensor[i]) collect_identifiers(elems[i], ids);
      } else {
        collect_identifiers(batch_pattern, ids);
      }
    }
    for (auto id : ids) {
      st.names[std::string(t(id))] = State::Unmoved;
      st.ever.insert(std::string(t(id)));
    }
    if (ids.size() == 1 && is(batch_pattern, "identifier")) {
      st.whole_batch.insert(std::string(t(ids[0])));
      if (std::find(non_tensor.begin(), non_tensor.end(), true) != non_tensor.end())
        st.non_tensor_elements[std::string(t(ids[0]))] = std::move(non_tensor);
    }
    LoopCtx ctx{loop, s, nullptr, {}};
    LoopWalk w;
    w.skipped = managed_ || on_cuda || managed;
    std::size_t before = facts_.unmoved_batches.size();
    walk_block(field(loop, "body"), s, st, ctx, false);
    if (w.skipped || drawn_only) facts_.unmoved_batches.resize(before);
    w.copied_to_cuda = st.copied_to_cuda || (st.discarded_copy_to_cuda && !ctx.models_called.empty());
    w.models_called = std::move(ctx.models_called);
    return w;
  }

  // Per element of the batches the loaders `indices` yield: true when the element is provably
  // no tensor. Read from each loader's collate function when the file defines it and every
  // return is a tuple or list of the same length; an element is no tensor when every origin of
  // it is a Python container or string (`zip(...)`, `list(...)`, a literal, a comprehension).
  // Empty when any loader has no such collate function or the loaders disagree.
  std::vector<bool> non_tensor_batch_elements(const std::vector<int>& indices) const {
    std::optional<std::vector<bool>> out;
    for (int li : indices) {
      if (li < 0 || static_cast<std::size_t>(li) >= loader_calls_.size()) return {};
      TSNode call = loader_calls_[static_cast<std::size_t>(li)];
      if (!is(call, "call") || facts_.loaders[static_cast<std::size_t>(li)].kind != LoaderSite::Kind::TorchDataLoader)
        return {};
      TSNode collate = m_.argument_node(call, kDataLoader, "collate_fn");
      if (is_null(collate) || !is(unparen(collate), "identifier")) return {};
      TSNode def{};
      if (const auto* bs = m_.lookup(t(unparen(collate)), m_.scope_of(call)))
        for (const auto& b : *bs)
          if (b.kind == Binding::Kind::Def && bs->size() == 1) def = b.function;
      if (!is(def, "function_definition")) return {};
      auto returns = m_.returned_values(def);
      if (returns.empty()) return {};
      const Scope* fs = m_.function_scope(def);
      std::optional<std::vector<bool>> mine;
      for (TSNode r : returns) {
        r = unparen(r);
        if (!(is(r, "expression_list") || is(r, "tuple") || is(r, "list"))) return {};
        auto el = named_children(r);
        std::vector<bool> v(el.size(), false);
        for (std::size_t i = 0; i < el.size(); ++i) v[i] = python_container(el[i], fs ? fs : m_.scope_of(r));
        if (mine && mine->size() != v.size()) return {};
        if (mine) for (std::size_t i = 0; i < v.size(); ++i) v[i] = v[i] && (*mine)[i];
        mine = std::move(v);
      }
      if (out && out->size() != mine->size()) return {};
      if (out) for (std::size_t i = 0; i < mine->size(); ++i) (*mine)[i] = (*mine)[i] && (*out)[i];
      out = std::move(mine);
    }
    return out.value_or(std::vector<bool>{});
  }
  bool python_container(TSNode e, const Scope* s) const {
    auto os = m_.origins(e, s);
    if (os.empty()) return false;
    for (const auto& o : os) {
      TSNode n = unparen(o.node);
      if (is(n, "list") || is(n, "tuple") || is(n, "dictionary") || is(n, "list_comprehension") ||
          is(n, "dictionary_comprehension") || is(n, "string") || is(n, "set"))
        continue;
      if (!is(n, "call")) return false;
      const auto& q = m_.callee_name(n, o.scope);
      if (!q || !(*q == "builtins.zip" || *q == "builtins.list" || *q == "builtins.tuple" ||
                  *q == "builtins.dict" || *q == "builtins.str" || *q == "builtins.sorted"))
        return false;
    }
    return true;
  }

  void analyse_loops() {
    for (const auto& [loop, indices] : loader_loops()) {
      bool per_epoch = iterated_per_epoch(loop);
      for (int li : indices)
        if (per_epoch) facts_.loaders[li].iterated_in_outer_loop = true;
      LoopWalk w = walk_loader_loop(loop, indices);
      if (w.copied_to_cuda)
        for (int li : indices) facts_.loaders[li].batches_copied_to_cuda = true;
    }
    // `ood_data = next(ood_iterator)[0].cuda()` in `for data, labels in train_loader:`.
    for (const auto& [loop, beside] : drawn_beside_header_) {
      LoopWalk w = walk_loader_loop(loop, beside, /*drawn_only=*/true);
      if (w.copied_to_cuda)
        for (int li : beside) facts_.loaders[li].batches_copied_to_cuda = true;
    }
    analyse_straight_line_draws();
    analyse_kept_tensors();
  }

  // `images, labels = next(iter(test_loader))` outside any loop (a tutorial showing the
  // predictions for one batch): the statements after the draw in its block are followed as a
  // loader loop's body is, for DEV002 only (one batch is no reason to pin a loader's memory).
  void analyse_straight_line_draws() {
    if (managed_) return;
    std::set<std::pair<uint32_t, uint32_t>> seen;
    for (const auto& u : facts_.unmoved_batches) seen.insert({u.argument.start, u.argument.end});
    for (TSNode c : m_.calls()) {
      if (!is_null(innermost_loop(c)) || dead(c)) continue;
      const Scope* s = m_.scope_of(c);
      auto li = next_batch_loaders(c, s);
      if (li.empty()) continue;
      bool skip = false;
      for (int i : li) skip |= facts_.loaders[i].dataset_on_cuda || facts_.loaders[i].placement_managed;
      if (skip) continue;
      TSNode stmt = c;
      while (!is_null(m_.parent(stmt)) && !is(m_.parent(stmt), "block") && !is(m_.parent(stmt), "module"))
        stmt = m_.parent(stmt);
      TSNode block = m_.parent(stmt);
      if (is_null(block)) continue;
      LoopState st;
      LoopCtx ctx{stmt, s, nullptr, {}, /*straight_line=*/true};
      std::size_t before = facts_.unmoved_batches.size();
      bool after = false;
      for (TSNode ch : named_children(block)) {
        if (same(ch, stmt)) after = true;
        if (after && !dead(ch)) walk_statement(ch, s, st, ctx, false);
      }
      // The same use after two draws of the same names is one finding.
      std::size_t keep = before;
      for (std::size_t i = before; i < facts_.unmoved_batches.size(); ++i) {
        const auto& u = facts_.unmoved_batches[i];
        if (!seen.insert({u.argument.start, u.argument.end}).second) continue;
        if (keep != i) facts_.unmoved_batches[keep] = std::move(facts_.unmoved_batches[i]);
        ++keep;
      }
      facts_.unmoved_batches.resize(keep);
    }
  }

  // ---- DEV001's fix -------------------------------------------------------------------
  // The one name, visible where the model is created and bound before it, whose value can be
  // a CUDA device: `device = torch.device("cuda" if torch.cuda.is_available() else "cpu")`.
  // Empty when there is none or more than one (the fix would have to guess).
  std::string device_name_for(TSNode creation) const {
    const Scope* s = m_.scope_of(creation);
    for (const Scope* sc = s; sc; sc = sc->parent) {
      if (sc->kind == Scope::Kind::Class) continue;
      std::vector<std::string> found;
      for (const auto& [name, bindings] : sc->names) {
        if (bindings.empty()) continue;
        bool cuda = false, usable = true;
        for (const Binding& b : bindings) {
          if (b.kind != Binding::Kind::Assign || is_null(b.value) || b.unpack_index >= 0 ||
              start(b.stmt) >= start(creation)) {
            usable = false;
            break;
          }
          TSNode v = unparen(b.value);
          bool candidate = is(v, "conditional_expression") || is(v, "string");
          if (is(v, "call")) {
            const auto& q = m_.callee_name(v, sc);
            candidate = q && *q == "torch.device";
          }
          if (candidate && values_cuda(m_.evaluate(b.target, sc))) cuda = true;
        }
        if (usable && cuda && m_.lookup(name, s)) found.push_back(name);
      }
      if (found.size() == 1) return found.front();
      if (found.size() > 1) return {};
    }
    return {};
  }

  // DEV001's unsafe fix: `Net()` -> `Net().to(device)` and every loader batch that then reaches
  // the model or the loss unmoved -> `x.to(device)` (PyTorch raises "Expected all tensors to be
  // on the same device" if only the model moves). Built only when every call of the model is
  // in a loader loop whose batches gpulint followed, and every unmoved use can be edited.
  void build_dev001_fixes() {
    if (managed_) return;
    for (const auto& mi : models_)
      if (mi.on_cuda) return;  // a file mixing placed and unplaced models: leave it to the author
    // Which model each call calls, resolved once for every model below.
    std::vector<std::pair<TSNode, const ModelInfo*>> model_calls;
    bool candidates = false;
    for (const auto& mi : models_) candidates |= !mi.placed && !mi.evaluated_only && is(mi.origin, "call");
    if (!candidates) return;
    for (TSNode c : m_.calls())
      if (const ModelInfo* called = model_for_callee(field(c, "function"), m_.scope_of(c)))
        model_calls.emplace_back(c, called);
    for (std::size_t i = 0; i < models_.size(); ++i) {
      ModelInfo& mi = models_[i];
      if (mi.placed || mi.evaluated_only || !is(mi.origin, "call")) continue;
      std::string device = device_name_for(mi.origin);
      if (device.empty()) continue;
      // Every call of the model must lie in a loader loop.
      bool outside = false, called = false;
      for (const auto& [c, called_model] : model_calls) {
        if (called_model != &mi) continue;
        called = true;
        bool inside = false;
        for (const auto& ll : loader_loops()) inside |= contains(ll.first, c);
        outside |= !inside;
      }
      if (!called || outside) continue;
      mi.on_cuda = true;
      mi.device_text = device;
      std::size_t before = facts_.unmoved_batches.size();
      bool complete = true, seen = false;
      for (const auto& [loop, indices] : loader_loops()) {
        LoopWalk w = walk_loader_loop(loop, indices);
        seen |= w.models_called.count(&mi) > 0;
        // Batches that may already be on the device (a TensorDataset of torch.load()ed
        // tensors) were not followed: which of them need moving is unknown.
        if (w.skipped && w.models_called.count(&mi)) complete = false;
      }
      std::vector<Edit> edits{{end(mi.origin), end(mi.origin), ".to(" + device + ")"}};
      for (std::size_t u = before; u < facts_.unmoved_batches.size(); ++u) {
        if (facts_.unmoved_batches[u].fix.empty()) complete = false;
        for (const Edit& e : facts_.unmoved_batches[u].fix) edits.push_back(e);
      }
      facts_.unmoved_batches.resize(before);
      mi.on_cuda = false;
      mi.device_text.clear();
      if (!complete || !seen) continue;
      facts_.models[i].fix = std::move(edits);
      facts_.models[i].device = device;
    }
  }

  // ---- MEM001 -------------------------------------------------------------------------
  bool under_no_grad(TSNode n) const { return !is_null(no_grad_region(n)); }

  // The statement that turns autograd off around `n`: a `with` whose own items do
  // (`torch.no_grad()`, `torch.inference_mode()`, `torch.set_grad_enabled(False)`), or a
  // function decorated with no_grad/inference_mode; a null node when none does. Items that
  // depend on a condition (`torch.enable_grad() if train else torch.no_grad()`,
  // `torch.set_grad_enabled(phase == "train")`) count where `n` sits in a branch of an `if` on
  // the same condition inside the `with` (the `else` of `if train:`), the condition's names not
  // re-bound in the `with` (torch/autograd/grad_mode.py: set_grad_enabled(mode) enables grad
  // iff mode is true).
  TSNode no_grad_region(TSNode n) const {
    for (TSNode p = m_.parent(n); !is_null(p); p = m_.parent(p)) {
      if (is(p, "with_statement")) {
        bool found = false;
        // Only this statement's own items: a `with torch.no_grad():` nested in its body does not
        // cover the rest of the body (`with console.status(...):` around a whole script).
        TSNode clause{};
        for (auto ch : named_children(p))
          if (is(ch, "with_clause")) clause = ch;
        if (!is_null(clause)) visit(clause, [&](TSNode w) {
          if (found || !is(w, "with_item")) return;
          TSNode v = field(w, "value");
          if (is(v, "as_pattern")) v = named(v, 0);
          v = unparen(v);
          if (is(v, "conditional_expression")) {
            auto parts = conditional_parts(v);  // A if c else B
            if (!parts) return;
            auto a = grad_mode_of(parts->value), b = grad_mode_of(parts->otherwise);
            if (a == GradMode::Off && b == GradMode::Off) { found = true; return; }
            auto truth = branch_value(n, parts->condition, p);
            if (truth && ((*truth && a == GradMode::Off) || (!*truth && b == GradMode::Off))) found = true;
            return;
          }
          if (grad_mode_of(v) == GradMode::Off) { found = true; return; }
          if (is(v, "call")) {
            const auto& q = m_.callee_name(v, m_.scope_of(v));
            auto args = positional_arguments(v);
            if (q && *q == "torch.set_grad_enabled" && args.size() == 1) {
              auto truth = branch_value(n, args[0], p);
              if (truth && !*truth) found = true;
            }
          }
        });
        if (found) return p;
      }
      if (is(p, "function_definition")) {
        TSNode dp = m_.parent(p);
        if (is(dp, "decorated_definition")) {
          for (auto d : named_children(dp)) {
            if (!is(d, "decorator")) continue;
            auto ch = named_children(d);
            if (ch.empty()) continue;
            TSNode e = is(ch[0], "call") ? field(ch[0], "function") : ch[0];
            const auto& q = m_.qualified_name(e, m_.scope_of(dp));
            if (q && (*q == "torch.no_grad" || *q == "torch.inference_mode")) return p;
          }
        }
        return TSNode{};
      }
    }
    return TSNode{};
  }

  enum class GradMode { Off, On, Unknown };
  // What a context-manager expression does to autograd: torch.no_grad() / inference_mode() /
  // set_grad_enabled(False) turn it off, enable_grad() / set_grad_enabled(True) on.
  GradMode grad_mode_of(TSNode v) const {
    v = unparen(v);
    if (!is(v, "call")) return GradMode::Unknown;
    const auto& q = m_.callee_name(v, m_.scope_of(v));
    if (!q) return GradMode::Unknown;
    if (*q == "torch.no_grad" || *q == "torch.inference_mode") return GradMode::Off;
    if (*q == "torch.enable_grad") return GradMode::On;
    if (*q == "torch.set_grad_enabled") {
      auto a = positional_arguments(v);
      if (a.size() == 1 && is(unparen(a[0]), "false")) return GradMode::Off;
      if (a.size() == 1 && is(unparen(a[0]), "true")) return GradMode::On;
    }
    return GradMode::Unknown;
  }

  // Structural equality of two expressions of one scope (same node types and shape, same
  // identifier names and literal spellings at the leaves).
  bool same_expression(TSNode a, TSNode b) const {
    a = unparen(a);
    b = unparen(b);
    if (type(a) != type(b)) return false;
    auto ca = named_children(a), cb = named_children(b);
    if (ca.size() != cb.size()) return false;
    if (ca.empty()) return t(a) == t(b);
    if (is(a, "comparison_operator") || is(a, "boolean_operator") || is(a, "binary_operator")) {
      // The operators are anonymous children: compare the whole spelling of those.
      for (uint32_t i = 0; i < ts_node_child_count(a) && i < ts_node_child_count(b); ++i) {
        TSNode x = ts_node_child(a, i), y = ts_node_child(b, i);
        if (!ts_node_is_named(x) && t(x) != t(y)) return false;
      }
      if (ts_node_child_count(a) != ts_node_child_count(b)) return false;
    }
    for (std::size_t i = 0; i < ca.size(); ++i)
      if (!same_expression(ca[i], cb[i])) return false;
    return true;
  }

  // The truth of `cond` wherever `n` runs inside `stop`: true when `n` lies in the body of an
  // `if cond:` (or the else of `if not cond:`) between them, false in its else; nullopt when no
  // such `if` encloses `n`, or when a name `cond` reads (only names and literals allowed) is
  // bound inside `stop`.
  std::optional<bool> branch_value(TSNode n, TSNode cond, TSNode stop) const {
    cond = unparen(cond);
    bool readable = true;
    std::vector<TSNode> names;
    visit(cond, [&](TSNode x) {
      if (is(x, "identifier")) names.push_back(x);
      else if (is(x, "attribute") || is(x, "call") || is(x, "subscript")) readable = false;
    });
    if (!readable) return std::nullopt;
    const Scope* s = m_.scope_of(cond);
    for (TSNode id : names) {
      const auto* bs = m_.lookup(t(id), s);
      if (bs)
        for (const auto& b : *bs)
          if (!is_null(b.target) && contains(stop, b.target)) return std::nullopt;
    }
    TSNode child = n;
    for (TSNode p = m_.parent(n); !is_null(p) && !same(p, stop); child = p, p = m_.parent(p)) {
      if (!is(p, "if_statement")) continue;
      bool in_body = same(child, field(p, "consequence"));
      bool in_else = is(child, "else_clause") || is(child, "elif_clause");
      if (!in_body && !in_else) continue;
      TSNode c = unparen(field(p, "condition"));
      bool negated = false;
      if (is(c, "not_operator")) { negated = true; c = unparen(field(c, "argument")); }
      if (!same_expression(c, cond)) continue;
      return in_body != negated;
    }
    return std::nullopt;
  }

  // An evaluation loop that may run with autograd on: it calls a model, has no backward, is not
  // under no_grad/inference_mode, and (inside a function) the function is called at least once
  // outside them. Its outputs and losses keep the activations (RULES.md MEM001: "in evaluation
  // without no_grad it keeps the activations"). Nothing when the file turns autograd off in a
  // way this does not follow (set_grad_enabled(False) at module level, requires_grad_(False),
  // `.requires_grad = False`).
  bool eval_loop_with_grad(TSNode loop) {
    if (grad_maybe_disabled_()) return false;
    bool calls_model = false;
    visit(field(loop, "body"), [&](TSNode n) {
      if (calls_model || !is(n, "call")) return;
      if (model_for_callee(field(n, "function"), m_.scope_of(n))) calls_model = true;
      // Through an evaluation helper of the file that returns the model's output.
      const auto& r = returned_model_outputs(m_.resolve_local_function(n, m_.scope_of(n)));
      if (std::find(r.begin(), r.end(), true) != r.end()) calls_model = true;
    });
    if (!calls_model) return false;
    // A loop inside a training step (`for t in range(3): total = total + loss_t` before
    // `total.backward()`) is part of that step: its sums are consumed by the step's backward.
    // So is a loop in a function that back-propagates once per call, outside any loop of its own
    // (`def train(src, tgt): loss = 0; for c in ...: loss += criterion(decoder(...), ...)`, then
    // `loss.backward()`): the function is the step.
    for (TSNode p = m_.parent(loop); !is_null(p); p = m_.parent(p)) {
      if (is(p, "function_definition") && backprops_outside_loops(p)) return false;
      if (is_def(p) || is(p, "lambda")) break;
      if ((is(p, "for_statement") || is(p, "while_statement")) && backprops_at_its_level(p)) return false;
    }
    // A loop over positions of one input (`for c in range(chunk_len): loss += criterion(model(x[:,
    // c]), t[:, c])` in a function that evaluates one batch and returns `loss.item()`) keeps the
    // graph of that one call only, which dies with it; an evaluation loop over batches keeps
    // every batch's. So a `range()` loop of a function, in no loop of its own, that is no step
    // loop is left out.
    if (is(loop, "for_statement") && !step_loop(loop) && !is_null(enclosing_function(loop)) &&
        !in_loop_within_function(loop)) {
      if (iterates_range(loop)) return false;
    }
    // A loop of a function that a training step calls (once per step, through at most two
    // calls: called_per_step) is part of that step — a REINFORCE agent's `_play_episode()`
    // collecting the log-probabilities the step back-propagates — and the graphs it keeps live
    // for one call: they do not pile up across steps.
    if (!is_null(enclosing_function(loop)) && !in_loop_within_function(loop) && called_per_step(loop, 0))
      return false;
    return runs_with_grad(loop, 0);
  }

  // Does function `def` back-propagate at its own level, outside any loop of its own (once per
  // call)? Memoised per function.
  bool backprops_outside_loops(TSNode def) {
    auto it = backprops_outside_loops_.find(def.id);
    if (it != backprops_outside_loops_.end()) return it->second;
    bool step = any_backward_call_in(field(def, "body"), [&](TSNode n) { return is_null(innermost_loop(n)); });
    return backprops_outside_loops_[def.id] = step;
  }
  std::unordered_map<const void*, bool> backprops_outside_loops_;

  // True when `n` can run with autograd enabled: not under no_grad here, and its function (if
  // any) has a call site that can.
  bool runs_with_grad(TSNode n, int depth) {
    if (depth > 3 || under_no_grad(n)) return false;
    for (TSNode p = m_.parent(n); !is_null(p); p = m_.parent(p)) {
      if (is(p, "lambda") || is(p, "class_definition")) return false;
      if (is(p, "function_definition")) {
        // A function that itself back-propagates (a `train()` method that also validates)
        // runs with autograd on: under no_grad its loss.backward() would raise.
        if (backprops_outside_no_grad(p)) return true;
        for (const auto& site : m_.call_sites(p))
          if (!dead(site.node) && runs_with_grad(site.node, depth + 1)) return true;
        return false;
      }
    }
    return true;
  }

  // True when `function_definition` calls `x.backward()` outside no_grad in live code (not in
  // functions nested in it). Asked for the same function from every loop and call site that
  // runs_with_grad walks up through: computed once per function.
  bool backprops_outside_no_grad(TSNode function_definition) {
    auto memo = backprops_outside_no_grad_.find(function_definition.id);
    if (memo != backprops_outside_no_grad_.end()) return memo->second;
    bool found = any_backward_call_in(field(function_definition, "body"),
                                      [&](TSNode n) { return !under_no_grad(n) && !dead(n); });
    backprops_outside_no_grad_.emplace(function_definition.id, found);
    return found;
  }
  std::unordered_map<const void*, bool> backprops_outside_no_grad_;

  bool grad_maybe_disabled_() {
    if (grad_disabled_) return *grad_disabled_;
    bool off = false;
    for (TSNode c : m_.calls()) {
      const auto& q = m_.callee_name(c, m_.scope_of(c));
      if (q && *q == "torch.set_grad_enabled" && !is(m_.parent(c), "with_item")) off = true;
      if (method_name(c, src_) == "requires_grad_") off = true;
    }
    visit(m_.root(), [&](TSNode n) {
      if (off || !is(n, "assignment")) return;
      TSNode l = unparen(field(n, "left"));
      if (is(l, "attribute") && t(field(l, "attribute")) == "requires_grad") off = true;
    });
    grad_disabled_ = off;
    return off;
  }
  std::optional<bool> grad_disabled_;

  // A backward() whose nearest enclosing loop is `loop` itself (not a nested loop): one per
  // iteration of `loop`.
  bool backprops_at_its_level(TSNode loop) const {
    return any_backward_call_in(field(loop, "body"), [&](TSNode n) { return same(innermost_loop(n), loop); });
  }

  // What `def`'s return statements give, element by element (`return a, b` has two elements, a
  // bare `return x` one): out[i] is true when `held` is true of element i in some return
  // statement. Empty when it returns nothing or its returns differ in how many elements they
  // have (the caller cannot tell which element it unpacks).
  template <typename Held>
  std::vector<bool> returned_elements(TSNode def, Held&& held) const {
    std::vector<bool> out;
    for (TSNode v : m_.returned_values(def)) {
      v = unparen(v);
      auto elems = (is(v, "expression_list") || is(v, "tuple")) ? named_children(v) : std::vector<TSNode>{v};
      if (!out.empty() && out.size() != elems.size()) return {};
      out.resize(elems.size(), false);
      for (std::size_t i = 0; i < elems.size(); ++i)
        if (held(unparen(elems[i]))) out[i] = true;
    }
    return out;
  }

  // Per element of what a function of this file returns (`return train_loss, train_metric`):
  // true for a name that the function accumulates from back-propagated losses in a training
  // loop (`train_loss += loss` beside `loss.backward()`), so the caller gets an attached sum.
  // Empty when the function is unknown or returns differently shaped values.
  // Asked for the same function at each of its call sites (one walk of its body per returned
  // name otherwise): computed once per function definition.
  const std::vector<bool>& attached_returns(TSNode def) const {
    static const std::vector<bool> kNone;
    if (is_null(def)) return kNone;
    auto memo = attached_returns_.find(def.id);
    if (memo != attached_returns_.end()) return memo->second;
    return attached_returns_.emplace(def.id, attached_returns_uncached(def)).first->second;
  }
  mutable std::unordered_map<const void*, std::vector<bool>> attached_returns_;
  std::vector<bool> attached_returns_uncached(TSNode def) const {
    // A back-propagated loss, an accumulated one, or arithmetic over them (`return loss_real +
    // loss_fake` after both backward() calls: a new node over both graphs).
    std::function<bool(TSNode, int)> held = [&](TSNode e, int depth) {
      e = unparen(e);
      if (is(e, "identifier")) return accumulates_backprop_loss(def, t(e)) || returns_backpropagated(def, t(e));
      if (depth < 4 && is(e, "binary_operator")) {
        std::string_view op = t(field(e, "operator"));
        if (op == "+" || op == "-" || op == "*" || op == "/")
          return held(field(e, "left"), depth + 1) || held(field(e, "right"), depth + 1);
      }
      return false;
    };
    return returned_elements(def, [&](TSNode e) { return held(e, 0); });
  }

  // Does `def` call `name.backward()` once per call (no loop of its own around it, not under
  // no_grad) and never rebind `name` after it? A training-step function (`loss.backward();
  // optimizer.step(); return loss`) then returns the loss with its graph still referenced.
  bool returns_backpropagated(TSNode def, std::string_view name) const {
    TSNode bw{};
    visit(field(def, "body"), [&](TSNode n) {
      if (!is_null(bw)) return;
      TSNode r = unparen(backpropagated(n));
      if (is(r, "identifier") && t(r) == name && is_null(innermost_loop(n)) && !under_no_grad(n)) bw = n;
    });
    if (is_null(bw)) return false;
    bool rebound = false;
    visit(field(def, "body"), [&](TSNode n) {
      if (rebound || !(is(n, "assignment") || is(n, "augmented_assignment")) || start(n) < end(bw)) return;
      TSNode left = unparen(field(n, "left"));
      if (mentions(left, std::string(name))) rebound = true;
    });
    return !rebound;
  }

  bool accumulates_backprop_loss(TSNode def, std::string_view name) const {
    bool found = false;
    visit(field(def, "body"), [&](TSNode n) {
      if (found || !is(n, "augmented_assignment")) return;
      TSNode left = unparen(field(n, "left"));
      TSNode right = unparen(field(n, "right"));
      std::string_view op = t(ts_node_child_by_field_name(n, "operator", 8));
      if ((op != "+=" && op != "-=") || !is(left, "identifier") || t(left) != name || !is(right, "identifier")) return;
      TSNode loop = innermost_loop(n);
      if (is_null(loop) || under_no_grad(n)) return;
      visit(field(loop, "body"), [&](TSNode c) {
        TSNode r = unparen(backpropagated(c));
        if (!is(r, "identifier") || t(r) != t(right)) return;
        // Rebound between the backward() and the sum (`loss, acc = loss.item(), acc.item()`):
        // what is added may be a number; not decided here.
        bool rebound = false;
        visit(field(loop, "body"), [&](TSNode a) {
          if (rebound || !is(a, "assignment") || start(a) < end(c) || start(a) > start(n)) return;
          rebound = mentions(field(a, "left"), std::string(t(right)));
        });
        if (!rebound) found = true;
      });
    });
    return found;
  }

  // A loop that calls a function of this file returning an attached sum (an epoch loop over
  // `train_loss = self._train_epoch()`): what it keeps of that result outlives the epoch.
  bool calls_attached_returner(TSNode loop) const {
    bool found = false;
    visit(field(loop, "body"), [&](TSNode n) {
      if (found || !is(n, "call")) return;
      auto r = attached_returns(m_.resolve_local_function(n, m_.scope_of(n)));
      found = std::find(r.begin(), r.end(), true) != r.end();
    });
    return found;
  }

  bool loop_backprops(TSNode loop) const {
    // Any `.backward()` (a tensor's, or an Accelerator's / Fabric's) and torch.autograd.backward.
    return any_backward_call_in(field(loop, "body"), [](TSNode) { return true; });
  }

  // What MEM001's walk of a loop body knows about names, in program order: the tensors that
  // hold a graph, the lists attached tensors were appended to (not attached themselves —
  // storing the list again keeps nothing new — but what sum() or torch.stack() computes from
  // one is), and the names last computed with autograd off.
  struct GraphNames {
    std::set<std::string> attached;
    std::set<std::string> holding;
    std::set<std::string> no_grad;
    std::size_t count(const std::string& n) const { return attached.count(n); }
    void insert(const std::string& n) { attached.insert(n); no_grad.erase(n); }
    void erase(const std::string& n) { attached.erase(n); }
  };

  bool attached(TSNode e, const Scope* s, const GraphNames& att) const {
    e = unparen(e);
    if (is(e, "identifier")) return att.count(std::string(t(e))) > 0;
    if (is(e, "binary_operator"))
      return attached(field(e, "left"), s, att) || attached(field(e, "right"), s, att);
    if (is(e, "unary_operator")) { auto ch = named_children(e); return !ch.empty() && attached(ch.back(), s, att); }
    if (auto parts = conditional_parts(e))  // either value may be the one taken
      return attached(parts->value, s, att) || attached(parts->otherwise, s, att);
    if (is(e, "subscript")) return attached(field(e, "value"), s, att);
    if (is(e, "attribute")) {
      std::string_view a = t(field(e, "attribute"));
      if (a == "data" || a == "grad" || a == "shape" || a == "dtype" || a == "device") return false;
      return attached(field(e, "object"), s, att);
    }
    if (is(e, "call")) {
      std::string_view meth = method_name(e, src_);
      TSNode r = receiver(e);
      if (!is_null(r)) {
        if (kDetaching.count(meth)) return false;
        if (attached(r, s, att)) return true;
      }
      if (auto l = lightning_self_call(e, s, att)) return *l;
      const auto& q = m_.callee_name(e, s);
      if (q && (*q == "builtins.float" || *q == "builtins.int" || *q == "builtins.str" || *q == "builtins.len" ||
                *q == "builtins.round" || *q == "builtins.bool"))
        return false;
      // `sum(train_loss_list)` of a list holding attached tensors adds them up with autograd.
      if (q && *q == "builtins.sum") {
        auto a = positional_arguments(e);
        return !a.empty() && (attached(a[0], s, att) || holds_attached(a[0], att));
      }
      TSNode fn = field(e, "function");
      // A loss of inputs that were all computed without a graph (`with torch.no_grad(): logits
      // = model(x)` then `loss = criterion(logits, y)`) records none either.
      if (is_criterion(fn, s)) {
        // Attached unless every argument is a name without a graph and one of them was
        // computed under no_grad (the others, the targets, hold none either way).
        bool any_no_grad = false;
        for (TSNode a : positional_arguments(e)) {
          TSNode u = unparen(a);
          if (!is(u, "identifier") || att.count(std::string(t(u)))) return true;
          any_no_grad = any_no_grad || att.no_grad.count(std::string(t(u)));
        }
        return !any_no_grad;
      }
      const ModelInfo* mi = model_for_callee(fn, s);
      if (mi) return true;
      if (const auto& r = returned_model_outputs(m_.resolve_local_function(e, s)); r.size() == 1 && r[0]) return true;
      // `loss_g += train_generator(...)`: a training step of the file that returns its
      // back-propagated loss (attached_returns).
      if (const auto& r = attached_returns(m_.resolve_local_function(e, s)); r.size() == 1 && r[0]) return true;
      if (q && attached_torch_function(e, *q, s, att)) return true;
      if (!is_null(r) && model_method_output(e, s)) return true;
      return false;
    }
    return false;
  }

  // Per element of a model's output unpacked in a tuple assignment (`dist, value = model(s)`,
  // `out, (h, c) = lstm(x)`): true where the element holds a graph when computed with autograd
  // on. For a class of this file, what its forward() returns, element by element: everything
  // but literals, None and detaching calls (`logits.argmax(1)`, `x.detach()`); a forward
  // decorated with no_grad/inference_mode (or a decorator gpulint cannot read) gives nothing.
  // For a torch.nn module (nn.LSTM, nn.GRU, nn.MultiheadAttention), every element: they return
  // outputs and states computed from their parameters. Empty when the shape is unknown or the
  // model comes from code gpulint cannot read.
  std::vector<bool> model_output_elements(TSNode call, std::size_t n, const Scope* s) const {
    const ModelInfo* mi = model_for_callee(field(call, "function"), s);
    if (!mi || mi->opaque || !is(mi->origin, "call")) return {};
    const Scope* os = m_.scope_of(mi->origin);
    TSNode cls = local_class(mi->origin, os);
    if (is_null(cls)) {
      const auto& q = m_.callee_name(mi->origin, os);
      if (q && starts_with(*q, "torch.nn.")) return std::vector<bool>(n, true);
      return {};
    }
    TSNode def = class_method(cls, "forward");
    if (is_null(def)) return {};
    if (TSNode decorated = m_.parent(def); is(decorated, "decorated_definition"))
      for (TSNode d : named_children(decorated))
        if (is(d, "decorator")) return {};
    auto out = returned_elements(def, [&](TSNode e) {
      return !(is(e, "integer") || is(e, "float") || is(e, "none") || is(e, "string") || is(e, "true") ||
               is(e, "false") || (is(e, "call") && kDetaching.count(method_name(e, src_))));
    });
    if (out.size() != n) return {};
    return out;
  }

  // Per element of what a function of this file returns (`return batch_pred, output_tensor`):
  // true where the element is a model's output computed in the function with autograd on —
  // the model call itself, or a name every origin of which in the function is one — so the
  // caller gets it attached when it calls the function with autograd on (an evaluation helper
  // `def eval_pred(x): out = model(x); return out.argmax(1), out`). Not for a function with
  // decorators (no_grad, or one gpulint cannot read), nor elements computed under no_grad or
  // detached. Empty when the function is unknown, returns nothing or differently shaped
  // values. Memoised per function definition.
  const std::vector<bool>& returned_model_outputs(TSNode def) const {
    static const std::vector<bool> kNone;
    if (is_null(def)) return kNone;
    auto memo = returned_model_outputs_.find(def.id);
    if (memo != returned_model_outputs_.end()) return memo->second;
    std::vector<bool> out;
    const Scope* fs = m_.function_scope(def);
    auto model_call = [&](TSNode e) {
      e = unparen(e);
      return is(e, "call") && !under_no_grad(e) && model_for_callee(field(e, "function"), m_.scope_of(e)) != nullptr;
    };
    if (fs && !is(m_.parent(def), "decorated_definition"))
      out = returned_elements(def, [&](TSNode e) {
        if (model_call(e)) return true;
        if (!is(e, "identifier")) return false;
        auto os = m_.origins(e, fs);
        return !os.empty() && std::all_of(os.begin(), os.end(), [&](const Origin& o) { return model_call(o.node); });
      });
    return returned_model_outputs_.emplace(def.id, std::move(out)).first->second;
  }
  mutable std::unordered_map<const void*, std::vector<bool>> returned_model_outputs_;

  // `F.softmax(out, dim=1)`, `torch.sigmoid(out)`: a torch function of an attached tensor
  // computes an attached result (it records a grad_fn). Not the functions whose results carry
  // no graph (kDetaching's names: argmax, eq, round …) nor those returning (values, indices)
  // pairs, whose indices are not attached (`torch.max(out, 1)[1]`).
  bool attached_torch_function(TSNode call, const std::string& q, const Scope* s,
                               const GraphNames& att) const {
    if (!starts_with(q, "torch.") || starts_with(q, "torch.autograd.") || starts_with(q, "torch.cuda.")) return false;
    std::string_view fn = std::string_view(q).substr(q.rfind('.') + 1);
    static const std::set<std::string_view> kPairs = {"max", "min", "sort", "topk", "kthvalue", "mode",
                                                      "median", "nanmedian", "unique", "histc", "bucketize",
                                                      // a copy without the graph, or not a tensor
                                                      "tensor", "save", "is_tensor", "is_floating_point", "is_nonzero"};
    if (kDetaching.count(fn) || kPairs.count(fn) || starts_with(fn, "no_grad") || fn == "inference_mode") return false;
    for (auto a : positional_arguments(call))
      if (attached(a, s, att) || holds_attached(a, att)) return true;
    return false;
  }

  // A list the loop has appended attached tensors to (GraphNames::holding).
  bool holds_attached(TSNode e, const GraphNames& att) const {
    e = unparen(e);
    return is(e, "identifier") && att.holding.count(std::string(t(e))) > 0;
  }

  // `model.neglog_likelihood(x)`: a method of a model of this file called on an input computes
  // with the model's parameters, so its result is attached — not the nn.Module methods that
  // manage the module itself.
  bool model_method_output(TSNode call, const Scope* s) const {
    static const std::set<std::string_view> kModuleMethods = {
        "to", "cuda", "cpu", "apply", "load_state_dict", "state_dict", "parameters", "named_parameters",
        "buffers", "named_buffers", "modules", "named_modules", "children", "named_children",
        "register_buffer", "register_parameter", "register_forward_hook", "register_forward_pre_hook",
        "register_full_backward_hook", "add_module", "get_submodule", "get_parameter", "get_buffer",
        "requires_grad_", "train", "eval", "zero_grad", "half", "float", "double", "bfloat16", "type",
        "share_memory", "extra_repr", "forward"};
    std::string_view meth = method_name(call, src_);
    if (kModuleMethods.count(meth) || positional_arguments(call).empty()) return false;
    TSNode r = unparen(receiver(call));
    if (!(is(r, "identifier") || is(r, "attribute"))) return false;
    const ModelInfo* mi = model_for_callee(r, s);
    if (!mi || !is(mi->origin, "call")) return false;
    // Only a method this file defines on the model's class, and not one that turns autograd
    // off: a library model's methods may (Hugging Face's `generate` is decorated with
    // @torch.no_grad()), and gpulint cannot read them.
    TSNode cls = local_class(mi->origin, m_.scope_of(mi->origin));
    if (is_null(cls)) return false;
    TSNode def = class_method(cls, meth);
    if (is_null(def)) return false;
    TSNode decorated = m_.parent(def);
    if (is(decorated, "decorated_definition"))
      for (TSNode d : named_children(decorated)) {
        if (!is(d, "decorator") || named_count(d) == 0) continue;
        TSNode e = unparen(named(d, 0));
        if (is(e, "call")) e = unparen(field(e, "function"));
        const auto& q = m_.qualified_name(e, m_.scope_of(d));
        if (!q || starts_with(*q, "torch.no_grad") || starts_with(*q, "torch.inference_mode") ||
            starts_with(*q, "torch.autograd.grad_mode"))
          return false;  // autograd off, or a decorator gpulint cannot read
      }
    // `def select_action(self, s): ... return action_index.item()`: every return detached
    // (a detaching call, float()/int(), a literal) gives no graph.
    auto rets = m_.returned_values(def);
    const Scope* ds = m_.function_scope(def);
    bool all_detached = !rets.empty() && std::all_of(rets.begin(), rets.end(), [&](TSNode v) {
      v = unparen(v);
      if (host_literal(v)) return true;
      if (!is(v, "call")) return false;
      if (!is_null(receiver(v)) && kDetaching.count(method_name(v, src_))) return true;
      const auto& q = m_.callee_name(v, ds);
      return q && (*q == "builtins.float" || *q == "builtins.int" || *q == "builtins.bool");
    });
    return !all_detached;
  }

  // True when `stmt`, inside `loop`, runs only on some iterations: an if/elif/else branch or
  // a try/except clause lies between it and the loop.
  bool conditional_in_loop(TSNode stmt, TSNode loop) const {
    for (TSNode p = m_.parent(stmt); !is_null(p) && !same(p, loop); p = m_.parent(p)) {
      std::string_view ty = type(p);
      if (ty == "if_statement" || ty == "elif_clause" || ty == "else_clause" ||
          ty == "try_statement" || ty == "except_clause" || ty == "match_statement")
        return true;
    }
    return false;
  }

  // Gradient accumulation over micro-batches: `for i in range(max_iters): loss = 0; for _ in
  // range(iter_size): ...; loss_iter.backward(); loss += loss_iter` and then `optimizer.step()`.
  // True when `name` (an identifier) is rebound unconditionally in the body of the loop around
  // `loop`, before `loop`, and that outer loop — not `loop`, nor another loop inside it — steps
  // a torch.optim optimizer once per iteration: the
  // sum holds the graphs of one step's micro-batches, and the next step's rebinding frees them;
  // nothing accumulates across steps. (An epoch loop that resets `running_loss` around a loader
  // loop which steps the optimizer itself is not this: there the sum spans every step.)
  bool reset_every_step(TSNode name, const Scope* s, TSNode loop) const {
    name = unparen(name);
    if (!is(name, "identifier")) return false;
    if (reset_on_accelerate_sync(name, s, loop)) return true;
    TSNode outer = innermost_loop(loop);
    if (is_null(outer)) return false;
    bool inner_steps = false, outer_steps = false;
    visit(field(loop, "body"), [&](TSNode n) {
      if (is(n, "call") && method_name(n, src_) == "step") inner_steps = true;
    });
    if (inner_steps) return false;
    visit(field(outer, "body"), [&](TSNode n) {
      // Once per iteration of the outer loop: not the step of a training loop beside `loop`
      // (an epoch loop's train loop, then its evaluation loop summing `val_loss`).
      if (outer_steps || !is(n, "call") || method_name(n, src_) != "step" || !same(innermost_loop(n), outer)) return;
      // `optimizer.step()`, or a GradScaler's `scaler.step(optimizer)` (optimizer_step tells).
      if (!is(unparen(receiver(n)), "identifier")) return;
      outer_steps = optimizer_step(n) == StepOf::Optimizer;
    });
    if (!outer_steps) return false;
    const auto* bs = m_.lookup(t(name), s);
    if (!bs) return false;
    for (const auto& b : *bs)
      if (b.kind == Binding::Kind::Assign && contains(field(outer, "body"), b.stmt) && !contains(loop, b.stmt) &&
          start(b.stmt) < start(loop) && !conditional_in_loop(b.stmt, outer))
        return true;
    return false;
  }

  // Accelerate's gradient accumulation: inside `with accelerator.accumulate(model):` the
  // optimizer really steps only when `accelerator.sync_gradients` is true (accelerate/
  // accelerator.py, Accelerator.accumulate and AcceleratedOptimizer.step), and the loop resets
  // the sum there: `if accelerator.sync_gradients: ...; total = 0`. The sum then holds the
  // graphs of one optimizer step's micro-batches only. True when `name` is rebound in `loop`'s
  // body under the consequence of such an `if`, `accelerator` being an accelerate.Accelerator.
  bool reset_on_accelerate_sync(TSNode name, const Scope* s, TSNode loop) const {
    const auto* bs = m_.lookup(t(name), s);
    if (!bs) return false;
    for (const auto& b : *bs) {
      if (b.kind != Binding::Kind::Assign || is_null(b.stmt) || !contains(field(loop, "body"), b.stmt)) continue;
      for (TSNode p = m_.parent(b.stmt); !is_null(p) && !same(p, loop); p = m_.parent(p)) {
        if (!is(p, "if_statement") || !contains(field(p, "consequence"), b.stmt)) continue;
        TSNode cond = unparen(field(p, "condition"));
        if (!is(cond, "attribute") || t(field(cond, "attribute")) != "sync_gradients") continue;
        auto os = m_.origins(field(cond, "object"), m_.scope_of(cond));
        if (!os.empty() && std::all_of(os.begin(), os.end(), [&](const Origin& o) {
              if (!is(o.node, "call")) return false;
              const auto& q = m_.callee_name(o.node, o.scope);
              return q && (*q == "accelerate.Accelerator" || *q == "accelerate.accelerator.Accelerator");
            }))
          return true;
      }
    }
    return false;
  }

  // Is `name` bound before `loop` in its scope, and inside the loop only by `except_stmt`,
  // augmented assignments or conditional resets? Containers kept across iterations are bound
  // outside; a reset on a logging branch (`if step % 100 == 0: total = 0`) still lets the
  // graphs of the iterations in between accumulate.
  bool bound_outside_only(std::string_view name, const Scope* s, TSNode loop, TSNode except_stmt) const {
    const Scope* fs = nullptr;
    const auto* bs = m_.lookup(name, s, &fs);
    if (!bs) return false;
    bool outside = false;
    for (const auto& b : *bs) {
      bool inside = contains(loop, b.stmt) || (contains(loop, b.target) && !is_null(b.target));
      if (inside) {
        if (b.kind == Binding::Kind::AugAssign) continue;
        if (!is_null(except_stmt) && contains(except_stmt, b.target)) continue;
        if (b.kind == Binding::Kind::Assign && conditional_in_loop(b.stmt, loop)) continue;
        return false;
      }
      outside = true;
    }
    return outside;
  }

  void analyse_kept_tensors() {
    std::set<uint32_t> reported;
    for (TSNode loop : m_.loops()) {
      if (dead(loop) || (!loop_backprops(loop) && !eval_loop_with_grad(loop) && !calls_attached_returner(loop)))
        continue;
      kept_in_body(loop, m_.scope_of(loop), reported);
    }
    // A training-step method (`def train(self, x, y): ... loss.backward()`, called once per step
    // by code outside the file): its instance state outlives the call, so `self.running_loss +=
    // loss` keeps every step's graph. Only `self.` containers count here (locals die with the
    // call); loops inside the method were covered above.
    for (TSNode def : step_methods()) {
      const Scope* fs = m_.function_scope(def);
      if (!fs) continue;
      TSNode cls = enclosing_class(def);
      lightning_class_ = (!is_null(cls) && lightning_module_class(cls)) ? cls : TSNode{};
      kept_in_body(def, fs, reported);
      lightning_class_ = TSNode{};
    }
  }

  // The class_definition whose body defines method `def` directly; a null node otherwise.
  TSNode enclosing_class(TSNode def) const {
    TSNode p = m_.parent(def);
    while (!is_null(p) && (is(p, "block") || is(p, "decorated_definition"))) p = m_.parent(p);
    return is(p, "class_definition") ? p : TSNode{};
  }

  // Does class `cls` (a class_definition of this file) derive from Lightning's LightningModule,
  // directly or through the file's own classes? (SemanticModel::derives_from,
  // lightning_module_name.)
  bool lightning_module_class(TSNode cls) const { return m_.derives_from(cls, lightning_module_name); }


  // The method named `name` defined in the body of class `cls`; a null node when none.
  TSNode class_method(TSNode cls, std::string_view name) const {
    for (TSNode m : named_children(field(cls, "body"))) {
      if (is(m, "decorated_definition")) m = field(m, "definition");
      if (is(m, "function_definition") && t(field(m, "name")) == name) return m;
    }
    return TSNode{};
  }

  // In a LightningModule's training_step (lightning_class_ set): is the call `e` — `self(x)`,
  // `self.forward(x)`, a submodule (`self.model(x)` where `self.model` holds an nn.Module
  // construction), a method of the module's class, or another attribute of
  // the module (a loss, a submodule) applied to an attached tensor — computing an attached
  // value? `att` holds the caller's attached names. nullopt: not such a call.
  std::optional<bool> lightning_self_call(TSNode e, const Scope* s, const GraphNames& att) const {
    if (is_null(lightning_class_)) return std::nullopt;
    TSNode fn = unparen(field(e, "function"));
    if (is(fn, "identifier")) return m_.is_instance_parameter(fn, s) ? std::optional<bool>(true) : std::nullopt;
    if (!is(fn, "attribute")) return std::nullopt;
    TSNode o = unparen(field(fn, "object"));
    if (!m_.is_instance_parameter(o, s)) return std::nullopt;
    std::string_view a = t(field(fn, "attribute"));
    if (a == "forward") return true;  // nn.Module.forward: the module's own computation
    TSNode def = class_method(lightning_class_, a);
    if (!is_null(def)) {
      auto r = lightning_returns(def, e, s, att);
      return std::find(r.begin(), r.end(), true) != r.end();
    }
    static const std::set<std::string_view> kNotComputing = {"log", "log_dict", "print", "save_hyperparameters",
                                                             "parameters", "named_parameters", "manual_backward",
                                                             "optimizers", "lr_schedulers", "all_gather", "to"};
    if (kNotComputing.count(a)) return false;
    // `self.accuracy = torchmetrics.Accuracy(...)`: metric values carry no graph.
    // `self.model = Net()` (also through `__init__(self, model)` and its call sites): a
    // submodule computes with its parameters.
    bool submodule = false;
    for (const auto& o : m_.origins(fn, s)) {
      if (!is(o.node, "call")) continue;
      const auto& oq = m_.callee_name(o.node, o.scope);
      if (oq && starts_with(*oq, "torchmetrics.")) return false;
      submodule = submodule || is_module_constructor(o.node, o.scope);
    }
    if (submodule) return true;
    for (auto arg : positional_arguments(e))
      if (attached(arg, s, att)) return true;
    return std::nullopt;
  }

  // Per element of what method `def` of the Lightning class returns (`return loss, outputs, y`)
  // when `call` (in scope `s`, with attached names `att`) calls it: true where the element is
  // attached. The method's parameters are attached where the call's positional argument is;
  // its assignments are followed in source order. Empty when the returns differ in shape or
  // the recursion (methods calling methods) is 3 deep.
  std::vector<bool> lightning_returns(TSNode def, TSNode call, const Scope* s,
                                      const GraphNames& att) const {
    const Scope* fs = m_.function_scope(def);
    if (!fs || lightning_depth_ >= 3) return {};
    ++lightning_depth_;
    GraphNames inner;
    std::vector<TSNode> params;
    for (TSNode p : named_children(field(def, "parameters"))) {
      TSNode id = is(p, "identifier") ? p : TSNode{};
      if (is(p, "typed_parameter")) { auto ch = named_children(p); if (!ch.empty() && is(ch[0], "identifier")) id = ch[0]; }
      if (is(p, "default_parameter") || is(p, "typed_default_parameter")) id = field(p, "name");
      if (is_null(id) || !is(id, "identifier")) break;
      params.push_back(id);
    }
    auto args = positional_arguments(call);
    for (std::size_t i = 0; i + 1 < params.size() && i < args.size(); ++i)
      if (attached(args[i], s, att)) inner.insert(std::string(t(params[i + 1])));
    visit(field(def, "body"), [&](TSNode n) {
      if (!is(n, "assignment") || under_no_grad(n)) return;
      TSNode left = unparen(field(n, "left"));
      TSNode right = field(n, "right");
      if (is_null(right)) return;
      if (is(left, "identifier")) {
        if (attached(right, fs, inner)) inner.insert(std::string(t(left)));
        else inner.erase(std::string(t(left)));
      } else if ((is(left, "pattern_list") || is(left, "tuple_pattern")) && is(unparen(right), "call")) {
        auto elems = named_children(left);
        std::vector<bool> r;
        TSNode rc = unparen(right);
        TSNode fn = unparen(field(rc, "function"));
        if (is(fn, "attribute") && m_.is_instance_parameter(unparen(field(fn, "object")), fs)) {
          TSNode d = class_method(lightning_class_, t(field(fn, "attribute")));
          if (!is_null(d)) r = lightning_returns(d, rc, fs, inner);
        }
        for (std::size_t i = 0; i < elems.size(); ++i)
          if (is(elems[i], "identifier")) {
            if (r.size() == elems.size() && r[i]) inner.insert(std::string(t(elems[i])));
            else inner.erase(std::string(t(elems[i])));
          }
      }
    });
    auto out = returned_elements(def, [&](TSNode e) { return attached(e, fs, inner); });
    --lightning_depth_;
    return out;
  }

  // Methods of this file's classes that back-propagate once per call: a backward() that no loop
  // of the method encloses; and the `training_step` of a LightningModule, which Lightning's
  // fit loop calls once per step with autograd on, back-propagating the loss it returns
  // (https://lightning.ai/docs/pytorch/stable/common/lightning_module.html#training-step).
  // validation_step/test_step/predict_step run under no_grad/inference_mode: not step methods.
  std::vector<TSNode> step_methods() {
    std::vector<TSNode> out;
    for (TSNode top : named_children(m_.root())) {
      if (!is(top, "class_definition") || dead(top)) continue;
      bool lightning = lightning_module_class(top);
      for (TSNode m : named_children(field(top, "body"))) {
        if (is(m, "decorated_definition")) m = field(m, "definition");
        if (!is(m, "function_definition")) continue;
        if (lightning && t(field(m, "name")) == "training_step") { out.push_back(m); continue; }
        if (any_backward_call_in(field(m, "body"), [&](TSNode n) { return is_null(innermost_loop(n)); }))
          out.push_back(m);
      }
    }
    return out;
  }

  // The name a loss input's graph would come from: `outputs`, `outputs.squeeze(1)`,
  // `out[:, 0]`, `out.logits`; a null node for a literal, a detaching call or an expression with
  // more than one source.
  TSNode graph_root(TSNode e) const {
    for (int i = 0; i < 32; ++i) {
      e = unparen(e);
      if (is(e, "identifier")) return e;
      if (is(e, "attribute")) {
        std::string_view a = t(field(e, "attribute"));
        if (a == "data" || a == "grad" || a == "shape" || a == "dtype" || a == "device") return TSNode{};
        e = field(e, "object");
      } else if (is(e, "subscript")) {
        e = field(e, "value");
      } else if (is(e, "call")) {
        TSNode r = receiver(e);
        if (is_null(r) || kDetaching.count(method_name(e, src_))) return TSNode{};
        e = r;
      } else {
        return TSNode{};
      }
    }
    return TSNode{};
  }
  static bool literal(TSNode e) {
    return is(e, "integer") || is(e, "float") || is(e, "string") || is(e, "none") || is(e, "true") ||
           is(e, "false");
  }

  // True when `name` (in `loop`'s body, scope `s`) holds only batch data of `loop`: every
  // binding of it inside the loop is the loop header's target (`for x, y in loader`, `for i,
  // (x, y) in enumerate(loader)`) or a move, cast or reshape of batch data (`y =
  // y.to(device)`, `x, y = x.cuda(), y.cuda().long()`, `y = batch[1]`), and it has one there.
  // Loader batches hold no graph. Only for a loop whose iterable is no name of the loop itself.
  bool batch_data(TSNode name, const Scope* s, TSNode loop, int depth) const {
    if (depth > 4 || !is(loop, "for_statement")) return false;
    const auto* bs = m_.lookup(t(name), s);
    if (!bs) return false;
    bool any = false;
    for (const Binding& b : *bs) {
      if (!contains(loop, b.target)) continue;
      if (b.kind == Binding::Kind::For) {
        if (!same(b.stmt, loop)) return false;
        any = true;
        continue;
      }
      if (b.kind != Binding::Kind::Assign || b.unpack_index >= 0) return false;
      TSNode v = unparen(b.value);
      if (!is(v, "call") && !is(v, "subscript")) return false;
      if (is(v, "call")) {
        static const std::set<std::string_view> kMoves = {
            "to", "cuda", "float", "double", "half", "bfloat16", "long", "int", "bool", "type", "view",
            "reshape", "squeeze", "unsqueeze", "permute", "contiguous", "flatten", "transpose"};
        if (!kMoves.count(method_name(v, src_))) return false;
      }
      TSNode src = is(v, "call") ? unparen(receiver(v)) : unparen(field(v, "value"));
      while (is(src, "call") || is(src, "subscript")) {
        if (is(src, "subscript")) { src = unparen(field(src, "value")); continue; }
        static const std::set<std::string_view> kMoves2 = {"to", "cuda", "float", "double", "long", "int", "view",
                                                           "reshape", "squeeze", "unsqueeze"};
        if (!kMoves2.count(method_name(src, src_))) return false;
        src = unparen(receiver(src));
      }
      if (!is(src, "identifier")) return false;
      if (t(src) != t(name) && !batch_data(src, s, loop, depth + 1)) return false;
      any = true;
    }
    return any;
  }

  // For `torch.cat((name, x, ...), dim)` (also torch.concat / torch.concatenate, a list of
  // tensors): the first element other than `name` that is attached — what the running tensor
  // `name` grows by. A null node for any other expression, or when `name` is not among the
  // concatenated tensors.
  TSNode concatenated_onto(TSNode e, const std::string& name, const Scope* s, const GraphNames& att) const {
    e = unparen(e);
    if (!is(e, "call")) return TSNode{};
    const auto& q = m_.callee_name(e, s);
    if (!q || (*q != "torch.cat" && *q != "torch.concat" && *q != "torch.concatenate")) return TSNode{};
    auto a = positional_arguments(e);
    if (a.empty()) return TSNode{};
    TSNode seq = unparen(a[0]);
    if (!is(seq, "tuple") && !is(seq, "list")) return TSNode{};
    bool grows = false;
    TSNode el{};
    for (TSNode x : named_children(seq)) {
      TSNode ux = unparen(x);
      if (is(ux, "identifier") && t(ux) == name) grows = true;
      else if (is_null(el) && attached(x, s, att)) el = x;
    }
    return grows ? el : TSNode{};
  }

  // The MEM001 walk over the body of `loop` (a for/while loop, or a step method whose calls are
  // the iterations), in scope `s`.
  void kept_in_body(TSNode loop, const Scope* s, std::set<uint32_t>& reported) {
    {
      GraphNames att;
      std::set<std::string> consumed;   // containers stacked / back-propagated in the loop
      // Names back-propagated in this loop (`loss.backward()`): what they are assigned in the
      // loop is attached to the graph by construction, unless the value is detached.
      std::set<std::string> backprop_names;
      // Where each of them is last back-propagated: a value bound after that (`loss =
      // scalar(loss)` after `loss.backward()`) is not the back-propagated one.
      std::map<std::string, uint32_t> last_backward;
      // (One walk fills both sets; only calls back-propagate.)
      visit(field(loop, "body"), [&](TSNode n) {
        if (!is(n, "call")) return;
        const auto& q = m_.callee_name(n, s);
        if (q && (*q == "torch.stack" || *q == "torch.cat" || *q == "builtins.sum")) {
          for (auto a : positional_arguments(n)) { TSNode r = root_identifier(a); if (!is_null(r)) consumed.insert(std::string(t(r))); }
        }
        if (TSNode bt = backpropagated(n); !is_null(bt)) {
          TSNode r = root_identifier(bt);
          if (!is_null(r)) consumed.insert(std::string(t(r)) + "#backward");
          TSNode b = unparen(bt);
          if (is(b, "identifier")) {
            backprop_names.insert(std::string(t(b)));
            uint32_t& at = last_backward[std::string(t(b))];
            at = std::max(at, end(n));
          }
        }
      });
      // A LightningModule's training_step returns the loss Lightning back-propagates: a tensor,
      // or a dict whose "loss" entry is one (LightningModule.training_step's documented return).
      if (!is_null(lightning_class_) && is(loop, "function_definition")) {
        for (TSNode r : m_.returned_values(loop)) {
          r = unparen(r);
          if (is(r, "dictionary"))
            for (TSNode pair : named_children(r)) {
              if (!is(pair, "pair")) continue;
              auto key = m_.evaluate(field(pair, "key"), s);
              if (key.size() == 1 && key[0].kind == Value::Kind::Str && key[0].s == "loss") r = unparen(field(pair, "value"));
            }
          if (is(r, "identifier")) {
            backprop_names.insert(std::string(t(r)));
            last_backward[std::string(t(r))] = end(loop);  // Lightning back-propagates it after the return
          }
        }
      }
      // The terms of a back-propagated sum assigned in this loop (`loss = loss1 + loss2` before
      // `loss.backward()`): a term computed from an attached tensor by a function gpulint cannot
      // read (`loss1 = W_neo_brain(deformation, ...) / n`, imported) is attached as well — autograd
      // reaches the parameters only through terms that require grad, and this one is computed
      // from the model's output.
      std::set<std::string> backprop_terms;
      visit(field(loop, "body"), [&](TSNode n) {
        if (!is(n, "assignment")) return;
        TSNode left = unparen(field(n, "left"));
        if (!is(left, "identifier") || !backprop_names.count(std::string(t(left)))) return;
        if (start(n) >= last_backward[std::string(t(left))]) return;  // bound after its backward
        std::function<void(TSNode)> terms = [&](TSNode e) {
          e = unparen(e);
          if (is(e, "identifier")) { backprop_terms.insert(std::string(t(e))); return; }
          // `latent_loss.mean()`, `kl.sum(dim=1)`: a method of the term computes from it, with
          // its graph unless the method detaches.
          if (is(e, "call")) {
            TSNode r = receiver(e);
            if (!is_null(r) && !kDetaching.count(method_name(e, src_))) terms(r);
            return;
          }
          if (!is(e, "binary_operator")) return;
          std::string_view op = t(ts_node_child_by_field_name(e, "operator", 8));
          if (op != "+" && op != "-" && op != "*" && op != "/") return;
          terms(field(e, "left"));
          terms(field(e, "right"));
        };
        terms(field(n, "right"));
      });
      // The one input of a back-propagated loss that can hold a graph (`loss =
      // criterion(outputs, targets)` before `loss.backward()`, where `targets` is batch data from
      // this loop's header and `outputs = model(inputs)` comes from a model gpulint cannot see —
      // a function parameter): backward() raises unless `loss` requires grad (torch/autograd/
      // __init__.py, _make_grads: "element 0 of tensors does not require grad"), a loss function
      // computes one only from inputs that do, and batch data does not; so the remaining input
      // does. Only when exactly one input is not batch data or a literal, and it is a name.
      std::set<std::string> backprop_inputs;
      if (is(loop, "for_statement") && !backprop_names.empty()) {
        visit(field(loop, "body"), [&](TSNode n) {
          if (!is(n, "assignment")) return;
          TSNode left = unparen(field(n, "left"));
          TSNode right = unparen(field(n, "right"));
          if (!is(left, "identifier") || !backprop_names.count(std::string(t(left))) || !is(right, "call")) return;
          if (start(n) >= last_backward[std::string(t(left))]) return;  // `loss = scalar(loss)` after backward
          if (!is_null(receiver(right)) && kDetaching.count(method_name(right, src_))) return;
          TSNode args = field(right, "arguments");
          if (!is(args, "argument_list")) return;
          int candidates = 0;
          std::string name;
          for_each_named_child(args, [&](TSNode a) {
            if (is_extra(a)) return;
            if (is(a, "keyword_argument")) a = field(a, "value");
            if (is(a, "list_splat") || is(a, "dictionary_splat") || is_null(a)) { ++candidates; return; }
            TSNode root = graph_root(a);
            if (is_null(root)) {
              if (!literal(unparen(a))) ++candidates;
              return;
            }
            if (batch_data(root, s, loop, 0)) return;
            ++candidates;
            name = std::string(t(root));
          });
          if (candidates == 1 && !name.empty()) backprop_inputs.insert(name);
        });
      }
      auto computed_from_attached = [&](TSNode v) {
        bool found = false;
        visit(v, [&](TSNode c) {
          if (found || !is(c, "call")) return;
          TSNode args = field(c, "arguments");
          if (!is(args, "argument_list")) return;
          for_each_named_child(args, [&](TSNode a) {
            if (is(a, "keyword_argument")) a = field(a, "value");
            if (!is_null(a) && attached(a, s, att)) found = true;
          });
        });
        return found;
      };
      auto detaches = [&](TSNode v) {
        v = unparen(v);
        // `x.data` is the tensor without its graph; another attribute (`out.loss` of a model's
        // output object) may well be the back-propagated tensor itself.
        if (!is(v, "call"))
          return is(v, "integer") || is(v, "float") || (is(v, "attribute") && t(field(v, "attribute")) == "data");
        if (kDetaching.count(method_name(v, src_))) return true;
        const auto& q = m_.callee_name(v, s);
        return q && starts_with(*q, "builtins.");
      };
      // Walk the body in order.
      std::function<void(TSNode)> walk = [&](TSNode n) {
        if (is_def(n) || is(n, "decorated_definition") || dead(n)) return;
        std::string_view ty = type(n);
        if (ty == "expression_statement") {
          for (auto ch : named_children(n)) {
            if (is(ch, "assignment")) {
              TSNode left = unparen(field(ch, "left"));
              TSNode right = field(ch, "right");
              if (is(left, "identifier") && under_no_grad(ch)) {
                att.erase(std::string(t(left)));  // computed without a graph
                att.no_grad.insert(std::string(t(left)));
              } else if (is(left, "identifier")) {
                std::string name(t(left));
                att.no_grad.erase(name);
                // `ema = loss if ema is None else 0.9 * ema + 0.1 * loss`: the running sum is the
                // conditional's other side.
                TSNode sum = unparen(right);
                if (auto parts = conditional_parts(sum)) {
                  sum = TSNode{};
                  for (TSNode side : {parts->value, parts->otherwise})
                    if (is(unparen(side), "binary_operator") && mentions(side, name)) sum = unparen(side);
                }
                bool keep_site = !is_null(sum) && attached(sum, s, att) && is(sum, "binary_operator") &&
                                 mentions(right, name) && bound_outside_only(name, s, loop, ch) &&
                                 !reset_every_step(left, s, loop);
                // `predict = torch.cat((predict, output))`, `outs = o if outs is None else
                // torch.cat([outs, o])`: the running tensor grows by each iteration's attached
                // element and keeps its graph, as an append does (torch.cat's result records
                // every input in its autograd graph).
                TSNode cat_el = concatenated_onto(right, name, s, att);
                if (is_null(cat_el))
                  if (auto parts = conditional_parts(unparen(right)))
                    for (TSNode side : {parts->value, parts->otherwise})
                      if (is_null(cat_el)) cat_el = concatenated_onto(side, name, s, att);
                if (!keep_site && !is_null(cat_el) && !under_no_grad(ch) && bound_outside_only(name, s, loop, ch) &&
                    !reset_every_step(left, s, loop)) {
                  kept(n, cat_el, name, KeptGraphTensor::How::Concatenate, reported, consumed);
                  att.insert(name);
                } else if (keep_site) kept(n, right, name, KeptGraphTensor::How::AugmentedAssign, reported, consumed);
                else if (attached(right, s, att)) att.insert(name);
                else if (backprop_names.count(name) && !detaches(right) && start(ch) < last_backward[name]) att.insert(name);
                else if (backprop_inputs.count(name) && is(unparen(right), "call") && !detaches(right))
                  att.insert(name);
                else if (backprop_terms.count(name) && !detaches(right) && computed_from_attached(right))
                  att.insert(name);
                else att.erase(name);
              } else if (is(left, "subscript")) {
                TSNode base = root_identifier(field(left, "value"));
                if (!is_null(base) && attached(right, s, att) && container_outside(field(left, "value"), s, loop) &&
                    !key_repeats_each_iteration(field(left, "subscript"), s, loop))
                  kept(n, right, std::string(t(field(left, "value"))), KeptGraphTensor::How::SubscriptStore, reported, consumed);
              } else {
                std::vector<TSNode> ids;
                collect_identifiers(left, ids);
                for (auto id : ids) att.erase(std::string(t(id)));
                // `loss, parts = loss_func(out, y)` where this loop back-propagates `loss`: as
                // for a plain name, backward() needs that element's graph.
                // A tuple of values (`loss, current = loss.item(), (i + 1) * len(x)`) binds each
                // element its own value, read as for a plain name.
                TSNode rt = unparen(right);
                auto lels = named_children(left);
                auto rels = (is(rt, "expression_list") || is(rt, "tuple")) ? named_children(rt) : std::vector<TSNode>{};
                bool elementwise = (is(left, "pattern_list") || is(left, "tuple_pattern")) && !rels.empty() &&
                                   rels.size() == lels.size();
                if (elementwise && !under_no_grad(ch)) {
                  for (std::size_t i = 0; i < lels.size(); ++i) {
                    TSNode el = unparen(lels[i]);
                    if (!is(el, "identifier")) continue;
                    std::string name(t(el));
                    if (attached(rels[i], s, att)) att.insert(name);
                    else if (backprop_names.count(name) && !detaches(rels[i]) && start(ch) < last_backward[name])
                      att.insert(name);
                  }
                } else if ((is(left, "pattern_list") || is(left, "tuple_pattern")) && !under_no_grad(ch) &&
                           !detaches(right))
                  for (TSNode el : named_children(left))
                    if (is(unparen(el), "identifier") && backprop_names.count(std::string(t(unparen(el)))) &&
                        start(ch) < last_backward[std::string(t(unparen(el)))])
                      att.insert(std::string(t(unparen(el))));
                // `dist, value = model(state)`: the elements the model's forward returns attached.
                TSNode rc = unparen(right);
                if ((is(left, "pattern_list") || is(left, "tuple_pattern")) && is(rc, "call") && !under_no_grad(ch)) {
                  auto elems = named_children(left);
                  auto held = model_output_elements(rc, elems.size(), s);
                  if (held.empty()) held = returned_model_outputs(m_.resolve_local_function(rc, s));
                  // A model whose forward gpulint cannot read (`out, latent_loss = net(img)`,
                  // an imported VQ-VAE): the elements that are terms of the loss back-propagated
                  // in this loop are computed by the trained model and reach its parameters,
                  // so they hold its graph.
                  if (held.empty() && model_for_callee(field(rc, "function"), s)) {
                    held.assign(elems.size(), false);
                    for (std::size_t i = 0; i < elems.size(); ++i)
                      held[i] = is(unparen(elems[i]), "identifier") && backprop_terms.count(std::string(t(unparen(elems[i])))) > 0;
                  }
                  if (held.size() == elems.size())
                    for (std::size_t i = 0; i < elems.size(); ++i)
                      if (held[i] && is(unparen(elems[i]), "identifier")) att.insert(std::string(t(unparen(elems[i]))));
                }
              }
              // `train_loss, acc = self._train_epoch()` where that method returns an attached sum.
              if (is(unparen(right), "call")) {
                auto returned = attached_returns(m_.resolve_local_function(unparen(right), s));
                auto elems = is(left, "identifier") ? std::vector<TSNode>{left} : named_children(left);
                // `loss, outputs, y = self.common_step(batch, batch_idx)` in a training_step.
                if (!is_null(lightning_class_) && !is(left, "identifier")) {
                  TSNode fn = unparen(field(unparen(right), "function"));
                  if (is(fn, "attribute") && m_.is_instance_parameter(unparen(field(fn, "object")), s)) {
                    TSNode d = class_method(lightning_class_, t(field(fn, "attribute")));
                    if (!is_null(d)) returned = lightning_returns(d, unparen(right), s, att);
                  }
                }
                if (returned.size() == elems.size())
                  for (std::size_t i = 0; i < elems.size(); ++i)
                    if (returned[i] && is(unparen(elems[i]), "identifier")) att.insert(std::string(t(unparen(elems[i]))));
              }
            } else if (is(ch, "augmented_assignment")) {
              TSNode left = unparen(field(ch, "left"));
              TSNode right = field(ch, "right");
              std::string_view op = t(ts_node_child_by_field_name(ch, "operator", 8));
              // `y_hat += [out]`: list += iterable is list.extend (Python data model,
              // object.__iadd__ of list): an append of the one element.
              if (TSNode ur = unparen(right); op == "+=" && is(ur, "list") && named_count(ur) == 1) {
                TSNode el = named(ur, 0);
                if (attached(el, s, att) && container_outside(left, s, loop))
                  kept(n, el, std::string(t(left)), KeptGraphTensor::How::Append, reported, consumed);
                if (attached(el, s, att) && is(left, "identifier") && !under_no_grad(ch))
                  att.holding.insert(std::string(t(left)));
                continue;
              }
              if ((op == "+=" || op == "-=") && attached(right, s, att) && container_outside(left, s, loop) &&
                  !reset_every_step(left, s, loop))
                kept(n, right, std::string(t(left)), KeptGraphTensor::How::AugmentedAssign, reported, consumed);
              // `epoch_loss += loss`: the sum is attached too (`history.append(epoch_loss)`).
              if ((op == "+=" || op == "-=" || op == "*=" || op == "/=") && is(left, "identifier") &&
                  attached(right, s, att))
                att.insert(std::string(t(left)));
            } else if (is(ch, "call")) {
              std::string_view meth = method_name(ch, src_);
              if (TSNode bt = unparen(backpropagated(ch)); is(bt, "identifier"))
                att.insert(std::string(t(bt)));
              if (meth == "append" || meth == "extend" || meth == "insert" || meth == "add") {
                TSNode cont = receiver(ch);
                auto a = positional_arguments(ch);
                if (a.empty()) continue;
                TSNode val = meth == "insert" && a.size() > 1 ? a[1] : a[0];
                if (meth == "extend") {
                  TSNode u = unparen(val);
                  if (!(is(u, "list") || is(u, "tuple"))) continue;
                  auto el = named_children(u);
                  if (el.size() != 1) continue;
                  val = el[0];
                }
                // `outputs.append((out, y))`, `outputs.append({"loss": loss, "y": y})`: the tuple
                // or dict keeps its attached elements (values) alive.
                TSNode uv = unparen(val);
                if ((is(uv, "tuple") || is(uv, "dictionary")) && container_outside(cont, s, loop)) {
                  std::vector<TSNode> held;
                  for (TSNode el : named_children(uv)) {
                    if (is(el, "pair")) el = field(el, "value");
                    else if (is(uv, "dictionary")) continue;  // `**extra`
                    if (!is_null(el) && attached(el, s, att)) held.push_back(el);
                  }
                  if (!held.empty())
                    kept(n, val, std::string(t(cont)), KeptGraphTensor::How::Append, reported, consumed, &held);
                  continue;
                }
                if (attached(val, s, att) && container_outside(cont, s, loop))
                  kept(n, val, std::string(t(cont)), KeptGraphTensor::How::Append, reported, consumed);
                // The list now holds an attached tensor: what is computed from it
                // (`sum(train_loss_list) / n`) is attached too.
                if (attached(val, s, att) && is(unparen(cont), "identifier") && !under_no_grad(ch))
                  att.holding.insert(std::string(t(unparen(cont))));
              }
            }
          }
          return;
        }
        // `for prediction in pred:` over an attached tensor: iterating a tensor unbinds it along
        // dim 0 (Tensor.__iter__, torch/_tensor.py), and each row records a grad_fn.
        if (ty == "for_statement") {
          TSNode left = unparen(field(n, "left"));
          if (is(left, "identifier")) {
            std::string name(t(left));
            TSNode right = unparen(field(n, "right"));
            if (!under_no_grad(n) && (is(right, "identifier") || is(right, "attribute")) && attached(right, s, att))
              att.insert(name);
            else
              att.erase(name);
          }
        }
        for (auto ch : named_children(n)) walk(ch);
      };
      walk(field(loop, "body"));
    }
  }

  // `reconstruct[1] = decoder(code)` or `code_dict[cls] = encoder(x)` where `cls` runs over
  // `range(...)` in a loop inside `loop` around the store: every iteration of `loop` stores
  // under the same keys, replacing the previous iteration's tensors, so nothing accumulates.
  // True for a literal key, or a name that a `for ... in range(...)` loop inside `loop` and
  // around the store binds (that loop's binding is the one the store sees).
  bool key_repeats_each_iteration(TSNode key, const Scope* s, TSNode loop) const {
    key = unparen(key);
    if (is(key, "integer") || is(key, "string")) return true;
    if (!is(key, "identifier")) return false;
    const auto* bs = m_.lookup(t(key), s);
    if (!bs) return false;
    for (const auto& b : *bs) {
      if (b.kind != Binding::Kind::For || !is(b.stmt, "for_statement")) continue;
      if (same(b.stmt, loop) || !contains(loop, b.stmt) || !contains(field(b.stmt, "body"), key)) continue;
      if (iterates_range(b.stmt)) return true;
    }
    return false;
  }

  bool mentions(TSNode e, const std::string& name) const { return mentions_identifier(e, name, src_); }
  // `for i in range(...)`.
  bool iterates_range(TSNode for_stmt) const {
    if (!is(for_stmt, "for_statement")) return false;
    TSNode it = unparen(field(for_stmt, "right"));
    if (!is(it, "call")) return false;
    const auto& q = m_.callee_name(it, m_.scope_of(it));
    return q && *q == "builtins.range";
  }

  bool container_outside(TSNode cont, const Scope* s, TSNode loop) const {
    cont = unparen(cont);
    // `history["train"].append(loss)`: an entry of a container that outlives the iteration.
    for (int i = 0; i < 8 && is(cont, "subscript"); ++i) cont = unparen(field(cont, "value"));
    if (is(cont, "identifier")) return bound_outside_only(t(cont), s, loop, TSNode{});
    if (is(cont, "attribute")) {
      TSNode o = unparen(field(cont, "object"));
      if (!m_.is_instance_parameter(o, s)) return false;
      // self.x: reassigned (or emptied with `.clear()`) on every pass through the loop? then it
      // does not outlive an iteration.
      bool rebound = false;
      visit(field(loop, "body"), [&](TSNode n) {
        if (is(n, "assignment") && t(unparen(field(n, "left"))) == t(cont)) rebound = true;
        if (is(n, "call") && method_name(n, src_) == "clear" && t(unparen(receiver(n))) == t(cont) &&
            !conditional_in_loop(n, loop))
          rebound = true;
      });
      return !rebound;
    }
    return false;
  }

  // `held`, when given: the attached elements of a tuple `value`, each detached by the fix.
  void kept(TSNode stmt, TSNode value, const std::string& container, KeptGraphTensor::How how,
            std::set<uint32_t>& reported, const std::set<std::string>& consumed,
            const std::vector<TSNode>* held = nullptr) {
    std::string root = container.substr(0, container.find_first_of(".["));
    if (container.rfind("self.", 0) == 0) root = container;
    if (consumed.count(root) || consumed.count(root + "#backward")) return;
    if (TSNode region = no_grad_region(stmt); !is_null(region)) {
      // With autograd off, `total += loss` computes a new tensor without a graph, and so does
      // any expression: only an attached tensor stored as it is (a bare name: `losses.append(
      // loss)` inside `with torch.inference_mode():`) still holds its graph — when the binding
      // that reaches the store was made outside the region (a dominating one decides; without
      // one, every binding must be outside).
      if (how == KeptGraphTensor::How::AugmentedAssign || how == KeptGraphTensor::How::Concatenate) return;
      auto keeps_graph = [&](TSNode e) {
        e = unparen(e);
        if (!is(e, "identifier")) return false;
        const auto* bs = m_.lookup(t(e), m_.scope_of(e));
        if (!bs || bs->empty()) return false;
        const Binding* dom = nullptr;
        for (const auto& b : *bs)
          if (b.kind == Binding::Kind::Assign && m_.dominates(b.stmt, stmt) && (!dom || start(b.stmt) > start(dom->stmt)))
            dom = &b;
        if (dom) return !contains(region, dom->stmt);
        for (const auto& b : *bs)
          if (is_null(b.target) || contains(region, b.target)) return false;
        return true;
      };
      bool any = false;
      if (held) {
        for (TSNode el : *held) any = any || keeps_graph(el);
      } else {
        any = keeps_graph(value);
      }
      if (!any) return;
    }
    if (reported.count(start(stmt))) return;
    reported.insert(start(stmt));
    KeptGraphTensor k;
    k.statement = {start(stmt), end(stmt)};
    TSNode v = unparen(value);
    k.kept = {start(value), end(value)};
    k.container = container;
    k.how = how;
    if (held) {
      for (TSNode el : *held) {
        TSNode u = unparen(el);
        if (is(u, "identifier") || is(u, "attribute") || is(u, "call") || is(u, "subscript")) {
          k.fix.push_back({end(el), end(el), ".detach()"});
        } else {
          k.fix.push_back({start(el), start(el), "("});
          k.fix.push_back({end(el), end(el), ").detach()"});
        }
      }
    } else if (is(v, "identifier") || is(v, "attribute") || is(v, "call") || is(v, "subscript")) {
      k.fix.push_back({end(value), end(value), ".detach()"});
    } else {
      k.fix.push_back({start(value), start(value), "("});
      k.fix.push_back({end(value), end(value), ").detach()"});
    }
    facts_.kept_tensors.push_back(std::move(k));
  }

  // ---- DEV003 -----------------------------------------------------------------------
  // A tensor freshly allocated on the host by `e`: a factory call without device= or a legacy
  // typed constructor, possibly through kHostTransforms methods, kHostTransformFunctions or a
  // comparison with a number (`torch.triu(torch.ones(n, n) == 1).transpose(0, 1)`). Sets
  // `factory` to the allocating call. False for anything else (unknown stays silent).
  // The factory of a DEV003 finding: its qualified name (or its text), whether it is a legacy
  // typed constructor, and then what its arguments are. `torch.FloatTensor(2, 3)` of integers
  // allocates an uninitialised tensor of that shape; `torch.FloatTensor([1, 2])` of a sequence
  // copies the data (torch/csrc/utils/tensor_new.cpp, legacy_tensor_generic_ctor_new: the
  // `(SymIntArrayRef size)` and `(PyObject* data)` overloads).
  // True when every value gpulint can evaluate for `e` is a number (an int when `ints_only`),
  // and there is at least one: `0`, `-1.5`, a module constant, an argparse default.
  bool evaluates_to_numbers(TSNode e, const Scope* s, bool ints_only = false) const {
    auto vs = m_.evaluate(e, s);
    if (vs.empty()) return false;
    for (const auto& v : vs)
      if (v.kind != Value::Kind::Int && (ints_only || v.kind != Value::Kind::Float)) return false;
    return true;
  }

  // An array a NumPy function returns (`np.array(x)`, `np.stack(xs).astype(np.float32)`):
  // host data, whatever it was made from.
  bool numpy_array(TSNode e, const Scope* s) const {
    TSNode d = unparen(e);
    for (int i = 0; i < 4 && is(d, "call") && method_name(d, src_) == "astype" && !is_null(receiver(d)); ++i)
      d = unparen(receiver(d));
    if (!is(d, "call")) return false;
    const auto& q = m_.callee_name(d, s);
    return q && starts_with(*q, "numpy.");
  }
  // `converts_data`: the creation converts the host data a name held (converts_own_host_value).
  void describe_factory(CreatedThenMoved& f, TSNode factory, const Scope* s, bool converts_data = false) const {
    const auto& q = m_.callee_name(factory, s);
    f.factory_call = {start(factory), end(factory)};
    f.factory = q ? *q : std::string(t(field(factory, "function")));
    f.legacy_constructor = q && host_legacy_constructor(*q);
    f.from_data = converts_data || (q && *q == "torch.tensor");
    if (!f.legacy_constructor) return;
    if (converts_data) {
      f.legacy_arguments = CreatedThenMoved::LegacyArguments::Data;
      return;
    }
    auto a = positional_arguments(factory);
    if (a.size() != call_arguments(factory).size()) return;  // keywords, splats: Unknown
    bool sizes = true;
    for (TSNode x : a) sizes = sizes && evaluates_to_numbers(x, s, /*ints_only=*/true);
    if (sizes) {
      f.legacy_arguments = CreatedThenMoved::LegacyArguments::Sizes;
    } else if (a.size() == 1) {
      TSNode d = unparen(a[0]);
      if (is(d, "list") || is(d, "tuple") || is(d, "list_comprehension") || numpy_array(d, s)) {
        f.legacy_arguments = CreatedThenMoved::LegacyArguments::Data;
        f.from_data = true;
      }
    }
  }

  bool host_creation(TSNode e, const Scope* s, TSNode& factory, int depth = 0) const {
    if (depth > 16) return false;
    e = unparen(e);
    // `.type(torch.FloatTensor)`: a cast to a CPU tensor type keeps the tensor on the host
    // (Tensor.type docs: "Returns the type if dtype is not provided, else casts this object to
    // the specified type"; the legacy CPU types are torch/__init__.py's).
    auto host_type_cast = [&](TSNode c) {
      if (method_name(c, src_) != "type") return false;
      auto a = positional_arguments(c);
      if (a.size() != 1 || call_arguments(c).size() != 1) return false;
      const auto& tq = m_.qualified_name(a[0], s);
      return tq && host_legacy_constructor(*tq);
    };
    // An in-place fill with numbers (`torch.FloatTensor(n).fill_(0)`, `.uniform_(-1, 1)`)
    // returns the tensor itself and does the same on the device.
    auto numeric_fill = [&](TSNode c) {
      std::string_view fm = method_name(c, src_);
      if (!kNumericFills.count(fm)) return false;
      // The random fills take Python numbers only (Tensor.normal_(mean=0, std=1, *, generator),
      // uniform_(from, to), ...): whatever their arguments, the tensor stays where it is.
      if (fm != "fill_" && fm != "bernoulli_") return true;
      for (auto a : call_arguments(c)) {
        TSNode v = is(a, "keyword_argument") ? field(a, "value") : a;
        if (is(v, "list_splat") || is(v, "dictionary_splat") || !evaluates_to_numbers(v, s)) return false;
      }
      return true;
    };
    // `.to(torch.float)` / `.to(dtype=torch.float64)`: a dtype cast, on the host for a host tensor.
    auto dtype_cast = [&](TSNode c) {
      if (method_name(c, src_) != "to") return false;
      auto args = call_arguments(c);
      if (args.size() != 1) return false;
      TSNode v = args[0];
      if (is(v, "keyword_argument")) {
        if (t(field(v, "name")) != "dtype") return false;
        v = field(v, "value");
      }
      const auto& dq = m_.qualified_name(v, s);
      return dq && kTorchDtypes.count(*dq) > 0;
    };
    // `.requires_grad_()` sets a flag in place and returns the tensor itself.
    auto grad_flag = [&](TSNode c) {
      if (method_name(c, src_) != "requires_grad_") return false;
      for (auto a : call_arguments(c)) {
        TSNode v = is(a, "keyword_argument") ? field(a, "value") : a;
        if (!is(v, "true") && !is(v, "false")) return false;
      }
      return true;
    };
    for (int i = 0; i < 32 && is(e, "call") &&
                    (kHostTransforms.count(method_name(e, src_)) || host_type_cast(e) || numeric_fill(e) ||
                     dtype_cast(e) || grad_flag(e));
         ++i) {
      const auto& fq = m_.callee_name(e, s);  // `torch.triu(x)` is a function, not a method of `torch`
      if (fq && starts_with(*fq, "torch.")) break;
      TSNode r = receiver(e);
      if (is_null(r)) return false;
      e = unparen(r);
      // `torch.FloatTensor(a).data.normal_(0, s)`: `.data` is the same host storage.
      if (is(e, "attribute") && t(field(e, "attribute")) == "data") e = unparen(field(e, "object"));
    }
    if (is(e, "comparison_operator")) {
      auto ops = named_children(e);
      if (ops.size() != 2) return false;
      auto number = [](TSNode n) { n = unparen(n); return is(n, "integer") || is(n, "float"); };
      if (number(ops[1])) return host_creation(ops[0], s, factory, depth + 1);
      if (number(ops[0])) return host_creation(ops[1], s, factory, depth + 1);
      return false;
    }
    // `torch.randn(b, 1, 28, 28) * std`, `torch.zeros(n) + label`: arithmetic on the host
    // tensor with a number or a host value (a GPU tensor beside a CPU one raises, unless it is a
    // 0-dim scalar), still on the host. Only the left operand is followed (`0.1 * torch.randn(n)`
    // is rare); host_arithmetic_operand tells whether a fix may create the factory on the device.
    if (is(e, "binary_operator")) {
      std::string_view op = t(field(e, "operator"));
      if (op != "*" && op != "/" && op != "+" && op != "-") return false;
      return host_creation(field(e, "left"), s, factory, depth + 1);
    }
    if (!is(e, "call")) return false;
    const auto& q = m_.callee_name(e, s);
    if (!q) return false;
    if (TSNode w = variable_wrapped(e, s); !is_null(w)) return host_creation(w, s, factory, depth + 1);
    // torch.normal(mean, std, size): with numbers for mean and std it is a factory (the
    // `normal(float mean, float std, SymInt[] size, *, ..., Device? device=None)` overload of
    // native_functions.yaml); with tensors it samples on their device.
    bool normal_factory = false;
    if (*q == "torch.normal") {
      auto a = positional_arguments(e);
      bool sized = a.size() >= 3 || !is_null(keyword_arg(e, "size", src_));
      normal_factory = sized && a.size() >= 2 && evaluates_to_numbers(a[0], s) && evaluates_to_numbers(a[1], s);
    }
    if (kFactories.count(*q) || host_legacy_constructor(*q) || normal_factory) {
      if (!is_null(keyword_arg(e, "device", src_))) return false;
      // torch.tensor(t) of a tensor copies it on t's device (torch/_torch_docs.py, torch.tensor:
      // "device ... if None and data is a tensor then the device of data is used"): of a model's
      // output or a tensor already on the accelerator it is no host creation.
      if (*q == "torch.tensor") {
        auto a = positional_arguments(e);
        if (!a.empty() && may_be_accelerator_tensor(a[0], s)) return false;
      }
      factory = e;
      return true;
    }
    // torch.normal(mean, std) with a tensor mean samples on the mean's device
    // (native_functions.yaml: `normal.Tensor_float(Tensor mean, float std=1, ...)`).
    if (kHostTransformFunctions.count(*q) || (*q == "torch.normal" && !normal_factory)) {
      if (!is_null(keyword_arg(e, "out", src_))) return false;
      auto a = positional_arguments(e);
      return !a.empty() && host_creation(a[0], s, factory, depth + 1);
    }
    return false;
  }

  // `torch.Tensor(images[0])`, `torch.FloatTensor(batch)` where the data is (an element of) a
  // batch a DataLoader loop yields: the batch is already a tensor, and a legacy constructor given
  // a tensor of its type returns that tensor (torch/csrc/utils/tensor_new.cpp,
  // legacy_tensor_generic_ctor_new: "new(Tensor other)" aliases it) — no host creation.
  bool loader_batch_alias(TSNode factory, const Scope* s) {
    const auto& q = m_.callee_name(factory, s);
    if (!q || !host_legacy_constructor(*q)) return false;
    auto a = positional_arguments(factory);
    if (a.size() != 1 || call_arguments(factory).size() != 1) return false;
    TSNode root = root_identifier(a[0]);
    if (is_null(root) || is(unparen(a[0]), "call")) return false;
    const auto* bs = m_.lookup(t(root), m_.scope_of(factory));
    if (!bs) return false;
    for (const Binding& b : *bs) {
      if (b.kind != Binding::Kind::For) continue;
      for (const auto& [loop, indices] : loader_loops())
        if (same(loop, b.stmt)) return true;
    }
    return false;
  }

  // True when the creation expression `e` (as host_creation read it down to `factory`) does
  // arithmetic with an operand that is not known to be numbers (`torch.randn(n) * std` with `std`
  // a host tensor): created on the device, the factory would meet that host operand, so no fix.
  bool host_arithmetic_operand(TSNode e, TSNode factory, const Scope* s) const {
    for (int i = 0; i < 32; ++i) {
      e = unparen(e);
      if (is_null(e) || same(e, factory)) return false;
      if (is(e, "binary_operator")) {
        if (!evaluates_to_numbers(field(e, "right"), s)) return true;
        e = field(e, "left");
      } else if (is(e, "call") && !is_null(receiver(e))) {
        e = receiver(e);
      } else if (TSNode w = variable_wrapped(e, s); !is_null(w)) {
        e = w;
      } else {
        return false;
      }
    }
    return false;
  }

  // True when `e` may be a tensor on the accelerator: (an element, attribute or slice of) the
  // output of one of the file's models, which is on the model's device — names followed through
  // every assignment, unpacking included (`y1, y2 = model(x1, x2)`) —, or placed there by
  // tensor_where: an expression, or a name through the one assignment that gives it its value
  // (straight_line_value). Not through every binding of the name: `x = torch.tensor(x).cuda()`
  // in a loop would count its own result.
  bool may_be_accelerator_tensor(TSNode e, const Scope* s) const {
    TSNode direct = unparen(e);
    // `x.reshape(1, -1)`, `x.float()`: on the tensor's own device — read through to the name,
    // so that `x = torch.tensor(x.reshape(1, -1)).cuda()` does not count its own result either.
    for (int i = 0; i < 8 && is(direct, "call") && !is_null(receiver(direct)) &&
                    kSameDeviceMethods.count(method_name(direct, src_));
         ++i)
      direct = unparen(receiver(direct));
    if (is(direct, "identifier")) direct = straight_line_value(direct, s);
    if (!is_null(direct) && tensor_where(direct, s) == Where::Accelerator) return true;
    auto strip = [](TSNode n) {
      for (int i = 0; i < 16; ++i) {
        n = unparen(n);
        if (is(n, "subscript")) n = field(n, "value");
        else if (is(n, "attribute")) n = field(n, "object");
        else break;
      }
      return n;
    };
    auto model_output = [&](TSNode n, const Scope* sc) {
      n = strip(n);
      return is(n, "call") && model_for_callee(field(n, "function"), sc) != nullptr;
    };
    e = strip(e);
    if (model_output(e, s)) return true;
    if (!is(e, "identifier")) return false;
    const Scope* fs = nullptr;
    const auto* bs = m_.lookup(t(e), s, &fs);
    if (!bs) return false;
    for (const Binding& b : *bs)
      if (b.kind == Binding::Kind::Assign && !is_null(b.value) && model_output(b.value, fs)) return true;
    return false;
  }

  // `x = x.float().masked_fill(x == 0, v)`, `x = x[:, -k:]`: the name transformed into itself out
  // of place, keeping its device.
  bool transform_of_name(TSNode e, std::string_view name) const {
    e = unparen(e);
    int steps = 0;
    for (; steps < 32 && is(e, "call"); ++steps) {
      // `y_real = Variable(y_real)`: the tensor itself (variable_wrapped).
      if (TSNode inner = variable_wrapped(e, m_.scope_of(e)); !is_null(inner)) {
        e = inner;
        continue;
      }
      if (!kHostTransforms.count(method_name(e, src_))) break;
      TSNode r = receiver(e);
      if (is_null(r)) return false;
      e = unparen(r);
    }
    // Indexing and slicing give a view of the same (host) tensor (`obs = obs[:, -k:]`); a name
    // bound to itself (`actions = actions`) changes nothing.
    for (; steps < 32 && is(e, "subscript"); ++steps) e = unparen(field(e, "value"));
    return is(e, "identifier") && t(e) == name;
  }

  // The truth of `cond` on the runs gpulint's findings are about, those that train on a CUDA
  // device: there `torch.cuda.is_available()` is true (torch/cuda/__init__.py, is_available:
  // "Return a bool indicating if CUDA is currently available"), and so is a name or parameter
  // every origin of which is such a condition (`cuda = torch.cuda.is_available()`,
  // `train(use_gpu=torch.cuda.is_available())`), and `not` / `and` / `or` of them; any other
  // condition as constant_truth decides it (through evaluate: the file's call sites). Sets
  // `*assumes_gpu` when the answer relies on CUDA being available (a fix must then not make
  // the code need CUDA on the runs where it is not). nullopt: it depends on the run otherwise.
  std::optional<bool> truth_on_gpu(TSNode cond, const Scope* s, bool* assumes_gpu, int depth = 0) const {
    cond = unparen(cond);
    if (is_null(cond) || depth > 8) return std::nullopt;
    if (auto v = placement_condition_truth(cond)) {
      if (assumes_gpu) *assumes_gpu = true;
      return v;
    }
    if (is(cond, "not_operator")) {
      auto v = truth_on_gpu(field(cond, "argument"), s, assumes_gpu, depth + 1);
      if (v) return !*v;
      return std::nullopt;
    }
    if (is(cond, "boolean_operator")) {
      bool is_and = t(field(cond, "operator")) == "and";
      auto l = truth_on_gpu(field(cond, "left"), s, assumes_gpu, depth + 1);
      auto r = truth_on_gpu(field(cond, "right"), s, assumes_gpu, depth + 1);
      // `a and b` is false when either is, true when both are; `or` the other way round.
      if (is_and && ((l && !*l) || (r && !*r))) return false;
      if (!is_and && ((l && *l) || (r && *r))) return true;
      if (l && r) return is_and ? (*l && *r) : (*l || *r);
      return std::nullopt;
    }
    if (is(cond, "conditional_expression")) {
      // `True if use_gpu and torch.cuda.is_available() else False`: the side its condition
      // picks, or the truth both sides share.
      auto parts = conditional_parts(cond);
      if (!parts) return std::nullopt;
      bool assumed = false;
      auto c = truth_on_gpu(parts->condition, s, &assumed, depth + 1);
      auto a = truth_on_gpu(parts->value, s, assumes_gpu, depth + 1);
      auto b = truth_on_gpu(parts->otherwise, s, assumes_gpu, depth + 1);
      if (c) {
        if (assumed && assumes_gpu) *assumes_gpu = true;
        return *c ? a : b;
      }
      if (a && b && *a == *b) return a;
      return std::nullopt;
    }
    if (is(cond, "call")) {
      const auto& q = m_.callee_name(cond, s);
      if (q && *q == "torch.cuda.is_available" && call_arguments(cond).empty()) {
        if (assumes_gpu) *assumes_gpu = true;
        return true;
      }
      return std::nullopt;
    }
    if (is(cond, "attribute") && t(field(cond, "attribute")) == "is_cuda" && in_module_forward(cond) &&
        module_runs_on_gpu_when_cuda(unparen(field(cond, "object")))) {
      if (assumes_gpu) *assumes_gpu = true;
      return true;
    }
    if (is(cond, "identifier")) {
      // Every origin decided alike (one that is the name itself: an unbound global, undecided).
      std::optional<bool> r;
      for (const Origin& o : m_.origins(cond, s)) {
        auto v = same(unparen(o.node), cond) ? std::nullopt : truth_on_gpu(o.node, o.scope, assumes_gpu, depth + 1);
        if (!v || (r && *r != *v)) { r.reset(); break; }
        r = v;
      }
      if (r) return r;
    }
    return constant_truth(cond, s, 0, /*literals_only=*/false);
  }

  // `.to(self.device)` where the function holding it calls a model that the file placed with
  // `.to(self.device)` too (the same expression, names bound alike: same_condition), in a file
  // that means to use CUDA (gpu_intent_): `self.device` is a constructor parameter whose value
  // gpulint cannot see, but on every run that trains that model on the GPU it is the GPU, so the
  // move is a copy to the GPU there. (A device only a parameter names, with no such model
  // placement beside it, stays undecided.)
  bool trained_model_device(TSNode dev) const {
    dev = unparen(dev);
    if (!gpu_intent_ || (!is(dev, "identifier") && !is(dev, "attribute"))) return false;
    const auto& called = models_called_in(enclosing_function(dev));
    for (const ModelInfo* mi : called)
      for (TSNode pd : mi->placement_devices)
        if (same_condition(dev, pd)) return true;
    return false;
  }

  // `if self.use_gpu: self.net = Net().cuda()` / `else: self.net = Net()`: model `mi` is created
  // on the side of a condition whose other side places another model of the file on CUDA (every
  // CUDA placement of it under that condition with the opposite truth) — the CPU run's model,
  // not a model a GPU run forgot to move.
  bool cpu_alternative(const ModelInfo& mi) const {
    if (is_null(mi.origin)) return false;
    auto g = innermost_guard(mi.origin);
    if (!g) return false;
    for (const ModelInfo& other : models_) {
      if (&other == &mi || !other.on_cuda || other.cuda_placements.empty()) continue;
      bool all = true;
      for (TSNode call : other.cuda_placements) {
        auto og = innermost_guard(call);
        if (!og || og->truth == g->truth || !same_condition(og->cond, g->cond)) { all = false; break; }
      }
      if (all) return true;
    }
    return false;
  }

  // A condition that decides whether a model the file trains goes to CUDA: every CUDA placement
  // of that model sits under it, with the same truth (`if not args.use_cpu: classifier =
  // classifier.cuda()`, `if self.use_cuda: self.G.cuda()`, `Net().cuda() if gpu else Net()`, the
  // else of `if args.cpu:`). A run that trains on CUDA took that side, so the condition has that
  // truth on every such run, whatever a command line or a caller sets it to.
  struct PlacementCondition {
    TSNode cond;
    bool truth;
    const ModelInfo* model = nullptr;  // the model it places
  };
  // The innermost condition guarding `n` inside its function (an `if` / `elif` whose body holds
  // it, the `if` of an `else` holding it, a conditional expression's condition) and the truth
  // it needs; nullopt when none does.
  std::optional<PlacementCondition> innermost_guard(TSNode n) const {
    for (TSNode child = n, p = m_.parent(n); !is_null(p); child = p, p = m_.parent(p)) {
      if (is_def(p) || is(p, "lambda") || is(p, "module")) return std::nullopt;
      if (is(p, "if_statement") || is(p, "elif_clause")) {
        if (same(child, field(p, "consequence"))) return PlacementCondition{unparen(field(p, "condition")), true};
        if (is(child, "else_clause") && is(p, "if_statement") && named_children(p).size() == 3)
          return PlacementCondition{unparen(field(p, "condition")), false};  // `if c: ... else: ...` only
        if (!same(child, field(p, "condition"))) return std::nullopt;  // under an elif/else of several
      }
      if (is(p, "conditional_expression")) {
        auto parts = conditional_parts(p);
        if (!parts) return std::nullopt;
        if (same(child, parts->value)) return PlacementCondition{unparen(parts->condition), true};
        if (same(child, parts->otherwise)) return PlacementCondition{unparen(parts->condition), false};
      }
    }
    return std::nullopt;
  }
  // (Memoised: asked only once find_models has built every model, as callee_models is.)
  const std::vector<PlacementCondition>& placement_conditions() const {
    static const std::vector<PlacementCondition> kNoneYet;
    if (!models_final_) return kNoneYet;
    if (placement_conditions_) return *placement_conditions_;
    placement_conditions_.emplace();
    // The placements of one model, grouped by the class whose methods make them (`self.net`
    // of two agent classes in one file is one model by name): a group whose placements all sit
    // under one condition gives it — for every group when it reads the instance (`if
    // self.args.cuda:` holds the same in every method of that class only), else only when
    // the model has that one group.
    for (const ModelInfo& mi : models_) {
      if (!mi.on_cuda || mi.cuda_placements.empty()) continue;
      std::vector<std::pair<const void*, std::vector<TSNode>>> groups;
      for (TSNode call : mi.cuda_placements) {
        TSNode fn = enclosing_function(call);
        TSNode cls = is_null(fn) ? TSNode{} : enclosing_class(fn);
        const void* key = is_null(cls) ? nullptr : cls.id;
        auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
        if (it == groups.end()) groups.push_back({key, {call}});
        else it->second.push_back(call);
      }
      for (const auto& [key, calls] : groups) {
        std::optional<PlacementCondition> first;
        bool all = true;
        for (TSNode call : calls) {
          auto g = innermost_guard(call);
          if (!g || (first && (first->truth != g->truth || !same_condition(first->cond, g->cond)))) {
            all = false;
            break;
          }
          if (!first) first = g;
        }
        if (!all || !first || (groups.size() > 1 && !reads_instance(first->cond))) continue;
        first->model = &mi;
        placement_conditions_->push_back(*first);
      }
    }
    return *placement_conditions_;
  }
  mutable std::optional<std::vector<PlacementCondition>> placement_conditions_;
  // The truth `cond` has on every run that trains on CUDA when it is the placement condition
  // (placement_conditions) of a model that the function holding `cond` calls — that function's
  // GPU runs are those of that model (`train_twice()` of a file whose `train_encoder()` places
  // its encoder under `args.cuda` says nothing about `train_twice()`'s runs); nullopt otherwise.
  std::optional<bool> placement_condition_truth(TSNode cond) const {
    if (!is(cond, "identifier") && !is(cond, "attribute") && !is(cond, "not_operator") &&
        !is(cond, "comparison_operator") && !is(cond, "boolean_operator"))
      return std::nullopt;
    const auto& pcs = placement_conditions();
    if (pcs.empty()) return std::nullopt;
    const auto& called = models_called_in(enclosing_function(cond));
    // A condition on the instance (`if self.args.cuda:`) that a method of the same class placed
    // a model under reads the same object's state: it has that truth on the instance's GPU runs
    // in every method of the class (same_condition matches `self` only within one class).
    bool on_instance = reads_instance(cond);
    for (const PlacementCondition& pc : pcs)
      if ((called.count(pc.model) || on_instance) && same_condition(cond, pc.cond)) return pc.truth;
    return std::nullopt;
  }
  // The models that calls in function `def` (module-level code for a null `def`) compute with:
  // callee_models of every call's callee. Memoised per function.
  // (One pass over the file's calls fills the map for every function on first use.)
  const std::set<const ModelInfo*>& models_called_in(TSNode def) const {
    static const std::set<const ModelInfo*> kNone;
    if (!models_final_) return kNone;
    if (!models_called_in_) {
      models_called_in_.emplace();
      for (TSNode c : m_.calls()) {
        TSNode fn = enclosing_function(c);
        auto& set = (*models_called_in_)[is_null(fn) ? nullptr : fn.id];
        for (const ModelInfo* mi : callee_models(field(c, "function"), m_.scope_of(c)).models) set.insert(mi);
      }
    }
    auto it = models_called_in_->find(is_null(def) ? nullptr : def.id);
    return it == models_called_in_->end() ? kNone : it->second;
  }
  mutable std::optional<std::unordered_map<const void*, std::set<const ModelInfo*>>> models_called_in_;
  // Two conditions that read the same values: the same expression (same_expression) whose
  // names resolve to the same bindings — a name found in the same scope, or the instance
  // parameter (`self`) of methods of the same class. Attribute names and literals are compared
  // as spelled.
  bool same_condition(TSNode a, TSNode b) const {
    if (!same_expression(a, b)) return false;
    std::vector<TSNode> ia, ib;
    auto names = [&](TSNode root, std::vector<TSNode>& out) {
      visit(root, [&](TSNode n) {
        if (!is(n, "identifier")) return;
        TSNode p = m_.parent(n);
        if (is(p, "attribute") && same(field(p, "attribute"), n)) return;
        if (is(p, "keyword_argument") && same(field(p, "name"), n)) return;
        out.push_back(n);
      });
    };
    names(a, ia);
    names(b, ib);
    if (ia.size() != ib.size()) return false;
    for (std::size_t i = 0; i < ia.size(); ++i) {
      const Scope* sa = m_.scope_of(ia[i]);
      const Scope* sb = m_.scope_of(ib[i]);
      if (m_.is_instance_parameter(ia[i], sa) || m_.is_instance_parameter(ib[i], sb)) {
        if (!m_.is_instance_parameter(ia[i], sa) || !m_.is_instance_parameter(ib[i], sb)) return false;
        TSNode ca = enclosing_class(enclosing_function(ia[i])), cb = enclosing_class(enclosing_function(ib[i]));
        if (is_null(ca) || !same(ca, cb)) return false;
        continue;
      }
      const Scope* fa = nullptr;
      const Scope* fb = nullptr;
      if (!m_.lookup(t(ia[i]), sa, &fa) || !m_.lookup(t(ib[i]), sb, &fb) || fa != fb) return false;
    }
    return true;
  }

  // In an nn.Module's forward(): `next(self.parameters()).is_cuda` and `x.is_cuda` of one of
  // forward's tensor parameters are true on every run where the module computes on the GPU —
  // its parameters are there, and so must its inputs be (a CUDA module given CPU inputs
  // raises). The runs gpulint's findings are about are those.
  bool module_runs_on_gpu_when_cuda(TSNode obj) const {
    if (is(obj, "call")) {  // next(self.parameters())
      TSNode r = parameters_owner(obj, m_.scope_of(obj));
      return is(r, "identifier") && m_.is_instance_parameter(r, m_.scope_of(r));
    }
    if (!is(obj, "identifier") || m_.is_instance_parameter(obj, m_.scope_of(obj))) return false;
    const auto* bs = m_.lookup(t(obj), m_.scope_of(obj));
    if (!bs || !is_null(innermost_loop(obj))) return false;
    // The parameter itself: every other binding of the name comes after this read.
    bool param = false;
    for (const Binding& b : *bs) {
      if (b.kind == Binding::Kind::Param) param = true;
      else if (is_null(b.stmt) || start(b.stmt) < end(obj)) return false;
    }
    return param;
  }

  // True when the move `move`, inside statement `stmt`, runs whenever `stmt` runs on a run
  // that trains on a CUDA device: every `a if c else b` on the way has a condition that
  // truth_on_gpu decides for the move's side (`use_gpu=True` never passed False, `cuda =
  // torch.cuda.is_available()`; `*assumes_gpu` is set when that took CUDA being available).
  // Any other way to skip it (`and`/`or`, a lambda, a comprehension) or an undecidable
  // condition: false.
  bool move_unconditional(TSNode move, TSNode stmt, const Scope* s, bool* assumes_gpu = nullptr) const {
    TSNode child = move;
    for (TSNode p = m_.parent(move); !is_null(p) && !same(child, stmt); child = p, p = m_.parent(p)) {
      if (is(p, "boolean_operator") || is(p, "lambda") || is(p, "list_comprehension") ||
          is(p, "generator_expression") || is(p, "dictionary_comprehension") ||
          is(p, "set_comprehension"))
        return false;
      if (!is(p, "conditional_expression")) continue;
      auto parts = conditional_parts(p);
      if (!parts || same(child, parts->condition)) return false;
      auto truth = truth_on_gpu(parts->condition, s, assumes_gpu);
      if (!truth || *truth != same(child, parts->value)) return false;
    }
    return true;
  }

  // `X.device` for an X that is on an accelerator whenever the file runs on one: an Accelerate
  // `Accelerator` / Lightning `Fabric` (their `device` is the device they run on:
  // accelerate/accelerator.py, Accelerator.device), a tensor that tensor_where places there, or
  // a batch (or an entry of one) drawn from a loader that `accelerator.prepare` returned, whose
  // batches arrive on that device (accelerate/data_loader.py, DataLoaderShard: "put on the
  // right device"). A tensor created beside it with `device=X.device` is where the copy
  // would have put it, on every run.
  bool accelerator_device(TSNode dev, const Scope* s, int depth = 0) const {
    dev = unparen(dev);
    if (depth > 4) return false;
    // `device = policy.device` (then `.to(device)`, also through a helper's parameter): every
    // origin of the name is such a device.
    if (is(dev, "identifier")) {
      auto os = m_.origins(dev, s);
      return !os.empty() && std::all_of(os.begin(), os.end(), [&](const Origin& o) {
        return is(unparen(o.node), "attribute") && accelerator_device(o.node, o.scope, depth + 1);
      });
    }
    if (!is(dev, "attribute") || t(field(dev, "attribute")) != "device") return false;
    TSNode x = unparen(field(dev, "object"));
    if (framework_object(x, s)) return true;
    // `model.device` of a model the file places on CUDA (PreTrainedModel.device, or the
    // module's own `device` property: where its parameters are), also as a parameter whose
    // callers pass it.
    if ((is(x, "identifier") || is(x, "attribute")) && cuda_model_for_callee(x, s)) return true;
    // `next(model.parameters()).device`: where the model's parameters are.
    if (TSNode owner = parameters_owner(x, s); (is(owner, "identifier") || is(owner, "attribute")) &&
                                                  cuda_model_for_callee(owner, s))
      return true;
    // A tensor of this function (not a parameter: a helper written to follow whatever its
    // caller passes stays device-agnostic, and is left alone).
    TSNode root = root_identifier(x);
    if (is_null(root)) return false;
    if (const auto* bs = m_.lookup(t(root), s))
      for (const Binding& b : *bs)
        if (b.kind == Binding::Kind::Param) return forward_input_of_cuda_module(b);
    if (is_tensor_expression(x, s) && tensor_where(x, s) == Where::Accelerator) return true;
    return prepared_batch(x, s, depth);
  }
  // True when parameter binding `b` is an input (not `self`) of the `forward()` of a class of
  // the file an instance of which the file trains on CUDA (`ddpm = DDPM(...)`, `ddpm.to(device)`):
  // its inputs are on the module's device, or PyTorch raises "Expected all tensors to be on the
  // same device" (DEV002's fact), so `torch.randint(...).to(x.device)` in that forward is a copy.
  bool forward_input_of_cuda_module(const Binding& b) const {
    if (b.kind != Binding::Kind::Param || b.param_index < 1 || !is(b.function, "function_definition") ||
        t(field(b.function, "name")) != "forward")
      return false;
    TSNode cls = enclosing_class(b.function);
    if (is_null(cls)) return false;
    for (const ModelInfo& mi : models_)
      if (mi.on_cuda && is(mi.origin, "call") && same(local_class(mi.origin, m_.scope_of(mi.origin)), cls)) return true;
    return false;
  }

  // True when every origin of `x` is an Accelerate `Accelerator(...)` or a Lightning
  // `Fabric(...)`.
  bool framework_object(TSNode x, const Scope* s) const {
    auto os = m_.origins(unparen(x), s);
    return !os.empty() && std::all_of(os.begin(), os.end(), [&](const Origin& o) {
      if (!is(o.node, "call")) return false;
      const auto& q = m_.callee_name(o.node, o.scope);
      return q && (*q == "accelerate.Accelerator" || *q == "lightning.Fabric" || *q == "lightning.fabric.Fabric");
    });
  }
  // True when `e` (a name, or an entry / attribute of one) holds a batch of a loop over a
  // loader that `accelerator.prepare(...)` / `fabric.setup_dataloaders(...)` returned, through
  // assignments of entries (`clean_images = batch["input"]`).
  bool prepared_batch(TSNode e, const Scope* s, int depth) const {
    if (depth > 4) return false;
    e = unparen(e);
    while (is(e, "subscript") || is(e, "attribute")) e = unparen(is(e, "subscript") ? field(e, "value") : field(e, "object"));
    if (!is(e, "identifier")) return false;
    const auto* bs = m_.lookup(t(e), s);
    if (!bs || bs->empty()) return false;
    for (const Binding& b : *bs) {
      if (b.kind == Binding::Kind::For) {
        if (!is(b.stmt, "for_statement")) return false;
        TSNode it = unparen(field(b.stmt, "right"));
        const Scope* ls = m_.scope_of(b.stmt);
        for (int i = 0; i < 3 && is(it, "call"); ++i) {
          const auto& q = m_.callee_name(it, ls);
          if (!q || !(*q == "builtins.enumerate" || *q == "builtins.iter" || starts_with(*q, "tqdm."))) break;
          auto a = positional_arguments(it);
          if (a.empty()) return false;
          it = unparen(a[0]);
        }
        // The loader's name is last bound before the loop to the framework's call, or to an
        // element of its result (`model, opt, loader = accelerator.prepare(model, opt, loader)`),
        // and not bound again inside the loop.
        if (!is(it, "identifier")) return false;
        const auto* ibs = m_.lookup(t(it), ls);
        if (!ibs || ibs->empty()) return false;
        const Binding* last = nullptr;
        for (const Binding& ib : *ibs) {
          if (is_null(ib.stmt) || contains(b.stmt, ib.stmt)) return false;
          if (start(ib.stmt) < start(b.stmt) && (!last || start(ib.stmt) > start(last->stmt))) last = &ib;
        }
        bool prepared = false;
        if (last && last->kind == Binding::Kind::Assign && is(unparen(last->value), "call")) {
          TSNode c = unparen(last->value);
          std::string_view meth = method_name(c, src_);
          prepared = (meth == "prepare" || meth == "prepare_data_loader" || meth == "setup_dataloaders") &&
                     framework_object(receiver(c), m_.scope_of(c));
        }
        if (!prepared) return false;
        continue;
      }
      if (b.kind != Binding::Kind::Assign || b.unpack_index >= 0) return false;
      TSNode v = unparen(b.value);
      if (!is(v, "subscript") && !is(v, "attribute")) return false;
      if (!prepared_batch(v, s, depth + 1)) return false;
    }
    return true;
  }

  // The device argument of a move `.to(dev)` / `.to(device=dev)` that takes nothing else but
  // `non_blocking=`; a null node otherwise (and for `.cuda()`).
  TSNode move_device_argument(TSNode move) const {
    if (method_name(move, src_) != "to") return TSNode{};
    auto a = positional_arguments(move);
    TSNode dev = a.empty() ? keyword_arg(move, "device", src_) : a[0];
    if (is_null(dev)) return TSNode{};
    for (auto x : call_arguments(move))
      if (!same(x, dev) && !(is(x, "keyword_argument") && (same(field(x, "value"), dev) || t(field(x, "name")) == "non_blocking")))
        return TSNode{};
    return dev;
  }

  // The device a move sends its receiver to, as source text for a `device=` argument:
  // "\"cuda\"" for `.cuda()`, the argument of `.to(dev)` when it is the device of something on
  // the accelerator (accelerator_device), or when every value of `dev` is a device string and
  // one of them not the CPU. nullopt: not a move to an accelerator gpulint can see.
  std::optional<std::string> move_device(TSNode move, const Scope* s) const {
    if (method_name(move, src_) == "cuda") {
      // Tensor.cuda(device=None, non_blocking=False, memory_format=...) always copies to a CUDA
      // device: the current one for None, else the one its argument names (an ordinal such as
      // `gpu = 0`, "cuda:1", a torch.device) — which `device=` of a factory reads the same way
      // (an int is a CUDA ordinal: torch.device docs, "a device ordinal ... is treated as a
      // CUDA device").
      TSNode dev = keyword_arg(move, "device", src_);
      if (is_null(dev)) {
        auto a = positional_arguments(move);
        if (!a.empty()) dev = a[0];
      }
      for (TSNode arg : call_arguments(move))
        if (is(arg, "list_splat") || is(arg, "dictionary_splat")) return std::nullopt;
      if (is_null(dev) || is(unparen(dev), "none")) return std::string("\"cuda\"");
      return std::string(t(dev));
    }
    TSNode dev = move_device_argument(move);
    if (is_null(dev)) return std::nullopt;
    if (accelerator_device(dev, s)) return std::string(t(dev));
    auto vs = m_.evaluate(dev, s);
    bool accel = false;
    for (const auto& v : vs) if (v.kind == Value::Kind::Str && v.s != "cpu") accel = true;
    if (values_known_devices(vs)) return accel ? std::optional<std::string>(std::string(t(dev))) : std::nullopt;
    // A device gpulint cannot evaluate (not one known to be the CPU).
    if (trained_model_device(dev)) return std::string(t(dev));
    return std::nullopt;
  }

  // `device=<text>` added to the allocating call (empty for a legacy constructor: it has none).
  std::vector<Edit> device_argument_fix(TSNode factory, const Scope* s, const std::string& device) const {
    const auto& q = m_.callee_name(factory, s);
    if (!q || !kFactories.count(*q)) return {};
    TSNode fargs = field(factory, "arguments");
    if (!is(fargs, "argument_list")) return {};
    auto fch = named_children(fargs);
    if (fch.empty()) return {{start(fargs) + 1, start(fargs) + 1, "device=" + device}};
    return {{end(fch.back()), end(fch.back()), ", device=" + device}};
  }

  // A function of the file that moves what one of its parameters receives to an accelerator on
  // every run that trains on the GPU: a statement at the top of its body, or at the top of the
  // consequence of a top-level `if` whose condition holds on every GPU run (truth_on_gpu:
  // `if torch.cuda.is_available():`), moves the parameter itself — `x = x.cuda()`,
  // `return Variable(x.cuda())` — and no statement before it mentions the parameter (nothing
  // writes it on the host first). `device` is the move's device as move_device gives it;
  // `assumes_gpu`, whether that took the condition.
  struct HelperMove {
    std::string device;
    bool assumes_gpu = false;
  };
  std::optional<HelperMove> helper_moves_parameter(TSNode def, const std::string& param) const {
    if (param.empty()) return std::nullopt;
    std::string key = std::to_string(reinterpret_cast<std::uintptr_t>(def.id)) + ':' + param;
    if (auto it = helper_moves_parameter_.find(key); it != helper_moves_parameter_.end()) return it->second;
    return helper_moves_parameter_[key] = helper_moves_parameter_uncached(def, param);
  }
  mutable std::unordered_map<std::string, std::optional<HelperMove>> helper_moves_parameter_;
  std::optional<HelperMove> helper_moves_parameter_uncached(TSNode def, const std::string& param) const {
    TSNode body = field(def, "body");
    if (!is(body, "block")) return std::nullopt;
    // The move of `param` that statement `st` (of a block) makes as a whole, if any.
    auto move_in = [&](TSNode st, bool& assumes_gpu) -> std::optional<std::string> {
      // A simple statement: one nested in a compound one (`if flag:`) may not run.
      if (!is(st, "expression_statement") && !is(st, "return_statement")) return std::nullopt;
      std::optional<std::string> found;
      visit(st, [&](TSNode n) {
        if (found || !is(n, "call")) return;
        std::string_view mm = method_name(n, src_);
        if (mm != "cuda" && mm != "to") return;
        TSNode r = unparen(receiver(n));
        const Scope* ms = m_.scope_of(n);
        // `Variable(x, volatile=v).cuda()`: since torch 0.4 Variable(x) gives the tensor x on its
        // own device (`volatile=` only warns that it has no effect).
        if (TSNode w = variable_wrapped(r, ms); !is_null(w)) r = w;
        if (!is(r, "identifier") || t(r) != param) return;
        if (!move_unconditional(n, st, ms, &assumes_gpu)) return;
        found = move_device(n, ms);
      });
      return found;
    };
    for (TSNode st : named_children(body)) {
      // `if isinstance(data, (list, tuple)): return [to_device(d) for d in data]`: a branch for
      // containers, not taken for the tensor a creation hands over.
      if (is(st, "if_statement") && container_dispatch(field(st, "condition"), param) &&
          named_count(st) == 2)
        continue;
      if (is(st, "if_statement") && !mentions(field(st, "condition"), param)) {
        TSNode cons = field(st, "consequence");
        bool assumes = false;
        auto truth = truth_on_gpu(field(st, "condition"), m_.scope_of(st), &assumes);
        if (truth && *truth && is(cons, "block")) {
          for (TSNode inner : named_children(cons)) {
            if (!mentions(inner, param)) continue;
            bool a2 = assumes;
            if (auto d = move_in(inner, a2)) return HelperMove{*d, a2};
            break;
          }
        }
      }
      if (!mentions(st, param)) continue;
      bool assumes = false;
      if (auto d = move_in(st, assumes)) return HelperMove{*d, assumes};
      return std::nullopt;
    }
    return std::nullopt;
  }

  // `isinstance(param, list)`, `isinstance(param, (list, tuple, dict))`: true only for Python
  // containers (builtins list, tuple, dict, set), never for a tensor.
  bool container_dispatch(TSNode cond, const std::string& param) const {
    cond = unparen(cond);
    if (!is(cond, "call")) return false;
    const Scope* s = m_.scope_of(cond);
    const auto& q = m_.callee_name(cond, s);
    auto a = positional_arguments(cond);
    if (!q || *q != "builtins.isinstance" || a.size() != 2) return false;
    TSNode obj = unparen(a[0]);
    if (!is(obj, "identifier") || t(obj) != param) return false;
    TSNode types = unparen(a[1]);
    std::vector<TSNode> each = is(types, "tuple") ? named_children(types) : std::vector<TSNode>{types};
    if (each.empty()) return false;
    return std::all_of(each.begin(), each.end(), [&](TSNode ty) {
      const auto& tq = m_.qualified_name(unparen(ty), s);
      return tq && (*tq == "builtins.list" || *tq == "builtins.tuple" || *tq == "builtins.dict" || *tq == "builtins.set");
    });
  }

  // The value assignment `asg` binds to the name `nm`: its right side for `nm = value`, the
  // matching element for `a, nm = x, value` (a tuple of as many values as targets, no other
  // value of which mentions `nm`). A null node when `asg` binds `nm` otherwise or not at all.
  TSNode element_bound_to(TSNode asg, const std::string& nm) const {
    TSNode left = unparen(field(asg, "left"));
    TSNode right = unparen(field(asg, "right"));
    if (is(left, "identifier")) return t(left) == nm ? right : TSNode{};
    if (!(is(left, "pattern_list") || is(left, "tuple_pattern")) ||
        !(is(right, "expression_list") || is(right, "tuple")))
      return TSNode{};
    auto targets = named_children(left);
    auto values = named_children(right);
    if (targets.size() != values.size()) return TSNode{};
    TSNode found{};
    for (std::size_t i = 0; i < targets.size(); ++i) {
      TSNode tg = unparen(targets[i]);
      if (is(tg, "identifier") && t(tg) == nm) {
        if (!is_null(found)) return TSNode{};
        found = unparen(values[i]);
      } else if (mentions(targets[i], nm) || mentions(values[i], nm)) {
        return TSNode{};
      }
    }
    return found;
  }

  // `zeros = torch.zeros(b, k)` then `zeros = self.to_var(zeros)`, or `self.to_var(torch.zeros(b,
  // k))`, where `to_var` is a function of the file that moves its parameter on every GPU run
  // (helper_moves_parameter): the same host allocation and copy as a move written in place.
  // A name bound once, to a lambda that moves what it is given on every GPU run — RL
  // notebooks' `Variable = lambda *args, **kwargs: autograd.Variable(*args, **kwargs).cuda() if
  // USE_CUDA else autograd.Variable(*args, **kwargs)` — and how: the move of the side taken
  // when the condition holds on GPU runs (truth_on_gpu), whose receiver is the lambda's
  // parameters (`*args` forwarded, or a parameter itself) through Variable / view calls.
  std::optional<HelperMove> lambda_moves_arguments(TSNode call, const Scope* s) const {
    TSNode fn = unparen(field(call, "function"));
    if (!is(fn, "identifier")) return std::nullopt;
    const Scope* fs = nullptr;
    const auto* bs = m_.lookup(t(fn), s, &fs);
    if (!bs || bs->size() != 1) return std::nullopt;
    const Binding& b = (*bs)[0];
    if (b.kind != Binding::Kind::Assign || b.unpack_index >= 0 || !is(unparen(b.value), "lambda")) return std::nullopt;
    TSNode lam = unparen(b.value);
    std::set<std::string> params;
    TSNode plist = field(lam, "parameters");  // null for `lambda: ...`
    if (is_null(plist)) return std::nullopt;
    for (TSNode p : named_children(plist)) {
      if (is(p, "identifier")) params.insert(std::string(t(p)));
      else if (is(p, "list_splat_pattern") && is(named(p, 0), "identifier")) params.insert(std::string(t(named(p, 0))));
    }
    if (params.empty()) return std::nullopt;
    TSNode body = unparen(field(lam, "body"));
    const Scope* ls = m_.scope_of(body);
    HelperMove hm;
    if (auto parts = conditional_parts(body)) {
      bool assumes = false;
      auto truth = truth_on_gpu(parts->condition, ls, &assumes);
      if (!truth) return std::nullopt;
      body = unparen(*truth ? parts->value : parts->otherwise);
      hm.assumes_gpu = assumes;
    }
    if (!is(body, "call")) return std::nullopt;
    auto dev = move_device(body, ls);
    if (!dev) return std::nullopt;
    hm.device = *dev;
    // The moved receiver: the parameters, through Variable(...) and views.
    TSNode r = unparen(receiver(body));
    for (int i = 0; i < 8 && is(r, "call"); ++i) {
      const auto& q = m_.callee_name(r, ls);
      if (!q || (*q != "torch.autograd.Variable" && *q != "torch.autograd.variable.Variable")) break;
      auto args = call_arguments(r);  // `Variable(*args, **kwargs)`: the splat comes first
      if (args.empty()) return std::nullopt;
      r = unparen(args[0]);
    }
    if (is(r, "list_splat")) r = unparen(named(r, 0));
    if (!is(r, "identifier") || !params.count(std::string(t(r)))) return std::nullopt;
    return hm;
  }

  void created_then_moved_through_helper(TSNode call, const Scope* s) {
    TSNode def = m_.resolve_local_function(call, s);
    if (is_null(def)) {
      if (auto hm = lambda_moves_arguments(call, s)) {
        for (TSNode v : positional_arguments(call)) report_created_then_moved_by(call, unparen(v), s, *hm);
      }
      return;
    }
    for (TSNode a : call_arguments(call)) {
      TSNode v = unparen(is(a, "keyword_argument") ? field(a, "value") : a);
      if (!is(v, "identifier") && !is(v, "call")) continue;
      std::string param = receiving_parameter(call, def, a);
      auto hm = helper_moves_parameter(def, param);
      if (!hm) continue;
      if (is(v, "identifier")) {
        created_then_moved_through_name(call, v, s, &*hm);
        continue;
      }
      report_created_then_moved_by(call, v, s, *hm);
    }
  }
  // Creation `v`, an argument of `call` to a helper that moves it as `hm` says: a finding when
  // `v` creates on the host, per step, and the helper's move is not conditional here.
  void report_created_then_moved_by(TSNode call, TSNode v, const Scope* s, const HelperMove& hm) {
    if (!is(v, "call")) return;
    TSNode factory{};
    if (!host_creation(v, s, factory) || loader_batch_alias(factory, s) || dead(call) || cache_fill(call)) return;
    std::string pending;
    if (!runs_per_step(call) && (pending = cross_file_candidate(call)).empty()) return;
    TSNode stmt = enclosing_statement(call);
    bool assumes_gpu = hm.assumes_gpu;
    if (!move_unconditional(call, stmt, s, &assumes_gpu)) return;
    if (!created_moved_.insert(v.id).second) return;
    CreatedThenMoved f;
    f.expression = {start(v), end(v)};
    f.needs_call_in_loop = pending;
    describe_factory(f, factory, s);
    // The helper still moves it; created on the device, the move returns it unchanged. Only
    // where the helper's device is a literal that means the same in this scope.
    if (!assumes_gpu && starts_with(hm.device, "\"")) f.fix = device_argument_fix(factory, s, hm.device);
    facts_.created_then_moved.push_back(std::move(f));
  }

  // `obs = torch.FloatTensor(obs)` (or torch.tensor(obs)) where `obs` held what a call returned
  // (`obs, act = replay_buffer.sample(n)`): a conversion of the host value the name held before.
  // Not where the name is ever a loop's target (a loader's batch converted with a legacy
  // constructor is an alias of the batch, whose copy is DL002's matter), nor any other reading
  // of the name.
  bool converts_own_host_value(TSNode creation, const std::string& nm, const Scope* s) const {
    // `torch.tensor(actions, dtype=torch.int64).unsqueeze(-1)`,
    // `Variable(torch.FloatTensor(batch))`: views, casts and Variable around the conversion.
    creation = through_views(creation, s);
    if (!is(creation, "call")) return false;
    auto a = positional_arguments(creation);
    if (a.size() != 1) return false;
    // `torch.FloatTensor(np.array(boards).astype(np.float64))`: what a NumPy function returns is
    // a host array, whatever the name held.
    bool numpy_data = numpy_array(a[0], s) && mentions(a[0], nm);
    if (!numpy_data && (!is(unparen(a[0]), "identifier") || t(unparen(a[0])) != nm)) return false;
    // Besides the data, only `dtype=` / `requires_grad=` (torch.tensor's keywords that keep it
    // on the host; `device=` is no host creation at all).
    for (TSNode arg : call_arguments(creation)) {
      if (same(arg, a[0])) continue;
      if (!is(arg, "keyword_argument")) return false;
      std::string_view k = t(field(arg, "name"));
      if (k != "dtype" && k != "requires_grad") return false;
    }
    const auto& q = m_.callee_name(creation, s);
    if (!q || !(host_legacy_constructor(*q) || *q == "torch.tensor")) return false;
    if (numpy_data) return true;
    const Scope* fs = nullptr;
    const auto* bs = m_.lookup(nm, s, &fs);
    if (!bs) return false;
    // Every place the data comes from is what a call returned, none a model's output or a
    // tensor on the accelerator (`obses, actions = samples` with `samples =
    // self.buffer.sample(n)` at every call site; `obs = np.array(env.reset())`).
    // (An element unpacked from a name — `obses, actions = samples` — has that name as its
    // origin: followed in turn, a few levels.)
    std::function<bool(TSNode, const Scope*, int)> from_calls = [&](TSNode v, const Scope* vs, int depth) {
      // `actions[mbinds]`: an element or slice of host data is host data.
      v = unparen(v);
      for (int i = 0; i < 4 && is(v, "subscript"); ++i) v = unparen(field(v, "value"));
      auto os = m_.origins(v, vs);
      return depth < 3 && !os.empty() && std::all_of(os.begin(), os.end(), [&](const Origin& o) {
        TSNode c = unparen(o.node);
        if (is(c, "identifier") && !same(c, unparen(v))) return from_calls(c, o.scope, depth + 1);
        if (host_literal(c)) return true;
        return is(c, "call") && !moves_to_device(c) && model_for_callee(field(c, "function"), o.scope) == nullptr &&
               tensor_where(c, o.scope) != Where::Accelerator;
      });
    };
    for (const Binding& b : *bs) {
      // What a call returned (the creation itself is one).
      if (b.kind == Binding::Kind::Assign && !is_null(b.value) && b.unpack_index < 0 &&
          (is(unparen(b.value), "call") ||
           ((is(unparen(b.value), "subscript") || is(unparen(b.value), "identifier")) && from_calls(b.value, fs, 0))))
        continue;
      if (b.kind == Binding::Kind::Assign && b.unpack_index < 0 && !is_null(b.value) && transform_of_name(b.value, nm))
        continue;
      // `new_labels = []`, then appended to, or `codes = [ord(c) for c in s]`: a Python list,
      // which the constructor reads on the host.
      if (b.kind == Binding::Kind::Assign && b.unpack_index < 0 && !is_null(b.value) &&
          (host_literal(b.value) || is(unparen(b.value), "list_comprehension")))
        continue;
      if (b.kind == Binding::Kind::Assign && b.unpack_index >= 0 && !is_null(b.value) &&
          (is(unparen(b.value), "call") || from_calls(b.value, fs, 0)))
        continue;
      if (b.kind == Binding::Kind::Param && !is_null(b.target) && from_calls(b.target, fs, 0)) continue;
      return false;
    }
    return true;
  }

  // `noise = torch.randn(b, 100)` then `noise = noise.to(device)` in the same iteration, or
  // `m = torch.triu(torch.ones(n, n) == 1)`, `m = m.float().masked_fill(m == 0, v)`,
  // `m = m.cuda() if use_gpu else m`: every statement of the block between the creation and
  // the move that touches the name rebinds it to an out-of-place transform of itself, so the
  // same host allocation and copy as `torch.randn(b, 100).to(device)`. Reported at the creation;
  // the fix creates it there with `device=` (the later move then returns the tensor itself:
  // Tensor.to docs, "if self already has the correct device, self is returned").
  void created_then_moved_through_name(TSNode move, TSNode name, const Scope* s,
                                       const HelperMove* via = nullptr) {
    // The statement holding the move, and its block.
    TSNode stmt = move;
    while (!is_null(m_.parent(stmt)) && !is(m_.parent(stmt), "block")) stmt = m_.parent(stmt);
    const TSNode move_stmt = stmt;
    TSNode block = m_.parent(stmt);
    if (!is(block, "block")) return;
    // Walking back from the move, each earlier statement of the block that mentions the name
    // must rebind it: to a transform of itself (keep walking) or to a host creation (found).
    // Anything else touching it — `buf[idx] = 1`, `buf.fill_(v)`, `f(buf)` — stays silent, so a
    // buffer filled on the host before the move is never reported. A move in the body of an
    // `if` taken on every run that trains on the GPU (`if cuda: m = m.cuda()` with `cuda =
    // torch.cuda.is_available()`: truth_on_gpu) continues the walk before that `if`.
    std::string nm(t(name));
    bool assumes_gpu = false;
    // `mask, ref = mask.cuda(), mask + ref`: another value of the same tuple reads the host
    // tensor too.
    if (is(move_stmt, "expression_statement") && named_count(move_stmt) == 1 && is(named(move_stmt, 0), "assignment")) {
      TSNode rhs = unparen(field(named(move_stmt, 0), "right"));
      if (is(rhs, "expression_list") || is(rhs, "tuple"))
        for (TSNode v : named_children(rhs))
          if (!contains(v, move) && mentions(v, nm)) return;
    }
    // The values reaching the move: one, or one per live branch of an `if`/`else` that binds
    // the name on every branch (`if OLDGAN: z = torch.FloatTensor(..) else: z = torch.randn(..)`).
    std::vector<TSNode> creations;
    for (int level = 0; creations.empty(); ++level) {
      if (values_bound_before(statements_before(stmt), nm, creations) == Reaching::Unclear) return;
      if (!creations.empty()) break;  // Found; NotBound goes on before the enclosing `if`
      TSNode p = m_.parent(block);
      if (level >= 3 || !is(p, "if_statement") || !same(block, field(p, "consequence"))) return;
      auto truth = truth_on_gpu(field(p, "condition"), m_.scope_of(p), &assumes_gpu);
      // `if self.use_cuda: h0 = h0.cuda()` with a flag gpulint cannot evaluate (a constructor
      // argument, an option of another file): the copy happens on exactly the runs where the
      // flag holds, the runs the finding is about. No fix then (assumes_gpu).
      if (!truth && configuration_flag(field(p, "condition"), move)) {
        truth = true;
        assumes_gpu = true;
      }
      if (!truth || !*truth) return;
      stmt = p;
      block = m_.parent(p);
      if (!is(block, "block")) return;
    }
    if (creations.empty() || cache_fill(move)) return;
    std::string pending;
    if (!runs_per_step(move) && (pending = cross_file_candidate(move)).empty()) return;
    if (via) assumes_gpu = assumes_gpu || via->assumes_gpu;
    if (!move_unconditional(move, move_stmt, s, &assumes_gpu)) return;
    auto device = via ? std::optional<std::string>(via->device) : move_device(move, s);
    if (!device) return;
    for (TSNode creation : creations)
      report_created_then_moved(creation, move, nm, s, via, *device, pending, assumes_gpu);
  }
  // How the statements before a use (`stmts`, in order) bind `nm`, read backwards: Found with
  // the values of the last binding on every path pushed to `out` (a plain assignment, or one per
  // live branch of an `if` with an `else` that binds it plainly), NotBound when no
  // statement mentions it, Unclear when a statement touches it otherwise (`buf[idx] = 1`,
  // `buf.fill_(v)`, `f(buf)`, a branch that leaves it as it was). Transforms of the name
  // (`z = z.view(..)`) are walked through.
  enum class Reaching { Found, NotBound, Unclear };
  // The statements of `stmt`'s block that come before it, in order.
  std::vector<TSNode> statements_before(TSNode stmt) const {
    std::vector<TSNode> out;
    for (TSNode ch : named_children(m_.parent(stmt))) {
      if (same(ch, stmt)) break;
      out.push_back(ch);
    }
    return out;
  }
  Reaching values_bound_before(const std::vector<TSNode>& stmts, const std::string& nm,
                               std::vector<TSNode>& out, int depth = 0) {
    for (auto it = stmts.rbegin(); it != stmts.rend(); ++it) {
      if (!mentions(*it, nm)) continue;
      if (is(*it, "if_statement") && depth < 4) return values_bound_in_branches(*it, nm, out, depth + 1);
      if (!is(*it, "expression_statement") || named_count(*it) != 1) return Reaching::Unclear;
      TSNode asg = named(*it, 0);
      if (!is(asg, "assignment")) return Reaching::Unclear;
      // `mone = one * -1`: another name bound to arithmetic on this one only reads it.
      if (!mentions(field(asg, "left"), nm) && arithmetic_read(field(asg, "right"))) continue;
      TSNode rhs = element_bound_to(asg, nm);
      if (is_null(rhs)) return Reaching::Unclear;
      if (transform_of_name(rhs, nm)) continue;
      out.push_back(rhs);
      return Reaching::Found;
    }
    return Reaching::NotBound;
  }
  // A condition that is a setting of the run, read as it is: a bare name or attribute (`use_cuda`,
  // `self.gpu`, `opt.use_gpu`) that holds the same value wherever `use` runs — run_constant over
  // the loop around `use`, or over its function's body when no loop is (a name computed there,
  // `gpu = x.is_cuda`, is no setting). Not one of torch.Tensor's own attributes (`x.is_cuda`,
  // `x.requires_grad`: https://pytorch.org/docs/stable/tensor_attributes.html), which describe
  // a tensor; truth_on_gpu decides those.
  bool configuration_flag(TSNode cond, TSNode use) {
    static const std::set<std::string_view> kTensorAttributes = {
        "is_cuda", "is_cpu", "is_mps", "is_meta", "is_xpu", "is_sparse", "is_quantized",
        "is_leaf", "is_mkldnn", "is_nested", "requires_grad"};
    cond = unparen(cond);
    TSNode root = cond;
    if (is(root, "attribute") && kTensorAttributes.count(t(field(root, "attribute")))) return false;
    for (int i = 0; i < 4 && is(root, "attribute"); ++i) root = unparen(field(root, "object"));
    if (!is(root, "identifier")) return false;
    TSNode region = innermost_loop(use);
    if (is_null(region)) {
      TSNode fn = enclosing_function(use);
      if (is_null(fn)) return false;
      region = field(fn, "body");
    }
    return run_constant(cond, region, /*setup_only=*/false);
  }
  // An expression made only of names, numbers and arithmetic operators (`one * -1`, `(a + b) /
  // 2`): evaluating it changes none of the tensors it reads (no calls, attributes, subscripts).
  // The result is a new tensor: the expression is a binary operation or a negation, not the name
  // itself (`alias = one`) or `+one` (torch.positive returns its input), which alias it.
  bool arithmetic_read(TSNode e) const {
    e = unparen(e);
    if (!is(e, "binary_operator") &&
        !(is(e, "unary_operator") && !is_null(field(e, "operator")) && t(field(e, "operator")) == "-"))
      return false;
    bool ok = true;
    visit(e, [&](TSNode n) {
      if (ok && ts_node_is_named(n) && !is(n, "binary_operator") && !is(n, "unary_operator") &&
          !is(n, "parenthesized_expression") && !is(n, "identifier") && !is(n, "integer") && !is(n, "float"))
        ok = false;
    });
    return ok;
  }
  Reaching values_bound_in_branches(TSNode ifs, const std::string& nm, std::vector<TSNode>& out, int depth) {
    if (mentions(field(ifs, "condition"), nm)) return Reaching::Unclear;
    std::vector<TSNode> bodies{field(ifs, "consequence")};
    bool has_else = false;
    for (TSNode alt : named_children(ifs)) {
      if (is(alt, "elif_clause")) {
        if (mentions(field(alt, "condition"), nm)) return Reaching::Unclear;
        bodies.push_back(field(alt, "consequence"));
      } else if (is(alt, "else_clause")) {
        bodies.push_back(field(alt, "body"));
        has_else = true;
      }
    }
    if (!has_else) return Reaching::Unclear;
    // A branch that binds the name plainly gives its value; one that does something else with it
    // (`z.resize_(..).normal_()`) or leaves it alone says nothing of the other branches' values.
    std::vector<TSNode> found;
    for (TSNode body : bodies) {
      if (is_null(body) || !is(body, "block") || dead(body)) continue;
      std::vector<TSNode> here;
      if (values_bound_before(named_children(body), nm, here, depth) == Reaching::Found)
        found.insert(found.end(), here.begin(), here.end());
    }
    if (found.empty()) return Reaching::Unclear;
    out.insert(out.end(), found.begin(), found.end());
    return Reaching::Found;
  }
  // Reports one value `creation` that reaches `move` through the name `nm` (a host creation, a
  // conversion of the name's own host data, or a call of a helper whose returns are creations),
  // with the move's device text and its conditions as created_then_moved_through_name found them.
  void report_created_then_moved(TSNode creation, TSNode move, const std::string& nm, const Scope* s,
                                 const HelperMove* via, const std::string& device_text,
                                 const std::string& pending, bool assumes_gpu) {
    if (mentions(creation, nm) && !converts_own_host_value(creation, nm, s)) return;
    TSNode factory{};
    if (!host_creation(creation, s, factory)) {
      // `labels_ = resize_labels(labels)` then `labels_.to(device)`: a helper of the file
      // whose every return is a host creation.
      if (!via && is(unparen(creation), "call") && !mentions(creation, nm)) created_by_helper_then_moved(move, unparen(creation), s);
      return;
    }
    if (loader_batch_alias(factory, s)) return;
    if (dead(creation)) return;
    if (!created_moved_.insert(creation.id).second) return;
    CreatedThenMoved f;
    f.expression = {start(creation), end(creation)};
    f.needs_call_in_loop = pending;
    describe_factory(f, factory, s, /*converts_data=*/mentions(creation, nm));
    // Created on the device where the move was conditional on CUDA being available, the
    // tensor would need CUDA on the runs without it: no fix then. A helper's device is text of
    // the helper's scope: only a literal is valid here.
    // `.to(x.device)` later: `x` may not exist yet where the tensor is created.
    TSNode dev_arg = via ? TSNode{} : move_device_argument(move);
    bool relative = is(unparen(dev_arg), "attribute") && accelerator_device(dev_arg, s);
    if (!assumes_gpu && !relative && (!via || starts_with(device_text, "\"")) && !host_arithmetic_operand(creation, factory, s))
      f.fix = device_argument_fix(factory, s, device_text);
    facts_.created_then_moved.push_back(std::move(f));
  }
  std::unordered_set<const void*> created_moved_;

  // ---- cross-file: functions another file may call once per step --------------------------
  // A function of this file is named, in every file, "<module>:<name>" (a module-level
  // function) or "<module>:<Class>.<name>" (a method of a module-level class), <module> being
  // the file's stem (its directory's name for __init__.py): what `from <pkg>.<module> import
  // <name>` in another file refers to. Nested and decorated functions have no key.
  std::string module_stem() const {
    std::filesystem::path p(source_.path());
    std::string stem = p.stem().string();
    if (stem == "__init__") stem = p.parent_path().filename().string();
    return stem;
  }
  std::string function_key(TSNode def) const {
    if (!is(def, "function_definition")) return {};
    TSNode up = m_.parent(def);
    std::string name(t(field(def, "name")));
    std::string stem = module_stem();
    if (name.empty() || stem.empty()) return {};
    if (is(up, "module")) return stem + ":" + name;
    if (!is(up, "block")) return {};
    TSNode cls = m_.parent(up);
    if (!is(cls, "class_definition") || !is(m_.parent(cls), "module")) return {};
    return stem + ":" + std::string(t(field(cls, "name"))) + "." + name;
  }
  // The statement holding `n`: its outermost ancestor below a block or a definition (the unit
  // move_unconditional reads the conditions of).
  TSNode enclosing_statement(TSNode n) const {
    while (!is_null(m_.parent(n)) && !is(m_.parent(n), "block") && !is_def(m_.parent(n))) n = m_.parent(n);
    return n;
  }
  // The function of the file whose body holds `n` (not through a lambda or class body).
  TSNode enclosing_function(TSNode n) const {
    for (TSNode p = m_.parent(n); !is_null(p); p = m_.parent(p)) {
      if (is(p, "lambda") || is(p, "class_definition")) return TSNode{};
      if (is(p, "function_definition")) return p;
    }
    return TSNode{};
  }
  // For a creation the file does not show to run once per step: the key of the function
  // holding it, outside any loop of its own (a replay agent's `learn()` called by the training
  // script), so that the finding stands when another analysed file calls that function once
  // per step (resolve_cross_file, analyzer/driver.h). Empty when there is none.
  std::string cross_file_candidate(TSNode n) {
    if (in_loop_within_function(n)) return {};
    TSNode fn = enclosing_function(n);
    if (is_null(fn) || dead(fn)) return {};
    return function_key(fn);
  }
  // The qualified name of the imported class every binding of `obj` instantiates (`agent =
  // DQNAgent(...)` with `from rl.agent import DQNAgent` gives "rl.agent.DQNAgent"), if any.
  std::optional<std::string> imported_class_of(TSNode obj, const Scope* s) const {
    obj = unparen(obj);
    if (!is(obj, "identifier")) return std::nullopt;
    const auto* bs = m_.lookup(t(obj), s);
    if (!bs || bs->empty()) return std::nullopt;
    std::optional<std::string> out;
    for (const Binding& b : *bs) {
      if (b.kind != Binding::Kind::Assign || b.unpack_index >= 0 || is_null(b.value)) return std::nullopt;
      TSNode v = unparen(b.value);
      if (!is(v, "call") || !imported_callee(field(v, "function"), m_.scope_of(v))) return std::nullopt;
      const auto& q = m_.qualified_name(unparen(field(v, "function")), m_.scope_of(v));
      if (!q || (out && *out != *q)) return std::nullopt;
      out = *q;
    }
    return out;
  }
  // True when `fn` (a name or `module.name`) is rooted at a name bound only by imports.
  bool imported_callee(TSNode fn, const Scope* s) const {
    TSNode root = root_identifier(unparen(fn));
    if (is_null(root)) return false;
    const auto* bs = m_.lookup(t(root), s);
    return bs && !bs->empty() &&
           std::all_of(bs->begin(), bs->end(), [](const Binding& b) { return b.kind == Binding::Kind::Import; });
  }
  // The keys a call may name in other files: `make_noise(x)` with `from utils import
  // make_noise` → "utils:make_noise"; `agent.learn()` with `agent = DQNAgent(...)` and `from
  // rl.agent import DQNAgent` → "agent:DQNAgent.learn" (and "rl:agent.DQNAgent.learn": every
  // split of the dotted name into module and path, since the importer cannot tell where the
  // module ends). Library names (torch, builtins, ...) give none.
  std::vector<std::string> external_callee_keys(TSNode call, const Scope* s) const {
    TSNode fn = unparen(field(call, "function"));
    std::string q;
    if (is(fn, "attribute")) {
      if (auto cls = imported_class_of(field(fn, "object"), s)) q = *cls + "." + std::string(t(field(fn, "attribute")));
    }
    if (q.empty()) {
      if (!imported_callee(fn, s)) return {};
      const auto& cq = m_.qualified_name(fn, s);
      if (!cq) return {};
      q = *cq;
    }
    static const std::vector<std::string_view> kLibraries = {
        "builtins.", "torch.", "torchvision.", "numpy.", "transformers.", "accelerate.", "lightning.",
        "pytorch_lightning.", "gym.", "gymnasium.", "tqdm.", "os.", "sys.", "math.", "random.", "time."};
    for (auto lib : kLibraries)
      if (starts_with(q, lib)) return {};
    std::vector<std::string> parts;
    for (std::size_t at = 0;;) {
      std::size_t dot = q.find('.', at);
      parts.push_back(q.substr(at, dot == std::string::npos ? std::string::npos : dot - at));
      if (dot == std::string::npos) break;
      at = dot + 1;
    }
    std::vector<std::string> keys;
    for (std::size_t i = 1; i < parts.size(); ++i) {
      std::string key = parts[i - 1] + ":";
      for (std::size_t j = i; j < parts.size(); ++j) key += (j > i ? "." : "") + parts[j];
      keys.push_back(std::move(key));
    }
    return keys;
  }
  // CrossFileFacts: the functions (of this file or imported) that a step of this file calls —
  // in a loop that back-propagates, iterates a DataLoader, calls a training step or steps a Gym
  // environment (step_site), or in a module's forward() — and, as (caller, callee) pairs, the
  // calls the file's functions make outside loops of their own (a function that runs a training
  // loop of its own is not one step: its calls are no edges).
  void collect_cross_file() {
    std::set<std::string> in_loop;
    std::set<std::pair<std::string, std::string>> edges;
    for (TSNode c : m_.calls()) {
      if (dead(c)) continue;
      const Scope* s = m_.scope_of(c);
      std::vector<std::string> keys = external_callee_keys(c, s);
      if (TSNode def = m_.resolve_local_function(c, s); !is_null(def))
        if (std::string k = function_key(def); !k.empty()) keys.push_back(std::move(k));
      if (keys.empty()) continue;
      if (step_site(c)) {
        in_loop.insert(keys.begin(), keys.end());
        continue;
      }
      if (in_loop_within_function(c)) continue;
      TSNode caller = enclosing_function(c);
      if (is_null(caller)) continue;
      std::string ck = function_key(caller);
      if (ck.empty() || any_backward_call_in(field(caller, "body"), [&](TSNode b) { return !is_null(innermost_loop(b)); }))
        continue;
      for (const auto& k : keys) edges.insert({ck, k});
    }
    facts_.cross_file.called_in_loop.assign(in_loop.begin(), in_loop.end());
    facts_.cross_file.calls.assign(edges.begin(), edges.end());
  }

  // `t = diffusion.sample_timesteps(n).to(device)` in a step loop, with `def
  // sample_timesteps(self, n): return torch.randint(low=1, high=self.noise_steps, size=(n,))`: a
  // function of the file whose every return is a host creation, its result moved where it is
  // called once per step. Reported at the creation in the function, without a fix (other
  // callers may need the tensor where it is created).
  void created_by_helper_then_moved(TSNode move, TSNode call, const Scope* s) {
    // `Variable(gaussian(size)).cuda()`, `noise(n).float().to(device)`.
    call = through_views(call, s);
    if (!is(call, "call")) return;
    TSNode def = m_.resolve_local_function(call, s);
    if (is_null(def) || is(m_.parent(def), "decorated_definition") || dead(move) || cache_fill(move)) return;
    auto returns = m_.returned_values(def);
    if (returns.empty()) return;
    std::vector<std::pair<TSNode, TSNode>> creations;  // (returned expression, factory)
    std::unordered_set<const void*> own_data;           // returns converting the name's own data
    const Scope* fs = m_.function_scope(def);
    for (TSNode ret : returns) {
      TSNode factory{};
      ret = unparen(ret);
      // `new_labels = torch.LongTensor(new_labels)` then `return new_labels`: the value the
      // name provably holds at the return.
      // Every statement before the return that touches the name rebinds it (values_bound_before:
      // a buffer written on the host, `tmp[i][y[i]] = 1`, stops it).
      // `return state.unsqueeze(0).contiguous()`: the name through views and casts.
      TSNode name_ret = fs ? through_views(ret, fs) : ret;
      if (is(name_ret, "identifier") && fs) {
        std::string nm(t(name_ret));
        TSNode rs = enclosing_statement(ret);
        TSNode block = m_.parent(rs);
        if (!is(rs, "return_statement") || !is(block, "block")) return;
        std::vector<TSNode> values;
        if (values_bound_before(statements_before(rs), nm, values) != Reaching::Found) return;
        for (TSNode v : values) {
          if (mentions(v, nm) && !converts_own_host_value(v, nm, fs)) return;
          v = unparen(v);
          if (!host_creation(v, fs, factory) || loader_batch_alias(factory, fs)) return;
          if (mentions(v, nm)) own_data.insert(v.id);
          creations.emplace_back(v, factory);
        }
        continue;
      }
      if (!fs || !host_creation(ret, fs, factory) || loader_batch_alias(factory, fs)) return;
      creations.emplace_back(ret, factory);
    }
    if (!runs_per_step(move)) return;
    TSNode stmt = enclosing_statement(move);
    if (!move_unconditional(move, stmt, s) || !move_device(move, s)) return;
    for (const auto& [ret, factory] : creations) {
      if (!created_moved_.insert(ret.id).second) continue;
      CreatedThenMoved f;
      f.expression = {start(ret), end(ret)};
      describe_factory(f, factory, fs, /*converts_data=*/own_data.count(ret.id) > 0);
      facts_.created_then_moved.push_back(std::move(f));
    }
  }

  // `torch.zeros(n).cuda()`, `torch.tensor(x).float().to(device)`, `torch.LongTensor(v).cuda()`,
  // `Variable(torch.randn(b, 100)).cuda()`, `torch.randn(b, 100).type(torch.cuda.FloatTensor)`.
  void find_created_then_moved() {
    for (TSNode c : m_.calls()) {
      std::string_view meth = method_name(c, src_);
      if (meth != "cuda" && meth != "to" && meth != "type") {
        if (!dead(c)) created_then_moved_through_helper(c, m_.scope_of(c));
        continue;
      }
      if (dead(c)) continue;
      TSNode r = receiver(c);
      const Scope* s = m_.scope_of(c);
      if (is(r, "identifier")) {
        created_then_moved_through_name(c, r, s);
        continue;
      }
      // `labels = torch.FloatTensor(b, 1).random_(0, 10)` then `labels = labels.long().cuda()`:
      // a cast or reshape of the name, moved in the same expression.
      if (TSNode base = through_views(r, s); is(base, "identifier") && !same(base, unparen(r))) {
        created_then_moved_through_name(c, base, s);
        continue;
      }
      if (!is(r, "call") && !is(unparen(r), "binary_operator")) continue;
      TSNode factory{};
      // Casts and shape transforms between the creation and the move (`torch.rand(n).reshape(-1,
      // 1).to(device)`) leave it a host tensor that is then copied.
      if (!host_creation(r, s, factory) || loader_batch_alias(factory, s)) {
        created_by_helper_then_moved(c, r, s);
        continue;
      }
      if (cache_fill(c)) continue;
      std::string pending;
      if (!runs_per_step(c) && (pending = cross_file_candidate(c)).empty()) continue;
      TSNode stmt = enclosing_statement(c);
      if (!move_unconditional(c, stmt, s)) continue;
      if (meth == "type") {
        // A CUDA tensor type: a copy to the GPU (and a cast): reported without a fix.
        auto a = positional_arguments(c);
        if (a.size() != 1 || !cuda_tensor_type(m_.qualified_name(a[0], s))) continue;
        CreatedThenMoved f;
        f.expression = {start(c), end(c)};
        f.needs_call_in_loop = pending;
        describe_factory(f, factory, s);
        facts_.created_then_moved.push_back(std::move(f));
        continue;
      }
      std::optional<std::string> device = move_device(c, s);
      bool simple = device.has_value();
      if (!device && meth != "cuda") {
        // `.to(device, dtype)` and friends: still a move when the device is an accelerator, but
        // the fix cannot simply drop the call.
        auto a = positional_arguments(c);
        TSNode dev = a.empty() ? keyword_arg(c, "device", src_) : a[0];
        if (is_null(dev)) continue;
        auto vs = m_.evaluate(dev, s);
        bool accel = false;
        for (const auto& v : vs) if (v.kind == Value::Kind::Str && v.s != "cpu") accel = true;
        if (!accelerator_device(dev, s) && (!values_known_devices(vs) || !accel)) continue;
      }
      if (meth == "cuda" && !call_arguments(c).empty()) simple = false;
      if (host_arithmetic_operand(r, factory, s)) simple = false;
      // `.type(torch.FloatTensor)` between the creation and the move would send a tensor
      // created on the device back to the host, and `.masked_fill(mask, v)` would get a host
      // mask beside a device tensor: no fix then. (Shape views and dtype casts work the same
      // on the device.)
      for (TSNode x = r; simple && is(x, "call") && !same(x, factory); x = unparen(receiver(x)))
        if (method_name(x, src_) == "type" || method_name(x, src_) == "masked_fill") simple = false;
      CreatedThenMoved f;
      f.expression = {start(c), end(c)};
      f.needs_call_in_loop = pending;
      describe_factory(f, factory, s);
      if (simple) {
        f.fix = device_argument_fix(factory, s, *device);
        if (!f.fix.empty()) f.fix.push_back({end(r), end(c), ""});
      }
      facts_.created_then_moved.push_back(std::move(f));
    }
  }
};

}  // namespace

FileFacts build_facts(const SemanticModel& model, const SourceFile& source) {
  return Builder(model, source).run();
}

}  // namespace gpulint::python
