// The real binary: exit codes, stdin, --fix/--diff, config errors, `rule`/`rules`, and the
// stale-docs check (docs/rules.md must equal `gpulint rules --format markdown`).
#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include <nlohmann/json.hpp>

#include "tests/test_util.h"

namespace gpulint {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using testing::run_gpulint;
using testing::TempDir;

TEST(Cli, ExitCodes) {
  TempDir d;
  d.write("clean/train.py", testing::kCleanScript);
  d.write("dirty/train.py", testing::kTrainScript);
  auto clean = run_gpulint("check clean", d.path());
  EXPECT_EQ(clean.exit_code, 0) << clean.out << clean.err;
  EXPECT_EQ(clean.out, "All checks passed!\n");
  auto dirty = run_gpulint("check dirty", d.path());
  EXPECT_EQ(dirty.exit_code, 1) << dirty.err;
  EXPECT_THAT(dirty.out, HasSubstr("dirty/train.py:5:10: DL001 "));
  EXPECT_THAT(dirty.out, HasSubstr("Found 2 errors."));
  EXPECT_EQ(run_gpulint("check --exit-zero dirty", d.path()).exit_code, 0);
  EXPECT_EQ(run_gpulint("check --quiet clean", d.path()).out, "");
  // Usage errors are 2, never CLI11's 105/106/109.
  EXPECT_EQ(run_gpulint("check --no-such-flag", d.path()).exit_code, 2);
  EXPECT_EQ(run_gpulint("check --output-format xml", d.path()).exit_code, 2);
  EXPECT_EQ(run_gpulint("check --threads 0", d.path()).exit_code, 2);
  EXPECT_EQ(run_gpulint("", d.path()).exit_code, 2);
  EXPECT_EQ(run_gpulint("frobnicate", d.path()).exit_code, 2);
  auto bad_sel = run_gpulint("check --select DL999 dirty", d.path());
  EXPECT_EQ(bad_sel.exit_code, 2);
  EXPECT_THAT(bad_sel.err, HasSubstr("DL999"));
  EXPECT_EQ(run_gpulint("check missing_dir", d.path()).exit_code, 2);
  EXPECT_EQ(run_gpulint("--help", d.path()).exit_code, 0);
  auto version = run_gpulint("--version", d.path());
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_THAT(version.out, StartsWith("gpulint "));
}

TEST(Cli, SelectionFlags) {
  TempDir d;
  d.write("train.py", testing::kTrainScript);
  auto only = run_gpulint("check --output-format concise --select DL001 train.py", d.path());
  EXPECT_EQ(only.exit_code, 1);
  EXPECT_THAT(only.out, HasSubstr("DL001"));
  EXPECT_THAT(only.out, Not(HasSubstr("DL002")));
  auto ignored = run_gpulint("check --ignore DL001,DL002 train.py", d.path());
  EXPECT_EQ(ignored.exit_code, 0) << ignored.out;
  auto repeat = run_gpulint("check --ignore DL001 --ignore DL002 train.py", d.path());
  EXPECT_EQ(repeat.exit_code, 0) << repeat.out;
  auto extend = run_gpulint("check --select DEV --extend-select DL002 train.py "
                            "--output-format concise",
                            d.path());
  EXPECT_THAT(extend.out, HasSubstr("DL002"));
  EXPECT_THAT(extend.out, Not(HasSubstr("DL001")));
}

TEST(Cli, StdinAndStdinFilename) {
  TempDir d;
  auto r = run_gpulint("check - --output-format concise", d.path(), testing::kTrainScript);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("-:5:10: DL001"));
  auto named = run_gpulint("check --stdin-filename scripts/train.py --output-format concise",
                           d.path(), testing::kTrainScript);
  EXPECT_EQ(named.exit_code, 1);
  EXPECT_THAT(named.out, HasSubstr("scripts/train.py:5:10: DL001"));
  // --fix on stdin prints the fixed source and reports on stderr.
  auto fixed = run_gpulint("check - --fix --stdin-filename train.py", d.path(), testing::kTrainScript);
  EXPECT_THAT(fixed.out, HasSubstr("pin_memory=True"));
  EXPECT_THAT(fixed.out, StartsWith("import torch\n"));
  EXPECT_THAT(fixed.err, HasSubstr("DL001"));
  EXPECT_EQ(fixed.exit_code, 1);  // DL001's fix is unsafe: it remains
  auto clean = run_gpulint("check -", d.path(), testing::kCleanScript);
  EXPECT_EQ(clean.exit_code, 0);
  auto mixed = run_gpulint("check - train.py", d.path());
  EXPECT_EQ(mixed.exit_code, 2);
}

