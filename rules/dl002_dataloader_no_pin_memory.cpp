// DL002 dataloader-no-pin-memory.
// Facts: torch/utils/data/dataloader.py — `pin_memory: bool = False`; pinned host memory is
// what lets `Tensor.to(device, non_blocking=True)` copy asynchronously (PyTorch docs, "CUDA
// semantics: Use pinned memory buffers"). LibTorch's DataLoaderOptions has no pin-memory
// option, so this rule is Python-only. HF TrainingArguments.dataloader_pin_memory = True.
#include "rules/common.h"
#include "rules/registry.h"

namespace gpulint::rules {
namespace {

constexpr RuleInfo kInfo{
    "DL002", "dataloader-no-pin-memory",
    "DataLoader whose batches are copied to a CUDA device without pin_memory=True",
    Severity::Warning, true, false, FixSafety::Safe,
    R"md(## What it does
Finds `torch.utils.data.DataLoader(...)` calls without `pin_memory=True` (absent, `False`, or
`False` through `**kwargs`) whose batches the training loop copies to a CUDA device
(`.to(device)` / `.cuda()` where the device is CUDA — a CUDA string or `torch.device`, also one
named by an int ordinal such as `torch.device(rank % torch.cuda.device_count())` or a config
class's attribute, `Config.DEVICE = "cuda" if ... else "cpu"`, or an option read through an
object that holds the parsed options, `self.opt.device` with `self.opt = opt` and `opt =
parser.parse_args()`, or the device of a model the file
puts on CUDA, `model.device` / `next(model.parameters()).device`; not `accelerator.device`, which
Accelerate may make the CPU —, `.type(torch.cuda.FloatTensor)` also through
a name bound to that type; a copy whose result is discarded still counts when the loop calls a
model on CUDA — see DEV002). The loop may iterate the loader directly,
through `enumerate`/`tqdm`/`zip`/`list` (also `with tqdm(loader) as bar:`, whose `__enter__`
returns the bar), through an iterator drawn with `next(...)` (`it = iter(loader)`, the loader's
own name rebound with `loader = iter(loader)`, `iter(loader).next()`, or `j, batch = next(enumerate(loader, 0))`, or a generator function of
the file that loops over the loader and yields its batches, `def sample_data(loader): while True:
for batch in loader: yield batch`, then `loader = sample_data(loader)` and `next(loader)`; also inside a
loop over another loader: `ood = next(ood_iter)[0].cuda()` in `for x, y in train_loader:`;
each loader is judged by the copies of its own batches), or through a wrapper class of the
file whose `__iter__` moves each batch (`DeviceDataLoader`), or through a call of code gpulint
cannot read given the loader first (`metric_logger.log_every(data_loader, 10, header)`) when the
loop moves what it iterates to the device (`image = image.to(device)`). A batch keeps its place through arithmetic with numbers
(`images * 2 - 1`), and in an object of a class of the file that stores it (`batch = Batch(src,
tgt)` with `self.src = src` / `self.tgt = tgt[:, :-1]` in `__init__`: moving `batch.src`
copies the batch). Loaders are followed through
names, dicts, parameters and the file's own helpers (`train_loader, val_loader = get_loaders()`);
a legacy typed constructor of a batch (`x = torch.FloatTensor(x)`) is the batch itself (it
returns an alias: same storage, pinned when the batch is).

Python only: LibTorch's `torch::data::DataLoaderOptions` (C++) has no pin-memory option
(its fields are batch_size, workers, max_jobs, timeout, enforce_ordering and drop_last), so
there is nothing for a C++ program to set and gpulint does not run this rule on C++ files.

## Why is this bad
A host-to-device copy from ordinary (pageable) memory is staged through a pinned buffer by the
driver: it runs at a fraction of the bus speed and `non_blocking=True` cannot overlap it with
compute. With `pin_memory=True` the loader's workers put each batch in page-locked memory.

## Example
```python
loader = DataLoader(train_set, batch_size=256, num_workers=8)
for x, y in loader:
    x, y = x.to("cuda"), y.to("cuda")
```

## Use instead
```python
loader = DataLoader(train_set, batch_size=256, num_workers=8, pin_memory=True)
for x, y in loader:
    x, y = x.to("cuda", non_blocking=True), y.to("cuda", non_blocking=True)
```

## Fix safety
Safe: adds `pin_memory=True` (or turns `False` into `True`). Not reported for CPU-only or
MPS scripts, for batches already on the GPU, for Hugging Face `TrainingArguments` (it pins
by default) or for LibTorch (`DataLoaderOptions` has no pin-memory option).

## Measured cost
H100: a 154 MB batch copies at 7.8 GB/s from pageable memory and 52.9 GB/s from pinned memory
(6.8×); on a small MLP, `pin_memory=True` + `non_blocking=True` took the step from 6.6 ms to
5.0 ms (1.31×).
)md"};

class Dl002 final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }
  void check(const FileFacts& facts, const RuleOptions&, DiagnosticSink& out) const override {
    if (facts.language != Language::Python) return;
    for (const auto& l : facts.loaders) {
      if (l.kind != LoaderSite::Kind::TorchDataLoader) continue;
      if (!l.batches_copied_to_cuda || l.dataset_on_cuda) continue;
      if (!l.pin_memory.all_of(absent_or_false)) continue;
      auto d = make_diagnostic(kInfo, l.callee,
                               "`DataLoader` batches are copied to the GPU from pageable memory: set `pin_memory=True` so the copy is fast and can overlap with compute");
      if (l.set_arguments && editable(l.pin_memory)) {
        auto edits = l.set_arguments({{"pin_memory", "True"}});
        if (!edits.empty()) d.fix = Fix{Applicability::Safe, "Set `pin_memory=True`", std::move(edits)};
      }
      out.push_back(std::move(d));
    }
  }
};

}  // namespace

const Rule* dl002_rule() {
  static const Dl002 rule;
  return &rule;
}

}  // namespace gpulint::rules
