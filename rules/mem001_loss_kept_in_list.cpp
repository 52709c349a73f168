// MEM001 loss-kept-in-list.
// Facts: a tensor produced by autograd-tracked ops holds `grad_fn`, which keeps its graph's
// nodes (and, without backward, the saved activations) alive as long as the tensor lives
// (PyTorch docs, "Autograd mechanics"). `.detach()` returns a tensor sharing storage with no
// graph; `.item()` copies to the host and synchronises with the device.
#include "rules/common.h"
#include "rules/registry.h"

namespace gpulint::rules {
namespace {

constexpr RuleInfo kInfo{
    "MEM001", "loss-kept-in-list",
    "A loss or output still attached to the autograd graph is kept across loop iterations",
    Severity::Warning, true, true, FixSafety::Safe,
    R"md(## What it does
Finds training loops (loops that call `backward()`) that keep a graph-attached tensor — a
loss, a model output, arithmetic on them — in something that outlives the iteration:
`losses.append(loss)`, `total_loss += loss`, `history[epoch] = loss`,
`history["train"].append(loss)`, `y_hat += [out]` (list `+=` is `extend`), `preds =
torch.cat((preds, out))` (a running tensor grown by concatenation, also `preds = out if preds is
None else torch.cat([preds, out])`: torch.cat's result records every input). A sum of attached tensors is attached too (`epoch_loss += loss`
then `history.append(epoch_loss)`), also when a function of the file returns it to an epoch
loop (`train_loss, acc = self._train_epoch()` then `self.loss["train"].append(train_loss)`); so
are torch functions of attached tensors (`F.softmax(out, 1)`), their `.cpu()` copies (only
`.detach()` drops the graph), and other methods the file's own model class defines, called on
an input (`model.neglog_likelihood(x)`, even when never back-propagated; not methods decorated
with `@torch.no_grad()`, nor those whose every return is detached — an agent's `select_action`
returning `q.argmax(1).item()` —, nor those of models built by a library, such as Hugging Face's
`generate`, which gpulint cannot read). A training-step method that
calls `backward()` once per call keeps what it adds to instance state
(`self.running_loss += loss`) across calls; so does the `training_step` of a LightningModule
(also through `pl.` aliases and the file's own base classes), which Lightning calls once per
step with autograd on: `self.training_step_outputs.append(loss)`, where the loss comes from
`self(x)`, `self.forward(x)`, `self.model(x)`, a loss attribute (`self.loss_func(out, y)`) or
the module's other methods (`loss, outputs, y = self.common_step(batch, batch_idx)`). A model's
output unpacked in a tuple assignment (`dist, value = model(state)` in an RL rollout) is
attached element by element: for a class of the file, the elements its `forward()` returns that
are not literals or detaching calls (`logits.argmax(1)`); for a `torch.nn` module (`nn.LSTM`),
every element; for a model whose `forward()` gpulint cannot read (an imported class:
`out, latent_loss = net(img)`), the elements that are terms of the loss back-propagated in the
same loop (a method of a term, `latent_loss.mean()`, counts). So is what a function of the file returns from a model call it makes with
autograd on (an evaluation helper `def predict(x): out = model(x); return out.argmax(1), out`):
an evaluation loop calling it counts as calling the model. The rows of an attached tensor that a loop iterates (`for row in out: per_image.append(row)`)
are attached: iterating a tensor unbinds it. A distribution's `sample()` is drawn
without a graph (`rsample()` keeps it). A tuple
or dict appended keeps its attached elements (`self.outputs.append((out, y))`,
`outputs.append({"loss": loss})`); the fix detaches each of them. A loss that a step
function back-propagates and returns (`loss.backward(); return loss`, also `return loss_real +
loss_fake` after both backward() calls) is still attached in the loop that sums it (`loss_d +=
train_discriminator(...)`). A running average written as a conditional (`ema = loss if ema is
None else 0.9 * ema + 0.1 * loss`) keeps every step's graph like a plain sum. `backward()` is a tensor's, `torch.autograd.backward(loss)`, that of an
Accelerate `Accelerator` / Lightning `Fabric` (`accelerator.backward(loss)`), or a function of
the file that back-propagates its parameter (`self._backprop(loss)`); an element of a tuple
result that the loop back-propagates (`loss, parts = criterion(out, y)`) is attached; the results of a
function of the file whose result is back-propagated (a hand-written `def dice_loss(pred, y)`)
are attached wherever it is called. When the model comes from outside the file (a training
helper's `model` parameter), the input of a back-propagated loss is attached when it is the only
one that is not batch data (`logits = model(images)`, `loss = criterion(logits, labels)` with
`labels` from the loop's header, moved or cast): backward() raises unless the loss requires
grad, and batch data holds no graph. A loss of two model outputs (distillation, where the
teacher may be frozen) is left alone. In LibTorch C++ a call of a function of the file that
returns an attached tensor (a trainer's `compute_td_loss()` that back-propagates its loss and
returns it) is attached where it is called, with autograd on; a running tensor grown with
`buf = torch::cat({buf, out}, 1)` (also `t = t.defined() ? torch::cat({t, out}) : out`) keeps
each element's graph, as in Python. `losses[i] = loss` into a tensor
preallocated outside the loop keeps the graph too: assigning to an indexed view is at::Tensor's
`copy_`, recorded in the whole tensor's graph. The same holds for a trainer
class's data members (`std::vector<at::Tensor>` / `std::deque<at::Tensor>` / `at::Tensor`
fields): `losses_.push_back(loss)`, `this->history.push_back(loss)`, `total_loss_ += loss` in a
training loop or in a per-step member function, unless the member is cleared, reset or
back-propagated in the same step. In a class template whose loss has a dependent type
(`auto loss = criterion(model_->forward(x), y)` with `Model` a template parameter), clang
resolves the append or the sum only where the template is instantiated; there a local that
`backward()` is called on counts as attached (backward needs a graph), and the container's own
type, known in the template, decides the rest.

It also finds evaluation loops that call a model and can run with autograd on: not under
`torch.no_grad()` / `torch.inference_mode()`, and, inside a function, called at least once
from a place that is not either, or inside a function that itself calls `backward()` (a
trainer's `train()` that validates after each epoch: its own backward needs autograd on).
There the kept tensor holds the forward pass's activations. A script that trains nothing has
such loops too: a model put in evaluation mode (`model.eval()`) and never back in training mode
nor handed to an optimizer, built from a module class (the file's, torch.nn, torchvision, timm,
Hugging Face `from_pretrained`) or unpickled with `torch.load`, is a model there — `eval()`
switches dropout and batch norm, not autograd (torch/nn/modules/module.py). `torch` functions of an attached
tensor (`torch.sqrt(loss_fn(out, y))`) are attached; `.cpu()` does not detach.
A loop of a function that a training step calls once per step (a REINFORCE agent's
`_play_episode()` keeping the action probabilities the step back-propagates) is part of that
step, not an evaluation loop: its graphs live for one call. A tuple assignment binds each name
its own value (`loss, n = loss.item(), len(x)` after `backward()` leaves a float).
Files that turn autograd off in ways not followed (`torch.set_grad_enabled(False)` outside a
`with`, `requires_grad_()`, assignments to `.requires_grad`) are left alone.

## Why is this bad
Every kept tensor keeps its autograd graph alive: memory grows with every step until the run
ends or runs out of memory.

## Example
```python
losses = []
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    losses.append(loss)
```

## Use instead
```python
    losses.append(loss.detach())
```
Not `loss.item()` in every step: `.item()` waits for the GPU to finish (a host–device sync);
call it at logging intervals.

## Fix safety
Safe: appends `.detach()`, which keeps the value and drops the graph. Not reported for what is
computed under `torch.no_grad()` / `torch.inference_mode()` (also `with torch.enable_grad() if
train else torch.no_grad():` or `torch.set_grad_enabled(phase == "train")` on the branch where
the flag turns autograd off) — but a loss computed before such a block and appended inside it
still holds its graph and is reported —, for `.item()`, `float(...)`, `.detach()`,
`.data`, for lists created inside the iteration or emptied (`.clear()`) on every step, for
stores under keys that repeat every iteration (`recon["a"] = ...`, or `codes[d] = ...` with `d`
from a `range()` loop inside the step: each step replaces the last), for a gradient-accumulation
sum that is rebound before its micro-batch loop in every iteration of a loop that steps a
`torch.optim` optimizer once per iteration, directly or through a GradScaler (`loss = 0; for _
in range(k): ...; loss += l` then `optimizer.step()` or `scaler.step(optimizer)`: it holds one
step's graphs, freed at the next step), for the sum of Accelerate's gradient accumulation reset
under `if accelerator.sync_gradients:` (the optimizer really steps only then), or for
lists that are stacked and back-propagated in the same loop. Lightning's
`validation_step`/`test_step`/`predict_step` run under `no_grad`/`inference_mode`: what they
keep is not reported, nor are torchmetrics values (`self.accuracy(out, y)`), which carry no
graph. Nor is a sum over the positions of one input in a function that evaluates one batch
(`def test(inp, target): loss = 0; for c in range(chunk_len): loss += criterion(...)`, then
`return loss.item()`): its graph dies with the call; and a loss rebound after its `backward()`
to what a function gpulint cannot read returns (`loss = scalar(loss)` from a star import) is
undecided, so what it is added to is not reported.

## Measured cost
H100, training loop with backward each step: +72.7 KB of host memory per step (7 GB per
100k steps); with `.detach()`: 0. In evaluation without `no_grad`, keeping the loss kept the
activations: +1.39 GB of GPU memory per step.
)md"};

class Mem001 final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }
  void check(const FileFacts& facts, const RuleOptions&, DiagnosticSink& out) const override {
    for (const auto& k : facts.kept_tensors) {
      std::string how = k.how == KeptGraphTensor::How::Append ? "appended to"
                        : k.how == KeptGraphTensor::How::AugmentedAssign ? "accumulated into"
                        : k.how == KeptGraphTensor::How::Concatenate     ? "concatenated onto"
                                                                         : "stored in";
      auto d = make_diagnostic(kInfo, k.statement,
                               "a tensor attached to the autograd graph is " + how + " `" + k.container +
                                   "` across iterations: each step's graph stays alive; use `.detach()`");
      if (!k.fix.empty()) d.fix = Fix{Applicability::Safe, "Detach the kept tensor (`.detach()`)", k.fix};
      out.push_back(std::move(d));
    }
  }
};

}  // namespace

const Rule* mem001_rule() {
  static const Mem001 rule;
  return &rule;
}

}  // namespace gpulint::rules