TEST(Cli, FixAndDiff) {
  TempDir d;
  auto p = d.write("train.py", testing::kTrainScript);
  auto diff = run_gpulint("check --diff train.py", d.path());
  EXPECT_EQ(diff.exit_code, 1);
  EXPECT_THAT(diff.out, StartsWith("--- train.py\n+++ train.py\n@@ "));
  EXPECT_THAT(diff.out, HasSubstr("+loader = DataLoader(train_set, batch_size=64, shuffle=True, pin_memory=True)"));
  EXPECT_THAT(diff.err, HasSubstr("Would fix 1 error"));
  EXPECT_EQ(testing::read_file(p), testing::kTrainScript);

  auto fix = run_gpulint("check --fix --unsafe-fixes --show-fixes train.py", d.path());
  EXPECT_EQ(fix.exit_code, 0) << fix.out << fix.err;
  EXPECT_THAT(fix.out, HasSubstr("Fixed 2 errors:"));
  EXPECT_THAT(fix.out, HasSubstr("Found 2 errors (2 fixed, 0 remaining)."));
  std::string fixed = testing::read_file(p);
  EXPECT_THAT(fixed, HasSubstr("pin_memory=True"));
  EXPECT_THAT(fixed, HasSubstr("num_workers="));
  auto again = run_gpulint("check --diff --unsafe-fixes train.py", d.path());
  EXPECT_EQ(again.exit_code, 0) << again.out;
  EXPECT_EQ(again.out, "");
}

TEST(Cli, JsonOutput) {
  TempDir d;
  d.write("train.py", testing::kTrainScript);
  auto r = run_gpulint("check --output-format json train.py", d.path());
  EXPECT_EQ(r.exit_code, 1);
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["code"], "DL001");
  EXPECT_EQ(j[0]["filename"], (d / "train.py").string());
  EXPECT_EQ(j[0]["location"]["row"], 5);
  EXPECT_EQ(j[0]["location"]["column"], 10);
  EXPECT_EQ(j[0]["fix"]["applicability"], "unsafe");
  EXPECT_EQ(j[1]["code"], "DL002");
  EXPECT_EQ(j[1]["fix"]["applicability"], "safe");
  EXPECT_THAT(j[1]["url"].get<std::string>(), StartsWith("https://gpulint.dev/rules/"));
}

TEST(Cli, Statistics) {
  TempDir d;
  d.write("a.py", testing::kTrainScript);
  d.write("b.py", testing::kTrainScript);
  auto r = run_gpulint("check --statistics .", d.path());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("2\tDL001\t[ ] "));
  EXPECT_THAT(r.out, HasSubstr("2\tDL002\t[*] "));
}

TEST(Cli, ConfigErrorsExitTwoWithFileAndLine) {
  TempDir d;
  d.write("train.py", testing::kTrainScript);
  d.write("pyproject.toml", "[project]\nname = \"trainer\"\n\n[tool.gpulint]\nselect = [\"DL\"]\nignor = [\"DL002\"]\n");
  auto r = run_gpulint("check train.py", d.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("pyproject.toml:6: key `ignor`: unknown key"));
  EXPECT_EQ(r.out, "");
  d.write("pyproject.toml", "[tool.gpulint]\nselect = [\"DL\"\n");
  auto syntax = run_gpulint("check train.py", d.path());
  EXPECT_EQ(syntax.exit_code, 2);
  EXPECT_THAT(syntax.err, HasSubstr("pyproject.toml:"));
  EXPECT_THAT(syntax.err, HasSubstr("invalid TOML"));
  auto missing = run_gpulint("check --config nope.toml train.py", d.path());
  EXPECT_EQ(missing.exit_code, 2);
}

TEST(Cli, ConfigIsApplied) {
  TempDir d;
  d.write("train.py", testing::kTrainScript);
  d.write("gpulint.toml", "ignore = [\"DL001\"]\n");
  auto r = run_gpulint("check --output-format concise", d.path());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, Not(HasSubstr("DL001")));
  EXPECT_THAT(r.out, HasSubstr("DL002"));
  auto cli = run_gpulint("check --output-format concise --extend-select DL001", d.path());
  EXPECT_THAT(cli.out, HasSubstr("DL001"));
}

TEST(Cli, RuleAndRules) {
  TempDir d;
  auto rule = run_gpulint("rule DL001", d.path());
  EXPECT_EQ(rule.exit_code, 0);
  EXPECT_THAT(rule.out, HasSubstr("(DL001)"));
  EXPECT_EQ(run_gpulint("rule dl002", d.path()).exit_code, 0);
  auto unknown = run_gpulint("rule XX999", d.path());
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("XX999"));
  auto rules = run_gpulint("rules", d.path());
  EXPECT_EQ(rules.exit_code, 0);
  EXPECT_THAT(rules.out, StartsWith("CODE"));
  auto md = run_gpulint("rules --format markdown", d.path());
  EXPECT_EQ(md.exit_code, 0);
  EXPECT_THAT(md.out, StartsWith("# gpulint rules\n"));
  EXPECT_EQ(run_gpulint("rules --format html", d.path()).exit_code, 2);
}

