// DEV003 tensor-created-then-moved.
// Facts: tensor factories (torch.zeros, ones, empty, full, rand, randn, randint, randperm,
// arange, linspace, logspace, eye, tensor) take `device=` and allocate there directly
// (torch/_torch_docs.py); `.cuda()` / `.to(device)` after them allocates on the CPU, fills,
// and copies host-to-device.
#include "rules/common.h"
#include "rules/registry.h"

namespace gpulint::rules {
namespace {

constexpr RuleInfo kInfo{
    "DEV003", "tensor-created-then-moved",
    "A tensor created on the CPU inside a loop and then copied to the GPU",
    Severity::Warning, true, true, FixSafety::Unsafe,
    R"md(## What it does
Finds tensor factory calls without `device=` that are moved to a CUDA device in the same
expression (`torch.zeros(n).cuda()`, `torch.tensor(x).float().to(device)`, also through shape
views and casts, `torch.rand(n).reshape(-1, 1).to(device)`, `torch.tensor(v).to(torch.float).to(device)`, in-place fills with numbers,
`torch.zeros(n).fill_(1).cuda()`, random fills, `.data` and `.requires_grad_()`) inside a loop, or inside the
`forward()` of an `nn.Module` subclass of the file (it runs once per step: an LSTM's
`h0 = torch.zeros(...).to(device)`), or inside a function of the file called from such a place
(an `init_hidden()` that `forward()` calls; a method called on an instance of a module class of
the file, also after `model = model.to(device)`, which returns the module itself; a helper called in a loop that back-propagates,
iterates a DataLoader, or calls a function of the file that back-propagates once per call, at its
own level and not under an `if` of the loop — not one called once per epoch or every N steps,
such as a helper that saves sample images — or that steps a Gym / Gymnasium environment,
`env.step(action)` with `env = gym.make(...)`: an agent's `select_action()` runs once per
environment step; a call under `if len(memory) > batch_size:`, a replay buffer's warm-up
threshold, runs on every step after it, unlike one under `if step % n == 0:`; so does a call
under a condition that is the same on every iteration of a run — a mode or option such as
`if mode == 'gp':`, `if args.ema:` or `if self.use_gp:` set only in `__init__`, made of names
the loop does not bind, with no call or subscript — on the runs that take it). A
training-step function — one that back-propagates and steps an optimizer once per call, outside
loops of its own — runs once per step by definition, whoever calls it and however often (an A3C
worker's `update(trajectory)` under `if done:`, a replay agent's `learn()` that the training
script in another file calls), and so do the helpers it calls. So does an agent's acting method:
a method of the same class, without loops of its own and never called in the file, that computes
with a model of the file (`select_action(state)` beside `update()`): the environment loop that
calls it runs it at least as often as the training step. Methods count where they are called on `self` or on a name bound only to
instances of one class of the file (`agent = Agent(...)`, then `agent.select_action(obs)`), or
on an attribute every `self.memory = ReplayBuffer(...)` of the owner's class sets to one class
(`agent.memory.push(...)`, `self.memory.push(...)`); not
static methods, class methods or methods inherited from a base class.
A function of the file whose every `return` is such a creation, with its result moved where it is
called once per step (`t = diffusion.sample_timesteps(n).to(device)` with `return
torch.randint(1, self.noise_steps, (n,))`), is reported at the creation, without a fix (another
caller may need the tensor where it is). Arithmetic on the host tensor before the move
(`(torch.randn(b, 1, 28, 28) * std).to(device)`, `z = torch.randn(b, 100) * 0.1` then `z =
z.cuda()`) keeps it on the host; the fix is given only when the other operand is a number.
A creation in the `__init__` of a Dataset subclass (caching per-item tensors while the dataset
is built) runs once per dataset, not per step, unless the file builds the dataset in a loop.
A creation in a function or method that the file itself does not show to run once per step (an
agent module's `act()`, which the training script in another file calls) is
reported when another file checked in the same run calls it from such a place: `from
rl.agent import DQNAgent`, `agent = DQNAgent(...)`, then `agent.act(obs)` in a loop that steps
a Gym environment (functions are matched by module stem, class and name, also through calls
made by the file's functions outside their own loops). Checked alone — one file, or in the
editor — the module has no such finding. Files that import no torch-family module (nor star-import another module) are not
read, so a training script that never imports torch itself confirms nothing. A creation bound in a tuple assignment
(`x, y = batch[0], torch.ones(n)`) is followed like one bound alone. Legacy typed constructors (`torch.LongTensor(v).cuda()`)
count too; they take no `device=`, so they are reported without a fix (the message names
`torch.empty(...)` for a shape, `torch.tensor(...)` for data), as is a move written
`.type(torch.cuda.FloatTensor)`. A creation handed to a helper of the file that moves its parameter on every GPU run (`def
to_var(x): if torch.cuda.is_available(): x = x.cuda(); return Variable(x)`, then
`zero = self.to_var(torch.zeros(b, k))`) counts as moved there; a helper that writes the tensor
first, moves it under a flag, or moves only an element of it does not; the helper may wrap it
first (`return Variable(x, volatile=v).cuda()`) and may handle containers before the tensor (`if
isinstance(x, (list, tuple)): return [to_device(d) for d in x]`, with no `else`). So does a name bound once to a lambda that
moves its arguments on every GPU run (RL notebooks' `Variable = lambda *args, **kwargs:
autograd.Variable(*args, **kwargs).cuda() if USE_CUDA else autograd.Variable(*args, **kwargs)`).
`Variable(x)` (pre-0.4 code) is `x`. `torch.tensor(t)` of a
tensor copies it on `t`'s own device, so of a model's output or a tensor already on the GPU it
is not reported.

The move's device is a CUDA device the file computes (`"cuda"`, `torch.device("cuda" if
torch.cuda.is_available() else "cpu")`, `torch.device(rank % torch.cuda.device_count())`; and
`.cuda(gpu)` whatever its argument: Tensor.cuda always copies to a CUDA device), or the `device` of something that is on the
accelerator: an Accelerate `Accelerator` / Lightning `Fabric` (`.to(accelerator.device)`), a
model the file places on CUDA (`model.device`: Hugging Face's `PreTrainedModel.device`, or a
module's own `device` property over its parameters; also a model passed to a function), a
tensor of the same function moved there (`x = x.to(device)`, then `.to(x.device)`), or a batch
(or an entry of one) of a loader returned by `accelerator.prepare(...)`, which delivers batches
on the accelerator (`noise = torch.randn(clean_images.shape).to(clean_images.device)`); the fix
then creates it with `device=clean_images.device`. A name bound to such a device counts too
(`device = policy.device`, also passed on to a helper's parameter), and so does the `device` of
an instance of a class of the file whose methods set `self.device` to such a device
(`self.q_eval.device` with `self.device = T.device("cuda:0" if T.cuda.is_available() else
"cpu")` in the network's `__init__`). In the `forward()` of a module class of the file that the file trains on CUDA
(`ddpm.to(device)`), the inputs are on the module's device (PyTorch raises otherwise), so
`torch.randint(...).to(x.device)` there is a copy too. So is a move to the same device expression
that the function's trained model was placed with, in a file that means to use CUDA
(`self.policy_net = DQN(...).to(self.device)` with `device` a constructor parameter, then
`torch.FloatTensor(batch).to(self.device)` in the method that trains it; `model =
ActorCritic(...).to(cfg.device)`, then `torch.FloatTensor(state).to(cfg.device)` in its rollout
loop): on every run that trains that model on the GPU the device is the GPU. The device of
another function's parameter (`batch.device` in a helper that follows whatever its caller
passes) with no such model placement beside it is left alone.

A name converted in place from the host value it held (`obs, act = replay_buffer.sample(n)`,
then `obs = torch.FloatTensor(obs)` and later `obs = obs.cuda()`) is a conversion of host data
too — also with `dtype=`, shape views or `Variable(...)` around it, when every value the name
can hold is what a call returned (through a method's parameter to its call sites, an unpacked
sample, a subscript `actions[mbinds]`), a list literal or comprehension (`[ord(c) for c in s]`),
or when the data is a NumPy function's result (`torch.FloatTensor(np.array(boards))`); not a
model's output or a tensor moved to the GPU, and not when the name is a loop's target (a loader's
batch re-wrapped with a legacy constructor is an alias of the batch: its copy is DL002's
matter). A helper that returns such a name (`new_labels = torch.LongTensor(new_labels)`, `return
new_labels`, also through views: `return state.unsqueeze(0).contiguous()`) is followed to it, also when its caller keeps the result in a name before the move
(`labels_ = resize_labels(labels)`, then `labels_.to(device)`). A value chosen by an `if` with an
`else` (`if uniform: z = torch.rand(n) else: z = torch.randn(n)`) reaches the move from every live
branch that binds the name plainly.

Also through a name, over several statements of the same block: the tensor is created
(`m = torch.triu(torch.ones(n, n) == 1).transpose(0, 1)`), each later statement that touches
the name rebinds it to an out-of-place transform of itself (casts, `masked_fill`, `transpose`,
`view`/`reshape`, indexing and slicing, `Variable(...)`, ...: `m = m.float().masked_fill(m == 0,
float("-inf"))`, `obs = obs[:, -4:]`, `y = Variable(y)`) or only reads it into another name with arithmetic
(`mone = one * -1`), and then it is moved
(`m = m.cuda()`, also `m = m.cuda() if use_gpu else m` when every value the condition can take,
through the file's call sites, picks the move). A move under a condition that holds on every
run that trains on the GPU counts as well: `torch.cuda.is_available()`, a name or parameter
bound only to it (`cuda = torch.cuda.is_available()`, then `if cuda: m = m.cuda()` or
`m.cuda() if cuda else m`), and `not`/`and`/`or` of such conditions; so does the condition
under which the file places a model that the same function calls on CUDA (`if not
args.use_cpu: classifier = classifier.cuda()`, then `if not args.use_cpu: noise = noise.cuda()`
in the training loop; `if self.use_cuda: self.G.cuda()`, then `if self.use_cuda: alpha =
alpha.cuda()`: a run that trains on the GPU took that side), and, in a module's `forward()`,
`next(self.parameters()).is_cuda` or `x.is_cuda` of a forward parameter; and a flag of the
instance (`if self.args.cuda:`) under which a method of the same class places the class's model
holds in every method of that class. So does a flag gpulint cannot evaluate at all, a bare
name or attribute (`if self.use_cuda: h0 = h0.cuda()` with a constructor argument, `if
opt.use_gpu:` of an options object built in another file, a parameter whose callers pass both
values) that keeps its value over the run (nothing in the loop, or in the function when there
is no loop, rebinds it, and no function that runs once per step stores it; not a tensor's own
attribute such as `x.requires_grad`): the copy happens on exactly the runs where it holds, the
runs that use the GPU. Such a
move is reported without a fix (created with `device=`, the tensor would need CUDA on the runs
without it). A cast or reshape of the name in the moving expression itself (`labels =
labels.long().cuda()`) is followed the same way. A tensor written on the host in between
(`buf[idx] = 1`, `buf.fill_(v)`, passed to a function), or a move under a condition that is
known to be false on some GPU run or that is no setting (`not torch.cuda.is_available()`, a
command-line switch that is off by default, `x.is_cuda` of a tensor gpulint cannot place, a
comparison with a run-dependent size), is not reported. A `masked_fill` with a host mask between the creation and the
move is reported without a fix (the mask would stay on the host).

## Why is this bad
Each iteration allocates and fills the tensor in host memory, then copies it over the bus
with a synchronous host-to-device transfer; created with `device=`, it is allocated (and for
`zeros`/`ones`/`full`/`arange`, filled) on the GPU with no copy.

## Example
```python
for x, y in loader:
    mask = torch.ones(x.size(0), 1).cuda()
```

## Use instead
```python
for x, y in loader:
    mask = torch.ones(x.size(0), 1, device="cuda")
```

## Fix safety
A conversion of host data — `torch.tensor(list_or_array)`, a legacy constructor given data
(`torch.LongTensor([...])`) — gets no fix: `torch.tensor(data, device=...)` builds the tensor on
the CPU and then calls `.to(device)` itself (torch/csrc/utils/tensor_new.cpp,
internal_new_from_data), so it makes the same copy; LibTorch's `torch::tensor(values, options)`
does the same (torch/csrc/api/include/torch/detail/TensorDataContainer.h, convert_to_tensor). It is still reported, with that said: the
per-step build and the blocking copy (`.to()` without `non_blocking` ends in
`cudaStreamSynchronize`: at::cuda::memcpy_and_sync) go away only when a constant is built once
before the loop or the data stays on the GPU. Unsafe: a factory's
random stream on the GPU differs from the CPU's (`rand`, `randn`, `randint`, `randperm`), so
results change bit-for-bit. Not reported outside loops, for `.to(dtype)`, or for
`torch.from_numpy(...)` (the data is in host memory anyway). Nor in an epoch loop beside the
loop over a DataLoader that makes the steps (`for epoch in ...: y_real = torch.ones(b).to(device)`
then `for x, y in loader:`, or sample images at the end of each epoch; also beside a loop over
anything that moves its own elements to the GPU, `for x, _ in train_loader: x = x.to(device)`,
whose steps may run in another file's model methods; also beside a call of a function of the
file that makes such a pass over the data itself, `for epoch in ...: train(epoch)` then a sample
grid; and beside a loop that steps a Gym environment, where an episode's first observation is
converted before `while not done: ... env.step(a)`): it runs once per epoch or episode
(a GAN's generator loop around its critic's inner loop back-propagates itself and stays a step
loop). Nor under a periodic guard inside the loop — `if step % 500 == 0:`, `if not it % freq:`,
`if step in range(0, total, every):` — that saves sample images or runs a periodic test, also in
a short loop of its own under that guard (`for _ in range(5): rows.append(G(torch.randn(10,
z).cuda()))`, a loop that is no step): it runs once per N steps (the guard that makes a host sync periodic for SYNC001); a guarded branch that
back-propagates (`if i % n_critic == 0:` around the generator's update), its `else`, and a `% 2`
alternation still run per step. Nor for a legacy constructor given (an element of) a DataLoader batch
(`torch.Tensor(images[0])`): the batch is a tensor of that type, which the constructor returns
itself. Nor is a cache filled when it is missing or stale — an
assignment under an `if` whose condition reads the same target (`if self.mask is None:
self.mask = torch.ones(n, n).cuda()`): it runs once, not every step. In C++ a function of the file
called inside the loop (up to three calls deep, an RL agent's per-step `train()`) counts as
inside the loop, and so does a function that runs no training loop of its own (no loop that
calls `backward()` or an optimizer's `step()`) that another file of the same run calls inside a
loop, directly or through such functions (an agent's `train_step()` in Agent.cpp that
main.cpp's game loop calls, also where a missing header leaves only the agent object and the
method's name to find it by): `gpulint check` decides that once every file is analysed, the
editor and `audit` (one file at a time) stay silent on it, and `--fix` leaves it alone. A
function called only before or after a loop is not, nor is one that runs a training loop. A
training-step function — one that calls `backward()` and an optimizer's `step()` outside any
loop of its own (a DQN agent's
`train_step()` in a header, whoever calls it) — runs once per step by definition, so what it
creates counts wherever it is called from. In C++ a view or an in-place fill between the
creation and the move (`torch::empty({n}).uniform_(0.8, 1.0).to(device)`) is still the host
tensor being moved. `torch::from_blob` is not a factory (it wraps host memory).

## Measured cost
One extra host-to-device copy and a host-side allocation per iteration; the copy from
pageable memory is synchronous (7.8 GB/s measured on an H100 host). With GPU work queued each
step (H100, bench/results/dev003-creation-h100.md), creating 1M elements with `device=` instead
of on the host was 2.67x faster for `randn`, 1.48x for `arange`, 1.22x for `zeros`; for
`torch.tensor(list)` and a legacy constructor of an array it changed nothing, and for
`torch.tensor(array)` it saved 4 % (one host copy). For conversions of host data the cost is the
blocking copy itself: a replay batch converted with `torch.tensor(buf[idx]).to(device)` every step
cost 3.3 % (256 × 8 floats) and 8.6 % (32 Atari frames, 903 KB) of a 1.5 ms step over a buffer kept
on the GPU, while a pinned staging tensor copied with `non_blocking=True` came within 0.03 ms
(H100, bench/results/dev003-replay-h100.md).
)md"};

class Dev003 final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }
  void check(const FileFacts& facts, const RuleOptions&, DiagnosticSink& out) const override {
    for (const auto& c : facts.created_then_moved) {
      std::string message;
      if (c.from_data) {
        // A conversion of host data: `device=` builds it on the CPU and copies it just the same
        // (torch/csrc/utils/tensor_new.cpp, internal_new_from_data); what costs is the per-step
        // build and the blocking copy (a host–device sync: at::cuda::memcpy_and_sync). Legacy
        // constructors given data are conversions too (the front ends set from_data for them).
        message = "`" + c.factory +
                  "(...)` builds a tensor from host data and copies it to the GPU with a host-device sync in every "
                  "iteration (`device=` would make the same copy): build it once before the loop if the data does not "
                  "change, or keep the data on the GPU";
      } else {
        // Legacy typed constructors (torch.LongTensor, torch.Tensor) have no device= argument.
        std::string advice = "pass `device=` instead";
        if (c.legacy_constructor && c.legacy_arguments == CreatedThenMoved::LegacyArguments::Sizes)
          advice = "build it with `torch.empty(..., dtype=..., device=...)` instead";
        else if (c.legacy_constructor)
          advice = "if its argument is a shape, build it with `torch.empty(shape, dtype=..., device=...)` instead "
                   "(if it is host data, `device=` would make the same copy)";
        message = "`" + c.factory +
                  "(...)` creates the tensor on the CPU and then copies it to the GPU in every iteration: " + advice;
      }
      // At the factory call (where `device=` goes), which a wrapper such as `Variable(` may
      // start lines before.
      const Range& at = c.factory_call.end > c.factory_call.start ? c.factory_call : c.expression;
      auto d = make_diagnostic(kInfo, at, message);
      if (!c.fix.empty() && !c.from_data) d.fix = Fix{Applicability::Unsafe, "Create the tensor with `device=`", c.fix};
      d.needs_call_in_loop = c.needs_call_in_loop;
      out.push_back(std::move(d));
    }
  }
};

}  // namespace

const Rule* dev003_rule() {
  static const Dev003 rule;
  return &rule;
}

}  // namespace gpulint::rules
