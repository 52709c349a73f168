// DL001 dataloader-no-workers.
// Facts: torch/utils/data/dataloader.py — `num_workers: int = 0` ("0 means that the data will be
// loaded in the main process"); transformers TrainingArguments.dataloader_num_workers = 0.
#include "rules/common.h"
#include "rules/registry.h"

namespace gpulint::rules {
namespace {

constexpr RuleInfo kInfo{
    "DL001", "dataloader-no-workers",
    "DataLoader without worker processes: batches are loaded in the training process while the GPU waits",
    Severity::Warning, true, true, FixSafety::Unsafe,
    R"md(## What it does
Finds data loaders whose `num_workers` is absent or evaluates to `0`: a
`torch.utils.data.DataLoader(...)` (through any import alias, positional argument 5,
`**kwargs` dicts, module constants, `argparse` defaults, `config["num_workers"]` of a dict the
file builds — also a dict parameter through every call of its function — or `cfg.workers` of an
`EasyDict` / `SimpleNamespace` / `argparse.Namespace` / `Munch` / `addict.Dict` of known keys),
or a Hugging Face
`TrainingArguments(...)` without `dataloader_num_workers` (its default is 0 too).

C++ (LibTorch): `torch::data::make_data_loader(dataset, options)` whose
`torch::data::DataLoaderOptions` has `workers` unset or 0 — a bare batch size
(`make_data_loader(std::move(ds), 64)`: 64 converts to options with a batch size only), the
default options, a chain without `.workers(n)`, or options built in a variable first. The fix
(unsafe) writes `.workers(4)` (option `dataloader-num-workers`) into the options expression.

## Why is this bad
With `num_workers=0` (PyTorch's default) every batch is read, decoded and collated in the
training process, between two steps: the GPU sits idle while the CPU prepares the next batch.

## Example
```python
loader = DataLoader(train_set, batch_size=64, shuffle=True)
```

## Use instead
```python
loader = DataLoader(train_set, batch_size=64, shuffle=True,
                    num_workers=min(8, os.cpu_count() or 1), persistent_workers=True)
```

## Fix safety
Unsafe: workers are separate processes. The dataset must be picklable, code at module level
needs an `if __name__ == "__main__":` guard on platforms that spawn, and per-worker random
seeds change. The fix writes `num_workers=min(8, os.cpu_count() or 1)` (option
`dataloader-num-workers`) and `persistent_workers=True` when the loader is iterated once per
epoch. Not reported when the dataset provably holds CUDA tensors (workers cannot use CUDA:
its class moves them, builds `torch.cuda.FloatTensor(...)` items, or is given tensors already
moved to a GPU, or is itself a tensor on the GPU, also as a function of the file returns it:
`normalize(torch.from_numpy(x).cuda())` with `return (data - .5) / .5`), is built with a `device=` argument that may be a GPU (it yields tensors
there), or is an in-memory `TensorDataset` of CPU tensors (or a tensor used as the dataset
itself, `DataLoader(img)`): a batch is then a few indexing operations, and
worker processes only add their inter-process copies — `gpulint confirm` measured such a
loader 6–26% *slower* with workers on an H100 (fixtures/confirm/neg_tensordataset_cheap_items.py,
bench/results/confirm-h100.md).

## Measured cost
H100, ResNet-18, items costing 0.2–1 ms of CPU each, batch 64: 170–200 ms/step with
`num_workers=0` against 39–44 ms with 4–8 workers (4.3×). A small MLP with 0.3 ms items:
45 ms/step, 92% of it waiting for data; 8 workers: 6.6 ms (6.9×).
)md"};

class Dl001 final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }
  void check(const FileFacts& facts, const RuleOptions& options, DiagnosticSink& out) const override {
    for (const auto& l : facts.loaders) {
      if (l.kind == LoaderSite::Kind::GraphDataLoader) continue;  // see LoaderSite::Kind
      if (!l.num_workers.all_of([](const Value& v) { return absent_or_int(v, 0); })) continue;
      if (l.dataset_on_cuda || l.dataset_small_in_memory) continue;
      std::string what = l.kind == LoaderSite::Kind::HfTrainingArguments ? "`TrainingArguments`"
                                                                          : "`DataLoader`";
      std::string msg = what + " has no worker processes (`num_workers` is 0): every batch is loaded in the training process while the GPU waits";
      if (l.kind == LoaderSite::Kind::LibTorchDataLoader)
        msg = "`make_data_loader` has no worker threads (`DataLoaderOptions::workers` is 0): every batch is loaded in the training thread while the GPU waits";
      auto d = make_diagnostic(kInfo, l.callee, msg);
      if (l.set_arguments && editable(l.num_workers)) {
        std::string n = options.dataloader_num_workers;
        bool automatic = n == "auto";
        std::string value = automatic ? (facts.language == Language::Python ? "min(8, os.cpu_count() or 1)" : "4") : n;
        std::string name = l.kind == LoaderSite::Kind::HfTrainingArguments ? "dataloader_num_workers" : "num_workers";
        std::vector<std::pair<std::string, std::string>> args{{name, value}};
        if (l.kind == LoaderSite::Kind::TorchDataLoader && l.iterated_in_outer_loop &&
            l.persistent_workers.origin == ValueOrigin::Absent && facts.language == Language::Python)
          args.emplace_back("persistent_workers", "True");
        auto edits = l.set_arguments(args);
        if (!edits.empty()) {
          if (automatic && facts.language == Language::Python)
            edits.insert(edits.end(), l.fix_prelude.begin(), l.fix_prelude.end());
          Fix f;
          f.applicability = Applicability::Unsafe;
          f.message = "Set `" + name + "=" + value + "`" + (args.size() > 1 ? " and `persistent_workers=True`" : "");
          if (l.kind == LoaderSite::Kind::LibTorchDataLoader) f.message = "Set `.workers(" + value + ")`";
          f.edits = std::move(edits);
          d.fix = std::move(f);
        }
      }
      out.push_back(std::move(d));
    }
  }
};

}  // namespace

const Rule* dl001_rule() {
  static const Dl001 rule;
  return &rule;
}

}  // namespace gpulint::rules
