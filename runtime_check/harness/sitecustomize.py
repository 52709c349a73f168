"""gpulint confirm's step-timing harness, loaded at interpreter start-up (see README.md here).

The orchestrator puts this directory first on PYTHONPATH, so Python imports this file as
`sitecustomize` before the user's script runs. With GPULINT_HARNESS_OUT set it installs the
harness; either way it then runs the next `sitecustomize` on sys.path (Debian's
/usr/lib/python3.X/sitecustomize.py, a virtualenv's, ...), which this file shadows.

Times the steps of the user's training loop, without editing the script:

* DataLoader mode (default): `torch.utils.data.DataLoader.__iter__` is patched as soon as
  `torch.utils.data.dataloader` is imported (a one-shot meta path finder, removed once it
  fired). The loop that counts is the first DataLoader to hand out its second batch (a
  `next(iter(loader))` peek on another loader does not capture it); its batches are counted
  across all its iterators (epochs). Per batch: `wait_s` = time inside `next()`, `wall_s` =
  time since the previous batch's `next()` returned (the whole loop iteration).
* Loop-line mode (GPULINT_HARNESS_LOOP_LINE set): each time the script's loop header line runs
  is a step boundary; `wait_s` is null. Python >= 3.12: sys.monitoring LINE events on the one
  code object holding that line. Older Pythons: sys.settrace, whose global hook runs on every
  Python-level call in the process (see README.md for the measured overhead).

After WARMUP + STEPS steps: the JSON is written (temp file + rename), DataLoader workers are
shut down, stdout/stderr flushed, and the process leaves with os._exit(0). A script that ends
first gets its JSON from an atexit hook, with "completed": false.
"""
import atexit
import json
import os
import sys
import time
import weakref

SCHEMA = 1
_perf = time.perf_counter

_state = None


def _env_int(name, default):
    try:
        return int(os.environ.get(name, ""))
    except ValueError:
        return default


