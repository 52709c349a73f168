// DEV001 model-not-on-gpu.
// Facts: nn.Module parameters are created on the CPU unless a default device is set
// (torch.set_default_device, `with torch.device(...)`); Module.to()/cuda() move them
// (torch/nn/modules/module.py). Frameworks place models for you: Lightning's Trainer,
// Fabric.setup, accelerate's Accelerator.prepare, transformers.Trainer, device_map=.
#include "rules/common.h"
#include "rules/registry.h"

namespace gpulint::rules {
namespace {

constexpr RuleInfo kInfo{
    "DEV001", "model-not-on-gpu",
    "A script that means to train on the GPU never moves its model there",
    Severity::Warning, true, true, FixSafety::Unsafe,
    R"md(## What it does
Finds models (the modules whose parameters an optimizer updates — also through parameter
groups of submodules, `[{"params": net.fc.parameters()}, ...]`, a list of the trainable ones
held in a name, or an optimizer built in a helper function — or a hand-written update such as
`for p in model.parameters(): p -= lr * p.grad`) that are never moved with
`.to(device)` / `.cuda()` in a script that trains (`backward()`, `optimizer.step()`) and
clearly means to use a GPU: it builds a CUDA device, calls `torch.cuda.is_available()` or
`.cuda()` somewhere (not `torch.cuda.manual_seed*` / `seed*`, which are documented as silently
ignored without CUDA: scripts seed every backend they may run on). The diagnostic points at the model's creation (`ResNet18()`,
`nn.Sequential(`), also when that is inside a factory function of the file. A class of the
file whose constructor places its own layers or the modules it is made of
(`self.stage0 = nn.Linear(20, 10).to("cuda")`, `self.online = QNet().to(device)`, or `device=`:
model-parallel style, a DQN's networks) needs no move of its instances, and neither does a class whose
constructor builds nothing itself when it is given modules placed on CUDA as they were built
(`Seq2Seq(enc, dec)` with `enc = Encoder().to(device)`), nor a class whose constructor moves
the module it is given (`self.model = model` then `if self.use_cuda: self.model.cuda()` in a
wrapper or trainer class). Models built where
gpulint cannot see the placement may have been placed there and are not reported: a class or
factory imported from the project (`from transformer import Transformer`; its constructor may
call `self.to(...)`), `torch.load`, or a submodule of a class (`self.net = Net()`: whoever builds
the outer module may move it). In C++, a module held in a private data member of a class whose
whole code the translation unit holds (an agent's `policy` built in the constructor's
initializer list and trained through `policy->parameters()` in a member optimizer) is a model,
reported at its initializer, unless the class moves it (`policy->to(device)`, in any method,
also one defined inline in a header); a public member, a member of a class with friends, or one
handed to a function, may be moved elsewhere and is not reported. A move of the name
that runs before the model bound to
it is created (an earlier statement of the same block, outside loops: a notebook that moves
`model` and then rebinds `model = Net()`) does not place that model.

## Why is this bad
Training silently runs on the CPU, typically tens of times slower, while the GPU idles.

## Example
```python
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = ResNet18()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
```

## Use instead
```python
model = ResNet18().to(device)
```

## Fix safety
Unsafe, and offered only when it is complete: when exactly one name visible at the model's
creation can hold a CUDA device (`device = torch.device("cuda" if ... else "cpu")`), every call
of the model sits in a loop over a DataLoader whose batches gpulint follows, and every batch
tensor that reaches the model or the loss can be moved. The fix then appends `.to(device)` to
the model's creation and moves those batches (`x` -> `x.to(device)`); moving the model alone
would make PyTorch raise "Expected all tensors to be on the same device". It is unsafe because
other tensors the step builds (masks, targets created on the CPU) may also need moving. The
fix is built for Python; in C++ (LibTorch) the rule reports without a fix. Not
reported when a framework places the model: PyTorch Lightning, Fabric,
Accelerate, Hugging Face `Trainer`, `torch.set_default_device`, `with torch.device(...)`,
`device_map=`, or when the model is handed to code gpulint cannot see (a model handed from one
function of the file to another, `train(model, ...)` calling `one_epoch(model, ...)`, is followed
three calls deep), or when the model is created on the CPU side of a condition whose other side
puts the file's other model on CUDA (`if self.use_gpu: self.net = Net().cuda()` / `else:
self.net = Net()`: the CPU run's model). In C++, code that only runs
when CUDA is unavailable (the `else` of `if (torch::cuda::is_available())`, functions called
only from there) is a deliberate CPU path and is not reported.

## Measured cost
H100: a ResNet-18 step took 1,244 ms on the CPU against 14.6 ms on the GPU (85×).
)md"};

class Dev001 final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }
  void check(const FileFacts& facts, const RuleOptions&, DiagnosticSink& out) const override {
    if (!facts.trains || !facts.gpu_intent || facts.placement_managed) return;
    for (const auto& m : facts.models) {
      if (m.placed) continue;
      auto d = make_diagnostic(
          kInfo, m.binding,
          "model `" + m.name + "` is never moved to the GPU (no `.to(device)` or `.cuda()`): training runs on the CPU");
      if (!m.fix.empty())
        d.fix = Fix{Applicability::Unsafe,
                    "Move `" + m.name + "` and its batches to `" + m.device + "`", m.fix};
      out.push_back(std::move(d));
    }
  }
};

}  // namespace

const Rule* dev001_rule() {
  static const Dev001 rule;
  return &rule;
}

}  // namespace gpulint::rules
