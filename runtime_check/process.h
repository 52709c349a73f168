// The process runner of `gpulint confirm`: runs one child in a process group of its own with
// its output captured to files, a timeout after which the whole group gets SIGTERM and then
// SIGKILL, and a clean-up of whatever the group left behind (DataLoader workers). Also the
// temp directory and the Ctrl-C (SIGINT/SIGTERM) flag the orchestrator polls.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace gpulint::runtime_check {

struct ProcessSpec {
  /// argv[0]: a path, or a name looked up on PATH (find_executable).
  std::vector<std::string> argv;
  /// The child's whole environment ("NAME=value"); nullopt: gpulint's own.
  std::optional<std::vector<std::string>> env;
  std::string cwd;          ///< empty: gpulint's working directory
  std::string stdout_path;  ///< file the child's stdout goes to (truncated); empty: /dev/null
  std::string stderr_path;  ///< the same for stderr
  /// Send stderr to the stdout file too (one interleaved log, e.g. a build's output);
  /// stderr_path is then ignored.
  bool stderr_to_stdout = false;
  double timeout_s = 600;   ///< wall-clock limit; <= 0: none
  /// After SIGTERM to the group, how long to wait before SIGKILL.
  double kill_grace_s = 5;
  /// How often the child is polled (and the interrupt flag read).
  double poll_s = 0.01;
};

struct ProcessResult {
  bool started = false;
  std::string error;        ///< why it did not start (started == false)
  pid_t pid = 0;            ///< also the process group id
  int exit_code = -1;       ///< when it exited normally
  int term_signal = 0;      ///< when a signal ended it
  bool timed_out = false;   ///< killed after ProcessSpec::timeout_s
  bool interrupted = false; ///< killed because gpulint was interrupted (interrupt_requested())
  bool sigkill_needed = false;  ///< something in the group ignored SIGTERM
  /// Processes of the group still alive after the child itself ended (all killed).
  std::size_t leftover = 0;
  double wall_s = 0;        ///< start to the child's end
  /// Peak resident set size of the child, bytes: wait4's ru_maxrss, which on Linux is the
  /// largest of the child and the descendants it waited for (a `sh -c` and the program it
  /// ran). nullopt when the child was not reaped by the normal wait (timeout, interrupt).
  std::optional<double> max_rss_bytes;

  bool ok() const {
    return started && !timed_out && !interrupted && term_signal == 0 && exit_code == 0;
  }
  /// "exit code 1", "killed by signal 11 (SIGSEGV)", "timed out after 600 s", ...
  std::string describe() const;
};

/// Runs `spec` to its end: fork, setpgid(0, 0), stdin from /dev/null, stdout/stderr to the
/// files, exec. `on_start(pid)` runs right after a successful start, `on_end()` right after
/// the child ended (both on this thread). Afterwards nothing of the child's process group is
/// left: leftovers get SIGTERM, then SIGKILL after kill_grace_s, and are reaped (gpulint makes
/// itself the child subreaper on Linux so orphaned workers come back to it). Never throws.
ProcessResult run_process(const ProcessSpec& spec,
                          const std::function<void(pid_t)>& on_start = {},
                          const std::function<void()>& on_end = {});

/// Live (non-zombie) processes whose process group is `pgid` (Linux: /proc; elsewhere a
/// best effort: {pgid} when kill(-pgid, 0) succeeds).
std::vector<pid_t> process_group_members(pid_t pgid);

/// `name` with a '/' is returned as is when executable; otherwise the first executable
/// PATH entry named so. nullopt when none.
std::optional<std::string> find_executable(const std::string& name);

/// The last `max_lines` lines (at most `max_bytes` bytes) of a file; empty when unreadable.
std::string file_tail(const std::string& path, std::size_t max_lines = 25,
                      std::size_t max_bytes = 6000);

/// A directory made with mkdtemp under $TMPDIR (or /tmp), removed with everything in it when
/// the object is destroyed. Move-only.
class TempDir {
 public:
  /// `prefix`: the directory name's start, e.g. "gpulint-confirm-". nullopt with *error set
  /// when it cannot be made.
  static std::optional<TempDir> create(const std::string& prefix, std::string* error);
  TempDir(TempDir&& other) noexcept;
  TempDir& operator=(TempDir&& other) noexcept;
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir();
  const std::string& path() const { return path_; }
  /// Removes the directory now (idempotent). False when something could not be removed.
  bool remove();

 private:
  explicit TempDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

/// While alive: SIGINT, SIGTERM and SIGHUP set the interrupt flag instead of ending gpulint
/// (run_process then kills the child's group and returns; the caller unwinds, removing its
/// temp dir). The previous handlers are restored on destruction.
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  struct Saved;
  Saved* saved_;
};

bool interrupt_requested();
/// The signal that set the flag (0: none; request_interrupt() records SIGINT).
int interrupt_signal();
/// Sets the flag as a signal would (tests, or a caller that wants to stop everything).
void request_interrupt();
void clear_interrupt();

/// "SIGTERM", "SIGKILL", ... or "signal N".
std::string signal_name(int sig);

}  // namespace gpulint::runtime_check
