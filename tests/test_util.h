// Helpers shared by the unit tests: temporary directories, file writing, running the binary.
#pragma once

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

#include "analyzer/diagnostic.h"

namespace gpulint::testing {

/// A fresh directory under $TMPDIR (or /tmp), removed with everything in it (permissions
/// restored first) when the object goes away. `path()` is absolute and canonical.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/gpulint-test-XXXXXX";
    char* made = ::mkdtemp(tmpl.data());
    path_ = std::filesystem::canonical(made ? made : tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(
             path_, std::filesystem::directory_options::skip_permission_denied, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      if (!it->is_symlink()) ::chmod(it->path().c_str(), 0755);
    }
    // Directories made unreadable are not entered above: restore them by walking again.
    std::string cmd = "chmod -R u+rwx '" + path_.string() + "' 2>/dev/null";
    [[maybe_unused]] int rc = std::system(cmd.c_str());
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& rel) const { return path_ / rel; }

  /// Writes `content` to `rel` (creating directories); returns the absolute path.
  std::filesystem::path write(const std::string& rel, const std::string& content) const {
    std::filesystem::path p = path_ / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream out(p, std::ios::binary);
    out << content;
    return p;
  }

 private:
  std::filesystem::path path_;
};

// DL001 and DL002 as the rules report them on the first `DataLoader(ds, batch_size=64)` call in
// `text` (byte offsets into `text`; each fix inserts its keyword before the closing
// parenthesis): the output-format tests render these.
inline std::pair<Diagnostic, Diagnostic> dataloader_call_diagnostics(std::string_view text) {
  uint32_t callee = static_cast<uint32_t>(text.find("DataLoader(ds"));
  uint32_t close = static_cast<uint32_t>(text.find("64)") + 2);
  Diagnostic dl001;
  dl001.code = "DL001";
  dl001.message = "`DataLoader` has no worker processes";
  dl001.start = callee;
  dl001.end = callee + 10;
  dl001.fix = Fix{Applicability::Unsafe, "Set `num_workers=4`", {{close, close, ", num_workers=4"}}};
  Diagnostic dl002 = dl001;
  dl002.code = "DL002";
  dl002.message = "`DataLoader` batches are copied from pageable memory";
  dl002.fix = Fix{Applicability::Safe, "Add `pin_memory=True`", {{close, close, ", pin_memory=True"}}};
  return {dl001, dl002};
}

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

/// Runs `bash -c "cd CWD && BINARY ARGS"` with `stdin_text` on standard input; with
/// `timeout_s` > 0 the run is killed after that many seconds (exit code 124).
inline RunResult run_gpulint(const std::string& args, const std::filesystem::path& cwd,
                             const std::string& stdin_text = "", int timeout_s = 0) {
  TempDir io;
  auto in = io.write("stdin", stdin_text);
  std::string prefix = timeout_s > 0 ? "timeout -k 5 " + std::to_string(timeout_s) + " " : "";
  std::string cmd = "cd '" + cwd.string() + "' && " + prefix + "'" + std::string(GPULINT_BINARY) + "' " + args +
                    " <'" + in.string() + "' >'" + (io / "out").string() + "' 2>'" +
                    (io / "err").string() + "'";
  int status = std::system(cmd.c_str());
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(io / "out");
  r.err = read_file(io / "err");
  return r;
}

/// A short, realistic training script with one DataLoader that has no workers (DL001) and is
/// copied to the GPU without pinned memory (DL002).
inline const char* kTrainScript =
    "import torch\n"
    "from torch.utils.data import DataLoader\n"
    "\n"
    "device = torch.device(\"cuda\" if torch.cuda.is_available() else \"cpu\")\n"
    "loader = DataLoader(train_set, batch_size=64, shuffle=True)\n"
    "model = Net().to(device)\n"
    "for images, labels in loader:\n"
    "    images, labels = images.to(device), labels.to(device)\n"
    "    loss = criterion(model(images), labels)\n"
    "    optimizer.zero_grad()\n"
    "    loss.backward()\n"
    "    optimizer.step()\n";

/// Clean training code: workers and pinned memory set.
inline const char* kCleanScript =
    "import torch\n"
    "from torch.utils.data import DataLoader\n"
    "\n"
    "device = torch.device(\"cuda\")\n"
    "loader = DataLoader(train_set, batch_size=64, num_workers=4, pin_memory=True)\n"
    "model = Net().to(device)\n"
    "for images, labels in loader:\n"
    "    images, labels = images.to(device), labels.to(device)\n"
    "    loss = criterion(model(images), labels)\n"
    "    optimizer.zero_grad()\n"
    "    loss.backward()\n"
    "    optimizer.step()\n";

}  // namespace gpulint::testing
