// File discovery: glob and gitignore semantics, default skipped directories, config
// excludes, explicit files and --force-exclude, symlink loops, unreadable directories.
#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include <unistd.h>

#include "analyzer/config.h"
#include "analyzer/discovery.h"
#include "analyzer/glob.h"
#include "tests/test_util.h"

namespace gpulint {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::TempDir;

std::vector<std::string> paths_of(const DiscoveryResult& r) {
  std::vector<std::string> out;
  for (const auto& f : r.files) out.push_back(f.path);
  return out;
}

DiscoveryResult discover_in(const TempDir& dir, std::vector<std::string> args = {},
                            bool force_exclude = false, ConfigResolver* resolver = nullptr) {
  DiscoveryOptions o;
  o.cwd = dir.path();
  o.force_exclude = force_exclude;
  if (resolver)
    o.filter_for_dir = [resolver](const fs::path& d) -> const ExcludeFilter& {
      return resolver->filter_for_dir(d);
    };
  // Paths relative to the temp dir: run from there.
  return discover_files(args, o);
}

TEST(Glob, Wildcards) {
  EXPECT_TRUE(Glob("*.py").matches("train.py"));
  EXPECT_FALSE(Glob("*.py").matches("src/train.py"));  // '*' stops at '/'
  EXPECT_FALSE(Glob("*.py").matches("train.pyc"));
  EXPECT_TRUE(Glob("train_?.py").matches("train_a.py"));
  EXPECT_FALSE(Glob("train_?.py").matches("train_ab.py"));
  EXPECT_TRUE(Glob("[abc].py").matches("b.py"));
  EXPECT_FALSE(Glob("[abc].py").matches("d.py"));
  EXPECT_TRUE(Glob("[!abc].py").matches("d.py"));
  EXPECT_TRUE(Glob("[^abc].py").matches("d.py"));
  EXPECT_TRUE(Glob("run[0-9].py").matches("run7.py"));
  EXPECT_FALSE(Glob("run[0-9].py").matches("runx.py"));
  EXPECT_TRUE(Glob("\\*.py").matches("*.py"));
  EXPECT_FALSE(Glob("\\*.py").matches("a.py"));
  EXPECT_TRUE(Glob("[.py").matches("[.py"));  // unclosed class: a literal '['
  EXPECT_TRUE(Glob("a*b*c*d*e*f*g").matches("aXbXcXdXeXfXg"));
  EXPECT_FALSE(Glob("a*a*a*a*a*a*a*b").matches(std::string(200, 'a')));  // no blow-up
}

TEST(Glob, DoubleStar) {
  EXPECT_TRUE(Glob("**/foo").matches("foo"));
  EXPECT_TRUE(Glob("**/foo").matches("a/b/foo"));
  EXPECT_FALSE(Glob("**/foo").matches("a/bfoo"));
  EXPECT_TRUE(Glob("a/**/b").matches("a/b"));
  EXPECT_TRUE(Glob("a/**/b").matches("a/x/y/b"));
  EXPECT_FALSE(Glob("a/**/b").matches("a/xb"));
  EXPECT_TRUE(Glob("logs/**").matches("logs/x"));
  EXPECT_TRUE(Glob("logs/**").matches("logs/x/y.py"));
  EXPECT_FALSE(Glob("logs/**").matches("logsx/y"));
  EXPECT_TRUE(Glob("**").matches("anything/at/all"));
  EXPECT_TRUE(Glob("a**b").matches("axxb"));  // not at a component boundary: a plain '*'
  EXPECT_FALSE(Glob("a**b").matches("ax/xb"));
}

TEST(Gitignore, PatternParsing) {
  EXPECT_FALSE(PathPattern::parse(""));
  EXPECT_FALSE(PathPattern::parse("# a comment"));
  EXPECT_FALSE(PathPattern::parse("   "));
  auto hash = PathPattern::parse("\\#notes.py");
  ASSERT_TRUE(hash);
  EXPECT_TRUE(hash->matches("#notes.py", false));
  auto neg = PathPattern::parse("!keep.py");
  ASSERT_TRUE(neg);
  EXPECT_TRUE(neg->negated);
  auto lit = PathPattern::parse("\\!important.py");
  ASSERT_TRUE(lit);
  EXPECT_FALSE(lit->negated);
  EXPECT_TRUE(lit->matches("!important.py", false));
  auto dir = PathPattern::parse("checkpoints/");
  ASSERT_TRUE(dir);
  EXPECT_TRUE(dir->dir_only);
  EXPECT_FALSE(dir->anchored);
  EXPECT_TRUE(dir->matches("runs/checkpoints", true));
  EXPECT_FALSE(dir->matches("runs/checkpoints", false));
  auto anchored = PathPattern::parse("/setup.py");
  ASSERT_TRUE(anchored);
  EXPECT_TRUE(anchored->anchored);
  EXPECT_TRUE(anchored->matches("setup.py", false));
  EXPECT_FALSE(anchored->matches("pkg/setup.py", false));
  auto middle = PathPattern::parse("data/raw");
  ASSERT_TRUE(middle);
  EXPECT_TRUE(middle->anchored);
  EXPECT_FALSE(middle->matches("x/data/raw", true));
  auto trailing = PathPattern::parse("notes.py   ");
  ASSERT_TRUE(trailing);
  EXPECT_TRUE(trailing->matches("notes.py", false));
  auto escaped_space = PathPattern::parse("odd\\ ");
  ASSERT_TRUE(escaped_space);
  EXPECT_TRUE(escaped_space->matches("odd ", false));
  auto crlf = PathPattern::parse("*.log\r");
  ASSERT_TRUE(crlf);
  EXPECT_TRUE(crlf->matches("x.log", false));
}

TEST(Gitignore, LastMatchWinsAndNegation) {
  IgnoreFile f("# generated code\n*_pb2.py\n!keep_pb2.py\nwandb/\n", "/repo");
  EXPECT_EQ(f.decide("model_pb2.py", false), true);
  EXPECT_EQ(f.decide("proto/model_pb2.py", false), true);
  EXPECT_EQ(f.decide("keep_pb2.py", false), false);
  EXPECT_EQ(f.decide("wandb", true), true);
  EXPECT_EQ(f.decide("wandb", false), std::nullopt);
  EXPECT_EQ(f.decide("train.py", false), std::nullopt);
}

// A realistic repository: training code, a virtualenv, caches, generated code.
void make_repo(const TempDir& d) {
  d.write("train.py", testing::kTrainScript);
  d.write("README.md", "# trainer\n");
  d.write("models/resnet.py", "import torch\n");
  d.write("models/resnet.pyi", "def f() -> None: ...\n");
  d.write("models/notes.txt", "");
  d.write(".git/hooks/pre-commit.py", "");
  d.write(".git/info/exclude", "scratch.py\n");
  d.write(".venv/lib/python3.11/site-packages/torch/__init__.py", "");
  d.write("venv/lib/x.py", "");
  d.write("node_modules/pkg/x.py", "");
  d.write("build/lib/train.py", "");
  d.write("models/__pycache__/resnet.cpython-311.py", "");
  d.write(".tox/py311/x.py", "");
  d.write(".mypy_cache/x.py", "");
  d.write(".gitignore", "# local stuff\n/wandb/\n*_pb2.py\n!keep_pb2.py\n/top_only.py\nlogs/**\n");
  d.write("wandb/run-1/files/code.py", "");
  d.write("proto/model_pb2.py", "");
  d.write("proto/keep_pb2.py", "");
  d.write("top_only.py", "");
  d.write("models/top_only.py", "");
  d.write("logs/2024/plot.py", "");
  d.write("scratch.py", "");
  d.write("experiments/.gitignore", "local_*.py\n!local_keep.py\n");
  d.write("experiments/local_try.py", "");
  d.write("experiments/local_keep.py", "");
  d.write("experiments/sweep.py", "");
  d.write("local_try.py", "");  // the nested .gitignore applies to its subtree only
}

TEST(Discovery, WalksRecursivelySkippingIgnoredPaths) {
  TempDir d;
  make_repo(d);
  DiscoveryResult r = discover_in(d);
  EXPECT_TRUE(r.errors.empty());
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_THAT(paths_of(r),
              ElementsAre("experiments/local_keep.py", "experiments/sweep.py", "local_try.py",
                          "models/resnet.py", "models/resnet.pyi", "models/top_only.py",
                          "proto/keep_pb2.py", "train.py"));
  EXPECT_EQ(r.files.back().absolute, d / "train.py");
  EXPECT_EQ(r.files[4].kind, FileKind::PythonStub);
}

TEST(Discovery, SubdirectoryArgumentStillSeesRepositoryGitignore) {
  TempDir d;
  make_repo(d);
  DiscoveryResult r = discover_in(d, {"proto", "experiments/"});
  EXPECT_THAT(paths_of(r), ElementsAre("experiments/local_keep.py", "experiments/sweep.py",
                                       "proto/keep_pb2.py"));
}

TEST(Discovery, AbsolutePathsStayAbsolute) {
  TempDir d;
  d.write("pkg/train.py", "");
  DiscoveryOptions o;
  o.cwd = "/";
  DiscoveryResult r = discover_files({(d / "pkg").string()}, o);
  ASSERT_EQ(r.files.size(), 1u);
  EXPECT_EQ(r.files[0].path, (d / "pkg/train.py").string());
}

TEST(Discovery, ExplicitFilesAreAlwaysChecked) {
  TempDir d;
  make_repo(d);
  DiscoveryResult r = discover_in(d, {"build/lib/train.py", "proto/model_pb2.py", "README.md"});
  EXPECT_THAT(paths_of(r),
              ElementsAre("README.md", "build/lib/train.py", "proto/model_pb2.py"));
  for (const auto& f : r.files) EXPECT_TRUE(f.explicit_path);
  // --force-exclude applies excludes and .gitignore to them too.
  DiscoveryResult forced =
      discover_in(d, {"build/lib/train.py", "proto/model_pb2.py", "train.py"}, true);
  EXPECT_THAT(paths_of(forced), ElementsAre("train.py"));
  // Explicit directories are walked even when excluded.
  DiscoveryResult dir = discover_in(d, {"build"});
  EXPECT_THAT(paths_of(dir), ElementsAre("build/lib/train.py"));
}

TEST(Discovery, ConfigExcludes) {
  TempDir d;
  d.write("pyproject.toml", "[tool.gpulint]\nextend-exclude = [\"legacy\", \"scripts/old_*.py\"]\n");
  d.write("train.py", "");
  d.write("legacy/train_v1.py", "");
  d.write("src/legacy/x.py", "");
  d.write("scripts/old_eval.py", "");
  d.write("scripts/eval.py", "");
  d.write("venv/x.py", "");
  ConfigResolver resolver(d.path(), std::nullopt, {});
  DiscoveryResult r = discover_in(d, {}, false, &resolver);
  EXPECT_THAT(paths_of(r), ElementsAre("scripts/eval.py", "train.py"));
  DiscoveryResult forced = discover_in(d, {"legacy/train_v1.py"}, true, &resolver);
  EXPECT_TRUE(forced.files.empty());
}

TEST(Discovery, RespectGitignoreCanBeTurnedOff) {
  TempDir d;
  d.write("gpulint.toml", "respect-gitignore = false\n");
  d.write(".gitignore", "gen/\n");
  d.write("gen/x.py", "");
  ConfigResolver resolver(d.path(), std::nullopt, {});
  EXPECT_THAT(paths_of(discover_in(d, {}, false, &resolver)), ElementsAre("gen/x.py"));
}

TEST(Discovery, SymlinkLoopsTerminate) {
  TempDir d;
  d.write("pkg/train.py", "");
  d.write("pkg/sub/eval.py", "");
  ASSERT_EQ(::symlink("..", (d / "pkg/sub/up").c_str()), 0);
  ASSERT_EQ(::symlink(".", (d / "pkg/self").c_str()), 0);
  ASSERT_EQ(::symlink((d / "pkg").c_str(), (d / "pkg/sub/abs").c_str()), 0);
  // Two links pointing at each other (both dangle) and a link to a file.
  ASSERT_EQ(::symlink("b", (d / "pkg/a").c_str()), 0);
  ASSERT_EQ(::symlink("a", (d / "pkg/b").c_str()), 0);
  ASSERT_EQ(::symlink("train.py", (d / "pkg/alias.py").c_str()), 0);
  DiscoveryResult r = discover_in(d);
  EXPECT_THAT(paths_of(r), ElementsAre("pkg/alias.py", "pkg/sub/eval.py", "pkg/train.py"));
}

TEST(Discovery, DanglingSymlinkIsAWarningInDirectories) {
  TempDir d;
  d.write("train.py", "");
  ASSERT_EQ(::symlink("missing.py", (d / "gone.py").c_str()), 0);
  DiscoveryResult r = discover_in(d);
  EXPECT_THAT(paths_of(r), ElementsAre("train.py"));
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_THAT(r.warnings[0], HasSubstr("gone.py"));
  // Named on the command line: an error (exit 2).
  DiscoveryResult named = discover_in(d, {"gone.py"});
  EXPECT_TRUE(named.files.empty());
  ASSERT_EQ(named.errors.size(), 1u);
  EXPECT_THAT(named.errors[0], HasSubstr("gone.py"));
}

TEST(Discovery, MissingPathIsAnError) {
  TempDir d;
  d.write("train.py", "");
  DiscoveryResult r = discover_in(d, {"train.py", "no_such_dir"});
  EXPECT_THAT(paths_of(r), ElementsAre("train.py"));
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_THAT(r.errors[0], HasSubstr("no_such_dir: No such file or directory"));
}

TEST(Discovery, UnreadableDirectoryIsAWarning) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads a mode-000 directory anyway";
  TempDir d;
  d.write("train.py", "");
  d.write("private/secret.py", "");
  ASSERT_EQ(::chmod((d / "private").c_str(), 0), 0);
  DiscoveryResult r = discover_in(d);
  EXPECT_THAT(paths_of(r), ElementsAre("train.py"));
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_THAT(r.warnings[0], HasSubstr("private: cannot read directory"));
}

TEST(Discovery, DeterministicAndDeduplicated) {
  TempDir d;
  for (int i = 0; i < 30; ++i) d.write("m" + std::to_string(29 - i) + "/t.py", "");
  DiscoveryResult a = discover_in(d, {".", "m3", "m3/t.py"});
  DiscoveryResult b = discover_in(d);
  EXPECT_EQ(paths_of(a), paths_of(b));
  EXPECT_EQ(a.files.size(), 30u);
  EXPECT_TRUE(std::is_sorted(a.files.begin(), a.files.end(),
                             [](auto& x, auto& y) { return x.path < y.path; }));
}

TEST(Discovery, ExtensionSetIsExtensible) {
  TempDir d;
  d.write("train.py", "");
  d.write("csrc/loader.cpp", "");
  DiscoveryOptions o;
  o.cwd = d.path();
  EXPECT_EQ(discover_files({}, o).files.size(), 1u);
  o.extensions[".cpp"] = FileKind::Cpp;
  DiscoveryResult r = discover_files({}, o);
  ASSERT_EQ(r.files.size(), 2u);
  EXPECT_EQ(r.files[0].kind, FileKind::Cpp);
}

}  // namespace
}  // namespace gpulint