TEST(Cli, BuildPathMustHoldCompileCommands) {
  TempDir d;
  d.write("train.py", testing::kCleanScript);
#ifdef GPULINT_CPP
  // -p names the C++ build directory: without compile_commands.json it is an error (exit 2).
  auto missing = run_gpulint("check -p build train.py", d.path());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("build/compile_commands.json"));
  d.write("build/compile_commands.json", "[]");
  EXPECT_EQ(run_gpulint("check -p build train.py", d.path()).exit_code, 0);
#else
  EXPECT_EQ(run_gpulint("check -p build train.py", d.path()).exit_code, 2);
#endif
}

TEST(Cli, DeepNestingDoesNotCrash) {
  TempDir d;
  d.write("parens.py", "import torch\nx = " + std::string(10000, '(') + "1" + std::string(10000, ')') + "\n");
  d.write("lists.py", "import torch\nx = " + std::string(10000, '[') + "1" + std::string(10000, ']') + "\n");
  std::string calls = "import torch\nx = ";
  for (int i = 0; i < 5000; ++i) calls += "f(";
  d.write("calls.py", calls + "1" + std::string(5000, ')') + "\n");
  for (const char* f : {"parens.py", "lists.py", "calls.py"}) {
    auto r = run_gpulint(std::string("check ") + f, d.path(), "", 60);
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1)
        << f << ": exit " << r.exit_code << (r.exit_code == 124 ? " (timed out after 60 s)" : "")
        << "\n" << r.err;
  }
}

// docs/rules.md is generated (`make docs`); this fails when a rule's doc changed without it.
TEST(Docs, RulesMarkdownIsUpToDate) {
  std::filesystem::path committed = std::filesystem::path(GPULINT_SOURCE_DIR) / "docs/rules.md";
  ASSERT_TRUE(std::filesystem::exists(committed))
      << "docs/rules.md is missing: run `make docs`";
  auto md = run_gpulint("rules --format markdown", GPULINT_SOURCE_DIR);
  ASSERT_EQ(md.exit_code, 0);
  EXPECT_TRUE(md.out == testing::read_file(committed))
      << "docs/rules.md is stale: run `make docs` and commit the result";
}

}  // namespace
}  // namespace gpulint

namespace gpulint {
namespace {

// A method of an agent module creates tensors every time it runs; only the training script,
// another file, calls it once per environment step. Checked alone, the module has no finding;
// checked together, the method's creations are DEV003 (resolve_cross_file over Python facts).
TEST(Cli, PythonFindingsConfirmedByAnotherFilesLoop) {
  testing::TempDir d;
  d.write("rl/agent.py",
          "import torch\n"
          "import torch.nn as nn\n"
          "device = torch.device(\"cuda\")\n"
          "class DQNAgent:\n"
          "    def __init__(self):\n"
          "        self.q = nn.Linear(4, 2).to(device)\n"
          "    def act(self, obs):\n"
          "        state = torch.tensor(obs).float().to(device)\n"
          "        return int(self.q(state).argmax().item())\n"
          "    def warmup(self):\n"
          "        return torch.zeros(4).to(device)\n");
  d.write("train.py",
          "import torch\n"
          "import gymnasium as gym\n"
          "from rl.agent import DQNAgent\n"
          "env = gym.make(\"CartPole-v1\")\n"
          "agent = DQNAgent()\n"
          "agent.warmup()\n"
          "for episode in range(100):\n"
          "    obs, _ = env.reset()\n"
          "    for t in range(500):\n"
          "        obs, reward, term, trunc, _ = env.step(agent.act(obs))\n"
          "        if term or trunc:\n"
          "            break\n");
  auto alone = testing::run_gpulint("check --select DEV003 --output-format concise rl/agent.py", d.path());
  EXPECT_EQ(alone.exit_code, 0) << alone.out << alone.err;
  auto both = testing::run_gpulint("check --select DEV003 --output-format concise .", d.path());
  EXPECT_EQ(both.exit_code, 1) << both.out << both.err;
  EXPECT_THAT(both.out, ::testing::HasSubstr("rl/agent.py:8:17: DEV003"));
  EXPECT_THAT(both.out, ::testing::Not(::testing::HasSubstr("rl/agent.py:11:")));  // warmup(): once
  EXPECT_THAT(both.out, ::testing::HasSubstr("Found 1 error."));
}

}  // namespace
}  // namespace gpulint
