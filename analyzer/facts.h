// Language-neutral facts: what a front end (analyzer/python, analyzer/cpp) learned about one
// translation unit, in terms the rules understand. Rules read only these facts, never syntax.
//
// Each fact carries the byte ranges rules report on, and — where a rule can offer a fix —
// an edit builder made by the front end, which knows the syntax of its language.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/diagnostic.h"

namespace gpulint {

enum class Language { Python, Cpp };

struct Range {
  uint32_t start = 0;
  uint32_t end = 0;
};

/// A statically known value. Unknown is a first-class answer: rules stay silent on it.
struct Value {
  enum class Kind { Absent, Unknown, None, Bool, Int, Float, Str };
  Kind kind = Kind::Unknown;
  bool b = false;
  int64_t i = 0;
  double f = 0;
  std::string s;

  static Value of(Kind k) { Value x; x.kind = k; return x; }
  static Value absent() { return of(Kind::Absent); }
  static Value unknown() { return of(Kind::Unknown); }
  static Value none() { return of(Kind::None); }
  static Value boolean(bool v) { Value x = of(Kind::Bool); x.b = v; return x; }
  static Value integer(int64_t v) { Value x = of(Kind::Int); x.i = v; return x; }
  static Value floating(double v) { Value x = of(Kind::Float); x.f = v; return x; }
  static Value string(std::string v) { Value x = of(Kind::Str); x.s = std::move(v); return x; }
  bool operator==(const Value& o) const;
};

/// Where an argument's value was written, so a fix can edit it in place.
enum class ValueOrigin { Absent, Keyword, Positional, KwargsDict, ModuleConstant, ArgparseDefault,
                         Other };

/// The values one argument can take, over every path the front end could see
/// (e.g. `kwargs.update(num_workers=1)` on one branch gives {Absent, 1}).
struct ArgumentFact {
  std::vector<Value> alternatives;  ///< empty means Unknown
  ValueOrigin origin = ValueOrigin::Absent;
  Range written;                    ///< the value's source range when origin is Keyword