class _State:
    def __init__(self):
        self.out = os.environ["GPULINT_HARNESS_OUT"]
        self.warmup = max(0, _env_int("GPULINT_HARNESS_WARMUP", 5))
        self.steps = max(1, _env_int("GPULINT_HARNESS_STEPS", 30))
        self.total = self.warmup + self.steps
        self.sync = os.environ.get("GPULINT_HARNESS_SYNC", "0") == "1"
        line = _env_int("GPULINT_HARNESS_LOOP_LINE", 0)
        self.loop_line = line if line > 0 else None
        self.source = "loop_line" if self.loop_line else "dataloader"
        self.pid = os.getpid()
        self.records = []
        self.counted = 0          # steps (batches or loop iterations) seen so far
        self.prev = None          # perf_counter() at the previous step boundary
        self.started = False      # a loop was found
        self.done = False
        self.locked = None        # weakref to the DataLoader whose batches count
        self.candidates = {}      # id(loader) -> (t_iter_created, t0, t1) of its first batch
        self.mp_iters = weakref.WeakSet()  # live multi-process iterators, to shut down
        self.mp_iter_type = None
        self.cuda = None          # torch.cuda, once CUDA is initialised
        self.cuda_device = 0
        try:
            self.statm = os.open("/proc/self/statm", os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
            self.page = os.sysconf("SC_PAGE_SIZE")
            os.pread(self.statm, 128, 0)
        except (OSError, ValueError, AttributeError):
            self.statm = None

    # --- per-step measurements -----------------------------------------------------------
    def rss(self):
        if self.statm is None:
            return None
        try:  # resident pages: the second field of /proc/self/statm
            return int(os.pread(self.statm, 128, 0).split()[1]) * self.page
        except (OSError, ValueError, IndexError):
            return None

    def _cuda(self):
        """torch.cuda once the run has initialised CUDA (never initialises it), else None."""
        if self.cuda is not None:
            return self.cuda
        torch = sys.modules.get("torch")
        if torch is None:
            return None
        try:
            if torch.cuda.is_initialized():
                self.cuda = torch.cuda
                self.cuda_device = torch.cuda.current_device()
                return self.cuda
        except Exception:
            pass
        return None

    def cuda_memory(self):
        """(allocated, peak allocated) bytes of the caching allocator, or (None, None).

        torch.cuda.memory_allocated() flattens every allocator statistic into a dict in Python
        (~0.1 ms per call on an H100 host): read the one counter from the nested C++ dict."""
        cuda = self._cuda()
        if cuda is None:
            return None, None
        try:
            stat = sys.modules["torch"]._C._cuda_memoryStats(self.cuda_device)["allocated_bytes"]["all"]
            return stat["current"], stat["peak"]
        except Exception:
            stats = cuda.memory_stats(self.cuda_device)
            return (stats.get("allocated_bytes.all.current", 0),
                    stats.get("allocated_bytes.all.peak", 0))

    def boundary_sync(self):
        cuda = self._cuda()
        if cuda is not None:
            cuda.synchronize()

    def count(self, t_end, wall, wait):
        """One step ended at t_end (perf_counter) after `wall` seconds."""
        k = self.counted
        self.counted = k + 1
        self.prev = t_end
        if k >= self.warmup:
            allocated, peak = self.cuda_memory()
            self.records.append({
                "step": k,
                "wall_s": wall,
                "wait_s": wait,
                "cuda_allocated": allocated,
                "cuda_max_allocated": peak,
                "rss_bytes": self.rss(),
            })
        if self.counted >= self.total:
            self.finish(True, "steps reached")

    # --- DataLoader mode -----------------------------------------------------------------
    def on_iter(self, loader, it):
        if self.mp_iter_type is not None and isinstance(it, self.mp_iter_type):
            self.mp_iters.add(it)
        if self.done or self.source != "dataloader":
            return it
        if self.locked is not None and self.locked() is not loader:
            return it
        return _TrackedIter(it, loader, _perf())

    def on_batch(self, w, t0, t1):
        if self.done:
            return
        if self.locked is None:
            first = self.candidates.get(id(w.loader))
            if first is None:
                self.candidates[id(w.loader)] = (w.created, t0, t1)
                return
            # This loader hands out its second batch: it drives the loop.
            self.locked = weakref.ref(w.loader)
            self.candidates = None
            self.started = True
            created, f0, f1 = first
            self.count(f1, f1 - created, f1 - f0)
            if self.done:
                return
        elif self.locked() is not w.loader:
            return
        self.count(t1, t1 - self.prev, t1 - t0)

    # --- loop-line mode ------------------------------------------------------------------
    def on_line(self):
        if self.sync:
            self.boundary_sync()
        t = _perf()
        if self.prev is None:
            self.started = True
            self.prev = t
            return
        self.count(t, t - self.prev, None)

    # --- the end -------------------------------------------------------------------------
    def document(self, completed, reason):
        torch = sys.modules.get("torch")
        device, gpu_name, version = "cpu", None, ""
        if torch is not None:
            version = str(getattr(torch, "__version__", ""))
            try:
                if torch.cuda.is_initialized():
                    device = "cuda"
                    gpu_name = torch.cuda.get_device_name(torch.cuda.current_device())
                elif (getattr(torch.backends, "mps", None) is not None
                      and torch.backends.mps.is_available()
                      and torch.mps.current_allocated_memory() > 0):
                    device = "mps"
            except Exception:
                pass
        return {
            "schema": SCHEMA,
            "completed": completed,
            "reason": reason,
            "warmup": self.warmup,
            "steps": self.records,
            "device": device,
            "gpu_name": gpu_name,
            "torch_version": version,
            "python": "%d.%d.%d" % sys.version_info[:3],
            "pid": self.pid,
            "source": self.source,
        }

    def write(self, completed, reason):
        doc = self.document(completed, reason)
        tmp = "%s.%d.tmp" % (self.out, self.pid)
        try:
            with open(tmp, "w") as f:
                json.dump(doc, f, indent=1)
                f.write("\n")
            os.replace(tmp, self.out)
        except OSError as e:
            sys.stderr.write("gpulint harness: cannot write %s: %s\n" % (self.out, e))

    def finish(self, completed, reason):
        if self.done:
            return
        self.done = True
        _stop_loop_line()
        self.write(completed, reason)
        if not completed:
            return
        for it in list(self.mp_iters):
            try:
                it._shutdown_workers()
            except Exception:
                pass
        try:
            if "logging" in sys.modules:
                sys.modules["logging"].shutdown()
        except Exception:
            pass
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        os._exit(0)

    def at_exit(self):
        if self.done or os.getpid() != self.pid:
            return
        self.finish(False, "script ended" if self.started else "no loop found")


class _TrackedIter:
    """Stands in for a DataLoader iterator; times every next()."""

    def __init__(self, it, loader, created):
        self.it = it
        self.loader = loader
        self.created = created

    def __iter__(self):
        return self

    def __next__(self):
        st = _state
        if st.sync and not st.done:
            st.boundary_sync()
        t0 = _perf()
        batch = next(self.it)
        t1 = _perf()
        st.on_batch(self, t0, t1)
        return batch

    def __len__(self):
        return len(self.it)

    def __getattr__(self, name):  # _dataset, _num_yielded, ... of the real iterator
        if name == "it":
            raise AttributeError(name)
        return getattr(self.it, name)


# --- patching torch.utils.data ---------------------------------------------------------------
_TARGET = "torch.utils.data.dataloader"


def _patch(module):
    DataLoader = module.DataLoader
    if getattr(DataLoader.__iter__, "_gpulint", False):
        return
    _state.mp_iter_type = getattr(module, "_MultiProcessingDataLoaderIter", None)
    original = DataLoader.__iter__

    def __iter__(self):
        return _state.on_iter(self, original(self))

    __iter__._gpulint = True
    __iter__.__wrapped__ = original
    __iter__.__doc__ = original.__doc__
    DataLoader.__iter__ = __iter__


class _Finder:
    """Meta path finder that patches the DataLoader right after its module ran; then leaves."""

    def find_spec(self, name, path=None, target=None):
        if name != _TARGET:
            return None
        spec = None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        self.remove()
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            try:
                _patch(module)
            except Exception as e:
                sys.stderr.write("gpulint harness: DataLoader not patched: %s\n" % e)

        try:
            spec.loader.exec_module = exec_module  # this module's own loader object only
        except (AttributeError, TypeError):
            pass
        return spec

    def remove(self):
        try:
            sys.meta_path.remove(self)
        except ValueError:
            pass


# --- loop-line mode --------------------------------------------------------------------------
_COMPREHENSIONS = {"<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>", "<lambda>"}
_stop_loop_line = lambda: None  # noqa: E731


def _code_lines(code):
    if hasattr(code, "co_lines"):
        return {line for _, _, line in code.co_lines() if line is not None}
    import dis
    return {line for _, line in dis.findlinestarts(code)}


def _codes_with_line(module_code, line):
    """The code objects (module, functions, classes) whose own instructions are on `line`."""
    found, todo = [], [module_code]
    while todo:
        code = todo.pop()
        if line in _code_lines(code):
            found.append(code)
        todo.extend(c for c in code.co_consts if hasattr(c, "co_code"))
    outer = [c for c in found if c.co_name not in _COMPREHENSIONS]
    return outer or found


def _script_names():
    script = sys.argv[0] if sys.argv and sys.argv[0] else ""
    return {script, os.path.abspath(script)} if script else set()


def _install_loop_line(line):
    global _stop_loop_line
    names = _script_names()
    if not names:
        return
    on_line = _state.on_line
    mon = getattr(sys, "monitoring", None)
    if mon is not None:
        tool = next((i for i in (5, 4, 3, 2) if mon.get_tool(i) is None), None)
        if tool is None:
            sys.stderr.write("gpulint harness: no free sys.monitoring tool id\n")
            return
        mon.use_tool_id(tool, "gpulint-harness")
        LINE, DISABLE = mon.events.LINE, mon.DISABLE
        targets, target_ids = [], set()

        def hit(code, lineno):
            if lineno == line and id(code) in target_ids:
                on_line()
                return None
            return DISABLE

        def find_script(code, lineno):
            # Global LINE events only until the script's first line runs (imports done by
            # site.py so far are few); then local events on the code holding the loop.
            if code.co_filename not in names:
                return DISABLE
            mon.set_events(tool, 0)
            mon.register_callback(tool, LINE, hit)
            for c in _codes_with_line(code, line):
                targets.append(c)
                target_ids.add(id(c))
                mon.set_local_events(tool, c, LINE)
            return hit(code, lineno)

        mon.register_callback(tool, LINE, find_script)
        mon.set_events(tool, LINE)

        def stop():
            try:
                mon.set_events(tool, 0)
                for c in targets:
                    mon.set_local_events(tool, c, 0)
                mon.free_tool_id(tool)
            except Exception:
                pass
        _stop_loop_line = stop
        return

    # Python < 3.12: sys.settrace. The global hook runs on every Python call in this thread
    # and only returns a local tracer for frames of the code holding the loop line.
    target_ids = set()
    keep = []

    def local(frame, event, arg):
        if event == "line" and frame.f_lineno == line:
            on_line()
        return local

    def global_(frame, event, arg):
        code = frame.f_code
        if not keep:
            if code.co_filename not in names:
                return None
            keep.extend(_codes_with_line(code, line))
            target_ids.update(id(c) for c in keep)
            if not keep:  # no such line in the script: stop paying for the hook
                keep.append(None)
                sys.settrace(None)
                return None
        return local if id(code) in target_ids else None

    sys.settrace(global_)

    def stop():
        sys.settrace(None)
    _stop_loop_line = stop


# --- start-up --------------------------------------------------------------------------------
def _script_dir_on_path():
    """The original script's directory right after the temp copy's own (sys.path[0])."""
    d = os.environ.get("GPULINT_HARNESS_SCRIPT_DIR")
    if not d:
        return
    d = os.path.abspath(d)
    copy_dir = os.path.dirname(os.path.abspath(sys.argv[0])) if sys.argv and sys.argv[0] else None
    # At sitecustomize time CPython (3.8-3.13) has not inserted the script's directory yet:
    # inserting at 0 lands right after it. Should it already be there, go after it.
    pos = 1 if sys.path and copy_dir and os.path.abspath(sys.path[0] or ".") == copy_dir else 0
    sys.path.insert(pos, d)


def install():
    global _state
    if _state is not None:
        return
    # Children started with `spawn`/`forkserver` (DataLoader workers on macOS, or any
    # subprocess) inherit the environment: only the process gpulint started measures.
    mine = os.environ.get("GPULINT_HARNESS_PID")
    if mine and mine != str(os.getpid()):
        return
    os.environ["GPULINT_HARNESS_PID"] = str(os.getpid())
    _state = _State()
    _script_dir_on_path()
    atexit.register(_state.at_exit)
    loaded = sys.modules.get(_TARGET)
    if loaded is not None:
        _patch(loaded)
    else:
        sys.meta_path.insert(0, _Finder())
    if _state.loop_line:
        _install_loop_line(_state.loop_line)


# --- this file is also `sitecustomize` -------------------------------------------------------
def _chain():
    """Runs the sitecustomize this one shadows, the way site.py would have."""
    here = os.path.dirname(os.path.abspath(__file__))

    def other(p):
        try:
            return os.path.abspath(p or os.getcwd()) != here
        except Exception:
            return True

    try:
        import importlib.machinery
        import importlib.util
        spec = importlib.machinery.PathFinder.find_spec(
            "sitecustomize", [p for p in sys.path if other(p)])
        if spec is None or spec.loader is None:
            return
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except Exception as e:
        # site.py prints the same kind of note for a failing sitecustomize.
        sys.stderr.write("Error in sitecustomize; set PYTHONVERBOSE for traceback:\n%s: %s\n"
                         % (type(e).__name__, e))


if os.environ.get("GPULINT_HARNESS_OUT"):
    try:
        install()
    except Exception as e:  # never break the user's run on our account
        sys.stderr.write("gpulint harness: not installed: %s: %s\n" % (type(e).__name__, e))
_chain()
