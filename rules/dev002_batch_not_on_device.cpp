// DEV002 batch-not-on-device.
// Facts: PyTorch does not copy between devices implicitly; an op mixing a CUDA parameter and a
// CPU input raises "RuntimeError: Expected all tensors to be on the same device" (see
// aten/src/ATen/native/TensorCompare / TensorIterator device checks). DataLoader batches are
// CPU tensors unless the dataset holds CUDA tensors.
#include "rules/common.h"
#include "rules/registry.h"

namespace gpulint::rules {
namespace {

constexpr RuleInfo kInfo{
    "DEV002", "batch-not-on-device",
    "A batch from the DataLoader reaches a model on the GPU (or its loss) while still on the CPU",
    Severity::Error, true, true, FixSafety::Unsafe,
    R"md(## What it does
Follows the tensors a training loop takes from a `DataLoader` (tuple targets, `batch[...]`,
dict batches, helper functions in the same file) and reports the first place where one
reaches a model that was moved to a CUDA device, or that model's loss, without `.to(device)`
or `.cuda()` on the way. A `data.to(device)` written as a statement of its own does not move
`data`: a tensor's `.to()` returns the copy (unlike `nn.Module.to`), so the message says the
result was discarded. A whole batch moved that way (`batch.to(device)`) counts as moved: it
may be a Hugging Face `BatchEncoding` or a PyG `Batch`, whose `.to()` works in place.
Entries of a dict batch stored back in place are followed by key (`batch["x"] =
batch["x"].to(device)` moves that entry only); a store under a key that is not a literal
(`for k, v in batch.items(): batch[k] = v.to(device)`, or through a helper gpulint cannot read)
may change any entry, and the batch is then no longer followed.
A single batch drawn outside any loop (`images, labels = next(iter(test_loader))`, or the old
`dataiter.next()`, to show a few predictions) is followed through the statements after the draw;
there the model counts as on the GPU only when its last placement before the call (`.to()`,
`.cuda()`, `.cpu()`) put it there. PyTorch Geometric's `DataLoader` is followed too (its
`Batch`'s `.to()` works in place; a dataset of graphs moved before batching, or one gpulint
cannot trace to a dataset construction, stays silent); DL001 and DL002 do not report it.
A model handed to a function of the file counts as placed where that function moves the
parameter receiving it (`def train(model, loader, device=torch.device("cuda")): model.to(device)`,
`nn.Module.to` works in place), when every caller in the file passes that model.
A loss written as a function of the file that moves what it is given (`def custom_loss(out,
labels): bbox = labels["bbox"].to(device)`) receives the batch unmoved without a finding.

## Why is this bad
PyTorch never copies silently between devices: the forward pass raises
`RuntimeError: Expected all tensors to be on the same device`. The job dies after it waited
for a GPU slot, loaded its data and built its model.

## Example
```python
model = Net().to(device)
for data, target in train_loader:
    output = model(data)
```

## Use instead
```python
for data, target in train_loader:
    data, target = data.to(device), target.to(device)
    output = model(data)
```

## Fix safety
Unsafe: the fix moves the argument in place (`model(data.to(device))`, with the device the
model was moved with); later uses of the same tensor may also need it. Not reported where a
framework moves batches (Lightning, Accelerate, Hugging Face `Trainer`) or for datasets that
already hold CUDA tensors (a `TensorDataset` whose tensors are not provably on the CPU), for
`nn.DataParallel` models (they scatter CPU inputs themselves), or on paths that only run when
CUDA is unavailable: the `else` of an `if` whose condition holds on every run that trains on
CUDA (`if self.use_gpu: x = x.cuda() else: x = Variable(x)` with `use_gpu =
torch.cuda.is_available()`; in C++ likewise). A placement in dead code (`if USE_GPU:` with
`USE_GPU = False`) puts no model on the GPU. A factory function of the file builds a new model
on each call: an instance built in a function that neither places it nor calls what placed
another instance (`model = init_model()` in `inference()`, beside `train()` that moves its own)
is not taken to be on the GPU.

## Measured cost
Not a slowdown but a crash: the run fails at its first step.
)md"};

class Dev002 final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }
  void check(const FileFacts& facts, const RuleOptions&, DiagnosticSink& out) const override {
    if (facts.placement_managed) return;
    for (const auto& u : facts.unmoved_batches) {
      std::string where = u.consumer == "model" ? "the model on the GPU" : "the loss of the model on the GPU";
      std::string discarded = u.move_discarded
          ? " (the result of its earlier `.to()`/`.cuda()` was discarded: a tensor's `.to()` returns a copy and leaves the tensor where it was)"
          : "";
      auto d = make_diagnostic(kInfo, u.argument,
                               "batch tensor `" + u.variable + "` is still on the CPU when it reaches " + where +
                                   discarded + ": PyTorch raises \"Expected all tensors to be on the same device\"");
      if (!u.fix.empty()) d.fix = Fix{Applicability::Unsafe, "Move `" + u.variable + "` to the model's device", u.fix};
      out.push_back(std::move(d));
    }
  }
};

}  // namespace

const Rule* dev002_rule() {
  static const Dev002 rule;
  return &rule;
}

}  // namespace gpulint::rules
