// Configuration: discovery (closest file wins, pyproject.toml vs gpulint.toml), parsing,
// validation errors with file, line and key, per-file-ignores, excludes, --config.
#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include "analyzer/config.h"
#include "tests/test_util.h"

namespace gpulint {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using Codes = std::set<std::string>;
using testing::TempDir;

std::string config_error(const TempDir& dir, const std::string& name, const std::string& text) {
  dir.write(name, text);
  try {
    ConfigResolver r(dir.path(), std::nullopt, {});
    r.file_settings(dir / "train.py");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(Config, NoConfigMeansDefaults) {
  TempDir dir;
  ConfigResolver r(dir.path(), std::nullopt, {});
  FileSettings s = r.file_settings(dir / "train.py");
  EXPECT_EQ(s.enabled, RuleSelection{}.enabled_codes());
  EXPECT_EQ(s.options.dataloader_num_workers, "auto");
}

TEST(Config, ClosestFileWins) {
  TempDir dir;
  dir.write("pyproject.toml", "[project]\nname = \"trainer\"\n\n[tool.gpulint]\nignore = [\"DL002\"]\n"
                              "dataloader-num-workers = 4\n");
  dir.write("experiments/gpulint.toml", "select = [\"DL001\"]\n");
  dir.write("experiments/deep/er/x.txt", "");
  ConfigResolver r(dir.path(), std::nullopt, {});
  FileSettings top = r.file_settings(dir / "train.py");
  EXPECT_FALSE(top.enabled.count("DL002"));
  EXPECT_TRUE(top.enabled.count("DL001"));
  EXPECT_EQ(top.options.dataloader_num_workers, "4");

  FileSettings exp = r.file_settings(dir / "experiments/deep/er/train.py");
  EXPECT_EQ(exp.enabled, (Codes{"DL001"}));
  // The closest file replaces the farther one; settings are not merged.
  EXPECT_EQ(exp.options.dataloader_num_workers, "auto");
}

TEST(Config, PyprojectWithoutToolGpulintIsSkipped) {
  TempDir dir;
  dir.write("gpulint.toml", "ignore = [\"MEM\"]\n");
  dir.write("pkg/pyproject.toml", "[tool.black]\nline-length = 100\n");
  ConfigResolver r(dir.path(), std::nullopt, {});
  EXPECT_FALSE(r.file_settings(dir / "pkg/train.py").enabled.count("MEM001"));
}

TEST(Config, PrecedenceInOneDirectory) {
  TempDir dir;
  dir.write("pyproject.toml", "[tool.gpulint]\nselect = [\"MEM\"]\n");
  dir.write("gpulint.toml", "select = [\"DEV\"]\n");
  {
    ConfigResolver r(dir.path(), std::nullopt, {});
    EXPECT_EQ(r.file_settings(dir / "a.py").enabled,
              (Codes{"DEV001", "DEV002", "DEV003"}));
  }
  dir.write(".gpulint.toml", "select = [\"DL002\"]\n");
  ConfigResolver r(dir.path(), std::nullopt, {});
  EXPECT_EQ(r.file_settings(dir / "a.py").enabled, (Codes{"DL002"}));
}

TEST(Config, CommandLineOverridesConfig) {
  TempDir dir;
  dir.write("gpulint.toml", "select = [\"DL\"]\nignore = [\"DL002\"]\n");
  ConfigResolver extend(dir.path(), std::nullopt, CliOverrides{{}, {"MEM001", "DL002"}, {}});
  EXPECT_EQ(extend.file_settings(dir / "a.py").enabled, (Codes{"DL001", "DL002", "MEM001"}));
  ConfigResolver select(dir.path(), std::nullopt, CliOverrides{{"DEV001"}, {}, {}});
  EXPECT_EQ(select.file_settings(dir / "a.py").enabled, (Codes{"DEV001"}));
  ConfigResolver ignore(dir.path(), std::nullopt, CliOverrides{{}, {}, {"DL001"}});
  EXPECT_TRUE(ignore.file_settings(dir / "a.py").enabled.empty());
}

TEST(Config, ExplicitConfigFileReplacesDiscovery) {
  TempDir dir;
  dir.write("sub/gpulint.toml", "select = [\"DEV\"]\n");
  auto cfg = dir.write("ci/lint.toml", "select = [\"MEM001\"]\ntorch-version = \"2.4\"\n");
  ConfigResolver r(dir.path(), cfg, {});
  FileSettings s = r.file_settings(dir / "sub/train.py");
  EXPECT_EQ(s.enabled, (Codes{"MEM001"}));
  EXPECT_EQ(s.options.torch_version, "2.4");
  EXPECT_THROW(ConfigResolver(dir.path(), dir / "missing.toml", {}), ConfigError);
}

TEST(Config, PerFileIgnores) {
  TempDir dir;
  dir.write("pyproject.toml",
            "[tool.gpulint]\n"
            "[tool.gpulint.per-file-ignores]\n"
            "\"tests/*\" = [\"DL\"]\n"
            "\"conftest.py\" = [\"MEM001\"]\n"
            "\"scripts/\" = [\"DEV001\"]\n");
  ConfigResolver r(dir.path(), std::nullopt, {});
  FileSettings t = r.file_settings(dir / "tests/test_loader.py");
  EXPECT_FALSE(t.enabled.count("DL001"));
  EXPECT_FALSE(t.enabled.count("DL002"));
  EXPECT_TRUE(t.enabled.count("MEM001"));
  EXPECT_FALSE(r.file_settings(dir / "pkg/conftest.py").enabled.count("MEM001"));
  EXPECT_FALSE(r.file_settings(dir / "scripts/sub/run.py").enabled.count("DEV001"));
  FileSettings other = r.file_settings(dir / "train.py");
  EXPECT_TRUE(other.enabled.count("DL001"));
  EXPECT_TRUE(other.enabled.count("MEM001"));
}

TEST(Config, ExcludeAndExtendExclude) {
  TempDir dir;
  dir.write("gpulint.toml", "extend-exclude = [\"legacy\", \"data/generated/*.py\"]\n");
  ConfigResolver r(dir.path(), std::nullopt, {});
  const ExcludeFilter& f = r.filter_for_dir(dir.path());
  EXPECT_TRUE(f.excluded(dir / "legacy", true));
  EXPECT_TRUE(f.excluded(dir / "src/legacy", true));
  EXPECT_TRUE(f.excluded(dir / "data/generated/model_pb2.py", false));
  EXPECT_FALSE(f.excluded(dir / "src/data/generated/model_pb2.py", false));
  EXPECT_TRUE(f.excluded(dir / ".venv", true));  // the defaults still apply

  TempDir dir2;
  dir2.write("gpulint.toml", "exclude = [\"third_party\"]\n");
  ConfigResolver r2(dir2.path(), std::nullopt, {});
  const ExcludeFilter& f2 = r2.filter_for_dir(dir2.path());
  EXPECT_TRUE(f2.excluded(dir2 / "third_party", true));
  EXPECT_FALSE(f2.excluded(dir2 / "build", true));  // `exclude` replaces the defaults (Ruff)
}

TEST(Config, OptionValues) {
  TempDir dir;
  dir.write("gpulint.toml", "dataloader-num-workers = \"auto\"\ntorch-version = \"2.1.2\"\n");
  ConfigResolver r(dir.path(), std::nullopt, {});
  FileSettings s = r.file_settings(dir / "a.py");
  EXPECT_EQ(s.options.dataloader_num_workers, "auto");
  EXPECT_EQ(s.options.torch_version, "2.1.2");
}

TEST(ConfigErrors, MalformedTomlNamesFileAndLine) {
  TempDir dir;
  std::string e = config_error(dir, "gpulint.toml", "select = [\"DL001\"]\nignore = [\"DL002\"\n");
  EXPECT_THAT(e, StartsWith("gpulint.toml:"));
  EXPECT_THAT(e, HasSubstr("invalid TOML"));
  // toml++ reports the error where the array fails to close (line 2 or the end, line 3).
  EXPECT_TRUE(e.rfind("gpulint.toml:2:", 0) == 0 || e.rfind("gpulint.toml:3:", 0) == 0) << e;
}

TEST(ConfigErrors, MalformedPyprojectNamesFileAndLine) {
  TempDir dir;
  std::string e = config_error(dir, "pyproject.toml",
                               "[project]\nname = \"x\"\n\n[tool.gpulint]\nselect = [DL001]\n");
  EXPECT_THAT(e, StartsWith("pyproject.toml:5:"));
}

TEST(ConfigErrors, UnknownKeyNamesFileLineAndKey) {
  TempDir dir;
  std::string e = config_error(dir, "gpulint.toml",
                               "# training lint settings\nselect = [\"DL\"]\nselct = [\"DEV\"]\n");
  EXPECT_THAT(e, StartsWith("gpulint.toml:3: key `selct`: unknown key"));

  TempDir dir2;
  std::string e2 = config_error(dir2, "pyproject.toml",
                                "[tool.gpulint]\nselect = [\"DL\"]\n\nnum-workers = 4\n");
  EXPECT_THAT(e2, StartsWith("pyproject.toml:4: key `num-workers`: unknown key"));

  TempDir dir3;
  std::string e3 = config_error(dir3, "gpulint.toml", "[tool.gpulint]\nselect = [\"DL\"]\n");
  EXPECT_THAT(e3, StartsWith("gpulint.toml:1: key `tool`"));
  EXPECT_THAT(e3, HasSubstr("pyproject.toml"));
}

TEST(ConfigErrors, WrongTypes) {
  TempDir a;
  EXPECT_THAT(config_error(a, "gpulint.toml", "select = \"DL001\"\n"),
              StartsWith("gpulint.toml:1: key `select`: expected an array of strings, found a string"));
  TempDir b;
  EXPECT_THAT(config_error(b, "gpulint.toml", "\nignore = [\"DL001\", 2]\n"),
              StartsWith("gpulint.toml:2: key `ignore`: expected an array of strings"));
  TempDir c;
  EXPECT_THAT(config_error(c, "gpulint.toml", "dataloader-num-workers = 0\n"),
              StartsWith("gpulint.toml:1: key `dataloader-num-workers`:"));
  TempDir d;
  EXPECT_THAT(config_error(d, "gpulint.toml", "dataloader-num-workers = \"many\"\n"),
              StartsWith("gpulint.toml:1: key `dataloader-num-workers`:"));
  TempDir e;
  EXPECT_THAT(config_error(e, "gpulint.toml", "torch-version = 2.4\n"),
              StartsWith("gpulint.toml:1: key `torch-version`: expected a string"));
  TempDir f;
  EXPECT_THAT(config_error(f, "gpulint.toml", "per-file-ignores = [\"tests\"]\n"),
              StartsWith("gpulint.toml:1: key `per-file-ignores`:"));
  TempDir g;
  EXPECT_THAT(config_error(g, "gpulint.toml", "respect-gitignore = \"yes\"\n"),
              StartsWith("gpulint.toml:1: key `respect-gitignore`: expected a boolean"));
}

TEST(ConfigErrors, UnknownRuleCodes) {
  TempDir dir;
  std::string e = config_error(dir, "gpulint.toml",
                               "select = [\n  \"DL001\",\n  \"DL999\",\n]\n");
  EXPECT_THAT(e, StartsWith("gpulint.toml:3: key `select`: unknown rule selector `DL999`"));
  // The same words as the command line's error (one message, selection.cpp).
  EXPECT_THAT(e, StartsWith("gpulint.toml:3: key `select`: " + unknown_selector_message("DL999")));
  TempDir dir2;
  std::string e2 = config_error(dir2, "gpulint.toml",
                                "[per-file-ignores]\n\"tests/*\" = [\"E501\"]\n");
  EXPECT_THAT(e2, StartsWith("gpulint.toml:2: key `per-file-ignores.\"tests/*\"`"));
  EXPECT_THAT(e2, HasSubstr("E501"));
}

TEST(ConfigErrors, ErrorInASubdirectoryConfig) {
  TempDir dir;
  dir.write("gpulint.toml", "select = [\"DL\"]\n");
  dir.write("exp/gpulint.toml", "select = [\"DL\"]\nextend_select = [\"MEM\"]\n");
  ConfigResolver r(dir.path(), std::nullopt, {});
  EXPECT_NO_THROW(r.file_settings(dir / "train.py"));
  try {
    r.file_settings(dir / "exp/train.py");
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_THAT(std::string(e.what()), StartsWith("exp/gpulint.toml:2: key `extend_select`"));
  }
}

}  // namespace
}  // namespace gpulint
