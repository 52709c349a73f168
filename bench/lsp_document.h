// The generated training script of the LSP latency benchmark (bench/lsp_latency.cpp), shared
// with tests/lsp_incremental_test.cpp, which replays random edits of the same document.
#pragma once

#include <algorithm>
#include <string>

namespace gpulint::bench {

/// One block of a training script (52 lines: a model, a dataset, a training and an evaluation
/// function), names made unique with `k`.
inline std::string training_block(int k) {
  std::string s = R"(

class Net{K}(nn.Module):
    def __init__(self, hidden=256):
        super().__init__()
        self.fc1 = nn.Linear(784, hidden)
        self.fc2 = nn.Linear(hidden, 10)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        x = F.relu(self.fc1(x.flatten(1)))
        return self.fc2(self.drop(x))


class Data{K}(Dataset):
    def __init__(self, n=1024):
        self.x = torch.randn(n, 28, 28)
        self.y = torch.randint(0, 10, (n,))

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def train_{K}(args, device):
    model = Net{K}().to(device)
    loader = DataLoader(Data{K}(), batch_size=args.batch_size, shuffle=True)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr)
    losses = []
    for epoch in range(args.epochs):
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            losses.append(loss)
            scale = torch.ones(10).cuda()
    return losses


def evaluate_{K}(model, device):
    loader = DataLoader(Data{K}(256), batch_size=512, num_workers=2, pin_memory=True)
    correct = 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            correct += (model(x).argmax(1) == y).sum().item()
    return correct)";
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s.compare(i, 3, "{K}") == 0) {
      out += std::to_string(k);
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

/// A training script of exactly `lines` lines (at least ~70): imports, blocks, an argparse
/// main(), then `# padding` lines. Every rule has diagnostics in it.
inline std::string make_training_script(int lines) {
  std::string s =
      "\"\"\"A long training script (generated for the LSP latency benchmark).\"\"\"\n"
      "import argparse\n\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
      "from torch.utils.data import DataLoader, Dataset\n";
  int k = 0;
  auto count = [&] { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); };
  const std::string tail =
      "\n\n\ndef main():\n    parser = argparse.ArgumentParser()\n"
      "    parser.add_argument(\"--batch-size\", type=int, default=64)\n"
      "    parser.add_argument(\"--lr\", type=float, default=0.1)\n"
      "    parser.add_argument(\"--epochs\", type=int, default=1)\n"
      "    args = parser.parse_args()\n"
      "    device = torch.device(\"cuda\")\n"
      "    train_0(args, device)\n\n\nif __name__ == \"__main__\":\n    main()\n";
  int tail_lines = static_cast<int>(std::count(tail.begin(), tail.end(), '\n'));
  while (count() + 52 + tail_lines <= lines) s += training_block(k++);
  s += tail;
  while (count() < lines) s += "# padding\n";
  return s;
}

}  // namespace gpulint::bench