  bool unknown() const;
  /// True when every alternative satisfies `pred` (and there is at least one, none Unknown).
  bool all_of(const std::function<bool(const Value&)>& pred) const;
};

/// Builds the edits that set keyword arguments of a call: replaces a value written in the call,
/// or adds the arguments in the call's own layout (one line, or one argument per line).
/// Arguments: (name, value source text) pairs. Empty result: the front end cannot edit safely.
using SetArgumentsFn = std::function<std::vector<Edit>(
    const std::vector<std::pair<std::string, std::string>>& arguments)>;

/// A data loader construction: torch.utils.data.DataLoader, transformers.TrainingArguments,
/// torch::data::make_data_loader.
struct LoaderSite {
  /// GraphDataLoader: PyTorch Geometric's DataLoader (torch_geometric.loader.DataLoader, a
  /// torch DataLoader subclass with its own signature and a collate that builds `Batch`
  /// objects): followed for DEV002 only; DL001/DL002 do not report it.
  enum class Kind { TorchDataLoader, HfTrainingArguments, LibTorchDataLoader, GraphDataLoader };
  Kind kind = Kind::TorchDataLoader;
  Range call;                 ///< the whole call expression
  Range callee;               ///< where diagnostics point
  ArgumentFact num_workers;
  ArgumentFact pin_memory;
  ArgumentFact persistent_workers;
  ArgumentFact prefetch_factor;
  /// The dataset may already hold accelerator tensors: its class or collate_fn moves them,
  /// it is built with `device=`, or it is a TensorDataset whose tensors are not provably on
  /// the CPU. Batches then need no copy (DL002, DEV002 stay silent).
  bool dataset_on_cuda = false;
  bool dataset_small_in_memory = false;  ///< a TensorDataset: in-memory tensors, cheap items
  bool batches_copied_to_cuda = false;   ///< a loop over it moves its batches to a CUDA device
  bool iterated_in_outer_loop = false;   ///< iterated once per epoch (inside another loop)
  bool placement_managed = false;        ///< passed to accelerator.prepare / fabric / HF Trainer
  SetArgumentsFn set_arguments;          ///< may be empty
  std::vector<Edit> fix_prelude;         ///< extra edits a worker-count fix needs (an import)
};

/// A model (nn.Module instance) the file trains.
struct ModelFact {
  Range binding;              ///< where the model is created / bound (DEV001 reports here)
  std::string name;
  bool placed = false;        ///< moved with .to()/.cuda() or placed by a framework
  /// Unplaced models only: the edits that move the model and the batches it is called with to
  /// `device` (empty when the front end cannot build a complete one).
  std::vector<Edit> fix;
  std::string device;         ///< the device expression `fix` moves to
};

/// A loader batch tensor that reaches the model or the loss without being moved to the
/// model's CUDA device (DEV002).
struct UnmovedBatchUse {
  Range argument;             ///< the unmoved argument expression
  std::string variable;       ///< its name as written
  std::string consumer;       ///< "model" or "loss"
  /// The batch went through `x.to(device)` / `x.cuda()` as a statement of its own before this
  /// use: Tensor.to returns the copy and leaves `x` where it was, so the result was discarded.
  bool move_discarded = false;
  std::vector<Edit> fix;      ///< `x` -> `x.to(device)` with the model's own device expression
};

/// A tensor created on the CPU inside a loop, then moved (DEV003).
struct CreatedThenMoved {
  Range expression;           ///< the whole `torch.zeros(n).cuda()` expression
  /// The factory call itself (`torch.zeros(n)`), where `device=` would go: where the finding is
  /// reported. Empty (start == end) when the front end does not give it: then `expression`.
  Range factory_call;
  std::string factory;        ///< qualified name, e.g. "torch.zeros"
  /// The factory is a legacy typed constructor (`torch.LongTensor(v)`: the front end's
  /// legacy_tensor_type): it takes no `device=`, so there is no fix.
  bool legacy_constructor = false;
  /// For a legacy constructor, what its arguments are: a shape (`torch.FloatTensor(64)`, every
  /// argument an integer gpulint can evaluate), a sequence of data (`torch.LongTensor([1, 2])`,
  /// one list or tuple), or Unknown.
  enum class LegacyArguments { Unknown, Sizes, Data };
  LegacyArguments legacy_arguments = LegacyArguments::Unknown;
  /// The creation converts host data — `torch.tensor(list_or_array)`, a legacy constructor
  /// given data — rather than allocating: `device=` would make the same host build and copy
  /// (torch/csrc/utils/tensor_new.cpp, internal_new_from_data builds the tensor on the CPU and
  /// then calls `tensor.to(device)`), so rules offer no `device=` fix for it.
  bool from_data = false;
  std::vector<Edit> fix;      ///< create it with device= instead
  /// Empty when the file shows the creation runs once per iteration (in a loop, or in a
  /// function the file calls in a loop). Otherwise the key of the function holding it (see
  /// CrossFileFacts): a function that runs no training loop of its own and that this file never
  /// calls in a loop;
  /// the finding stands only when some analysed file calls that function once per iteration.
  std::string needs_call_in_loop;
};

/// A graph-attached tensor kept across loop iterations (MEM001).
struct KeptGraphTensor {
  Range statement;            ///< `losses.append(loss)` / `total += loss` / `d[k] = loss`
  Range kept;                 ///< the attached expression
  std::string container;      ///< "losses", "total_loss", … (a C++ data member: its field name, "losses_")
  /// Concatenate: `outs = torch.cat((outs, out))`, the running tensor rebound to itself grown
  /// by the attached one.
  enum class How { Append, AugmentedAssign, SubscriptStore, Concatenate } how = How::Append;
  std::vector<Edit> fix;      ///< `.detach()` appended (parenthesised where needed)
};

/// What one file knows about calls between functions, for the findings that depend on another
/// file (C++: a member function of Agent.cpp that main.cpp calls once per training step).
/// Functions are named by a key that is the same in every file that names the function: for
/// C++ clang's Unified Symbol Resolution string (clang::index::generateUSRForDecl of the
/// canonical declaration, "c:@S@Agent@F@train_step#I#"). Only functions of the program are
/// named: not those of the standard library, LibTorch or system headers.
struct CrossFileFacts {
  /// Functions this file calls inside a loop (lexically in a for / while / do / range-for body
  /// written in this file, not inside a lambda): each call runs once per iteration.
  std::vector<std::string> called_in_loop;
  /// (caller, callee): calls made by the functions this file defines that run no training
  /// loop of their own (no loop whose body calls backward() or an optimizer's step()),
  /// wherever in their body. When the caller runs once per iteration, so does the callee. A
  /// function that runs a training loop is taken to run the steps, not to be one: its calls
  /// outside its loops are not edges.
  std::vector<std::pair<std::string, std::string>> calls;
};

/// Everything the rules see for one file.
struct FileFacts {
  Language language = Language::Python;
  bool trains = false;            ///< calls backward() or an optimizer's step()
  bool gpu_intent = false;        ///< computes a CUDA device, asks torch.cuda.is_available(), .cuda()
  bool trains_on_cuda = false;    ///< a CUDA device is used for the training tensors
  bool placement_managed = false; ///< Lightning / Fabric / Accelerate / HF Trainer / default device
  std::vector<LoaderSite> loaders;
  std::vector<ModelFact> models;
  std::vector<UnmovedBatchUse> unmoved_batches;
  std::vector<CreatedThenMoved> created_then_moved;
  std::vector<KeptGraphTensor> kept_tensors;
  CrossFileFacts cross_file;
};

}  // namespace gpulint
