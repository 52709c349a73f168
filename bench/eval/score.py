#!/usr/bin/env python3
"""Precision and recall of gpulint on real public training scripts, against hand labels.

The scripts themselves are not in this repository (their licences are their authors'):
labels.json names each one by repository, path and commit, and gives the expected
(line, code) findings. Put the files in a directory (CORPUS) under the names labels.json uses,
then run:

    bench/eval/score.py --gpulint build/gpulint --corpus CORPUS [--labels bench/eval/labels.json]

A diagnostic matches a label with the same file, code and line. Rule groups are scored as the
issue defines them: DL001, DL002, DEV (DEV001-DEV003 together) and MEM001.

Single-file mode (labels' "file" is a bare file name, e.g. "mnist.cpp"): every file lies
directly in CORPUS, all are checked in one `gpulint check` run, and diagnostics are matched by
base name. C++ files get gpulint's fallback flags (-std=c++17, LibTorch's include paths).

Repository mode (labels' "file" is a path relative to CORPUS, e.g.
"pytorch__examples/cpp/dcgan/dcgan.cpp"): CORPUS holds whole repositories as
CORPUS/<owner>__<repo>/..., diagnostics are matched by path relative to CORPUS, and each
repository's C++ files are checked as a user runs gpulint inside the repository, with a
compilation database (`gpulint check -p BUILD FILES`). For every labelled C++ file the
database entry comes from the first of:
  1. "configured": the repository's own CMake project, configured with
     -DCMAKE_EXPORT_COMPILE_COMMANDS=ON against Debian's libtorch-dev into BUILD_ROOT (outside
     the corpus, --build-root). The projects tried are the repository root's CMakeLists.txt,
     then the nearest directory above the file whose CMakeLists.txt declares a project(). A
     sub-project that uses ${TORCH_LIBRARIES} without its own find_package(Torch) (its parent
     normally provides it) gets find_package(Torch) through CMAKE_PROJECT_INCLUDE; nothing else
     is added. The project's entry for the file is used as written.
  2. "written": when no configure succeeds (a dependency that is not installed, e.g. OpenCV
     or MPI; sources or parent targets the copy lacks) or the configured project does not
     compile the file, an entry written here: C++17, -I for every directory of the
     repository that holds headers (.h .hh .hpp .hxx .cuh .inl; nearest to the file first, so
     that same-named headers of sibling sub-projects resolve to the file's own), -isystem
     for the include directories find_package(Torch) reports, and -isystem for OpenCV's
     (`pkg-config --cflags-only-I opencv4`, when installed) when a source or header of the
     repository includes <opencv2/...>.
The way used per file (and the first CMake error, when configuring failed) is printed and
written to --json under "repos", with how the file parsed ("clean", or gpulint's warning: the
first compiler error and how many there were, e.g. a header the repository does not hold).
Files outside the labels are not checked.
"""
import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

GROUPS = {"DL001": "DL001", "DL002": "DL002", "DEV001": "DEV", "DEV002": "DEV", "DEV003": "DEV",
          "MEM001": "MEM001"}


HEADER_EXTS = (".h", ".hh", ".hpp", ".hxx", ".cuh", ".inl")
# The C++ sources gpulint analyses (analyzer/cpp/frontend.h, is_cpp_path).
CPP_EXTS = (".cpp", ".cc", ".cxx", ".c++")
ANALYSED_HEADER_EXTS = (".h", ".hh", ".hpp", ".hxx")
# Included after every project() of a configured CMake project: a sub-project configured on
# its own does not get Torch from the parent that normally finds it.
TORCH_PROJECT_INCLUDE = "if(NOT Torch_FOUND)\n  find_package(Torch QUIET)\nendif()\n"
TORCH_PROBE = ("cmake_minimum_required(VERSION 3.18)\nproject(torch_probe CXX)\n"
               "find_package(Torch REQUIRED)\nmessage(STATUS \"TORCH_INCLUDE_DIRS=${TORCH_INCLUDE_DIRS}\")\n"
               "message(STATUS \"IMPLICIT=${CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES}\")\n")
# gpulint's warning for a translation unit clang could not fully parse (analyzer/driver.cpp).
PARSE_WARNING = re.compile(r"^warning: (.+?):(\d+):(\d+): (.*); analysed the code that parses$")


def cmake(args, log):
    """Runs cmake with args; returns (ok, first error line). log: file that gets the output."""
    try:
        r = subprocess.run(["cmake", *args], capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        return False, str(e)
    with open(log, "w") as f:
        f.write(r.stdout + r.stderr)
    if r.returncode == 0:
        return True, ""
    lines = (r.stderr + r.stdout).splitlines()
    for i, line in enumerate(lines):
        if "CMake Error" in line:
            detail = " ".join(x.strip() for x in lines[i + 1:i + 4] if x.strip())
            return False, (line.strip() + " " + detail).strip()
    return False, (lines[-1] if lines else f"cmake exited {r.returncode}")


def torch_include_dirs(build_root):
    """The include directories find_package(Torch) reports (Debian's libtorch-dev), less the
    compiler's implicit ones: Debian's TORCH_INCLUDE_DIRS holds /usr/include, and an explicit
    -isystem /usr/include reorders the system directories so that libstdc++'s
    `#include_next <stdlib.h>` fails (CMake leaves implicit directories out of its commands
    for the same reason)."""
    probe = os.path.join(build_root, "_torch_probe")
    os.makedirs(os.path.join(probe, "src"), exist_ok=True)
    with open(os.path.join(probe, "src", "CMakeLists.txt"), "w") as f:
        f.write(TORCH_PROBE)
    ok, err = cmake(["-S", os.path.join(probe, "src"), "-B", os.path.join(probe, "build")],
                    os.path.join(probe, "cmake.log"))
    if not ok:
        sys.exit(f"error: find_package(Torch) fails ({err}); install libtorch-dev")
    found = {}
    for line in open(os.path.join(probe, "cmake.log")):
        for key in ("TORCH_INCLUDE_DIRS", "IMPLICIT"):
            if f"{key}=" in line:
                found[key] = [os.path.realpath(d) for d in line.split(f"{key}=", 1)[1].strip().split(";") if d]
    if not found.get("TORCH_INCLUDE_DIRS"):
        sys.exit("error: find_package(Torch) reported no TORCH_INCLUDE_DIRS")
    return [d for d in found["TORCH_INCLUDE_DIRS"] if d not in found.get("IMPLICIT", [])]


def opencv_include_dirs(repo_dir):
    """OpenCV's include directories (pkg-config opencv4: Debian's libopencv-dev puts the headers
    under /usr/include/opencv4) when a C++ file of the repository includes <opencv2/...>; empty
    when none does or OpenCV is not installed."""
    uses = False
    for root, _, names in os.walk(repo_dir):
        for n in names:
            if os.path.splitext(n)[1] in (".cpp", ".cc", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".tpp"):
                with open(os.path.join(root, n), errors="replace") as f:
                    if re.search(r'#\s*include\s*[<"]opencv2/', f.read()):
                        uses = True
                        break
        if uses:
            break
    if not uses:
        return []
    try:
        out = subprocess.run(["pkg-config", "--cflags-only-I", "opencv4"], capture_output=True, text=True)
    except OSError:
        return []
    if out.returncode != 0:
        return []
    return [a[2:] for a in out.stdout.split() if a.startswith("-I")]


def header_dirs(repo_dir, path):
    """Every directory of the repository that holds a header, nearest to `path` first (longest
    common path, then name): a repository with several sub-projects often has headers of the
    same name in each (tutorials/a/include/transform.h, tutorials/b/include/transform.h), and
    `#include "transform.h"` must find the file's own project's. Then the directories above
    them up to the repository's root, for includes written with the package's directory
    (`#include <mlgames/Agent.h>` of mlgames/include/mlgames/Agent.h)."""
    out = set()
    for root, dirs, files in os.walk(repo_dir):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        if any(f.lower().endswith(HEADER_EXTS) for f in files):
            out.add(os.path.abspath(root))
    top = os.path.abspath(repo_dir)
    above = set()
    for d in out:
        while d != top and os.path.dirname(d) != d:
            d = os.path.dirname(d)
            if d not in out:
                above.add(d)
    near = lambda d: (-len(os.path.commonpath([d, path])), d)
    return sorted(out, key=near) + sorted(above, key=near)


def declares_project(cmakelists):
    try:
        return re.search(r"^\s*project\s*\(", open(cmakelists, errors="replace").read(),
                         re.IGNORECASE | re.MULTILINE) is not None
    except OSError:
        return False


def candidate_projects(repo_dir, path):
    """CMake projects to try for `path`: the repository root's, then the nearest one above."""
    out = []
    if os.path.exists(os.path.join(repo_dir, "CMakeLists.txt")):
        out.append(repo_dir)
    d = os.path.dirname(path)
    while os.path.commonpath([d, repo_dir]) == repo_dir and d != repo_dir:
        if declares_project(os.path.join(d, "CMakeLists.txt")):
            out.append(d)
            break
        d = os.path.dirname(d)
    return out


def repo_database(repo, repo_dir, files, build_root, torch_incs, cache):
    """Writes build_root/repo/compile_commands.json for `files` (absolute paths of one
    repository). Returns (build dir, {file: way}), way = "configured (DIR)" or "written (...)"."""
    entries = {}
    ways = {}
    for path in files:
        reasons = []
        for proj in candidate_projects(repo_dir, path):
            rel = os.path.relpath(proj, repo_dir)
            if proj not in cache:
                bdir = os.path.join(build_root, repo, "cmake", rel.replace(os.sep, "__") if rel != "." else "_root")
                shutil.rmtree(bdir, ignore_errors=True)
                os.makedirs(bdir)
                inc = os.path.join(bdir, "torch_project_include.cmake")
                with open(inc, "w") as f:
                    f.write(TORCH_PROJECT_INCLUDE)
                ok, err = cmake(["-S", proj, "-B", bdir, "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
                                 f"-DCMAKE_PROJECT_INCLUDE={inc}"], os.path.join(bdir, "configure.log"))
                db = os.path.join(bdir, "compile_commands.json")
                cache[proj] = (json.load(open(db)) if ok and os.path.exists(db) else None, err)
            db, err = cache[proj]
            if db is None:
                reasons.append(f"{rel}/CMakeLists.txt: {err or 'no compile_commands.json'}")
                continue
            mine = [e for e in db if os.path.realpath(os.path.join(e["directory"], e["file"])) == os.path.realpath(path)]
            if mine:
                entries[path] = mine[0]
                ways[path] = f"configured ({rel}/CMakeLists.txt)"
                break
            reasons.append(f"{rel}/CMakeLists.txt configured but does not compile the file")
        if path not in entries:
            if not reasons:
                reasons.append("no CMakeLists.txt")
            args = ["c++", "-std=c++17", *(f"-I{d}" for d in header_dirs(repo_dir, path)),
                    *(f"-isystem{d}" for d in torch_incs), *(f"-isystem{d}" for d in opencv_include_dirs(repo_dir)),
                    "-c", path]
            entries[path] = {"directory": os.path.dirname(path), "file": path, "arguments": args}
            ways[path] = "written; " + "; ".join(reasons)
    out_dir = os.path.join(build_root, repo)
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "compile_commands.json"), "w") as f:
        json.dump([entries[p] for p in files], f, indent=1)
    return out_dir, ways


def run_gpulint(gpulint, files, build_dir=None, parse_notes=None):
    """gpulint check on `files`; returns its JSON diagnostics. parse_notes (a dict, optional)
    gets, per file gpulint could not fully parse, its warning (the first compiler error and
    the count)."""
    cmd = [gpulint, "check", "--output-format", "json", "--exit-zero", "--select", ",".join(GROUPS)]
    if build_dir:
        cmd += ["-p", build_dir]
    out = subprocess.run(cmd + files, capture_output=True, text=True)
    if out.returncode != 0:
        print(out.stderr, file=sys.stderr)
        sys.exit(2)
    if parse_notes is not None:
        for line in out.stderr.splitlines():
            m = PARSE_WARNING.match(line)
            if m:
                parse_notes[os.path.abspath(m.group(1))] = f"line {m.group(2)}: {m.group(4)}"
    return json.loads(out.stdout or "[]")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpulint", default="build/gpulint")
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--labels", default=os.path.join(os.path.dirname(__file__), "labels.json"))
    ap.add_argument("--json", help="write the scores here")
    ap.add_argument("-v", "--verbose", action="store_true", help="list every false positive and negative")
    ap.add_argument("--build-root", help="repository mode: where the repositories are configured and "
                    "their compile_commands.json written (default: a new temporary directory); "
                    "must be outside CORPUS")
    args = ap.parse_args()

    labels = json.load(open(args.labels))["files"]
    files = [os.path.join(args.corpus, f["file"]) for f in labels if os.path.exists(os.path.join(args.corpus, f["file"]))]
    missing = [f["file"] for f in labels if not os.path.exists(os.path.join(args.corpus, f["file"]))]
    if missing:
        print(f"warning: {len(missing)} labelled files are not in {args.corpus}", file=sys.stderr)
    repo_mode = any("/" in f["file"] for f in labels)
    got = set()
    repos_report = {}
    if not repo_mode:
        for d in run_gpulint(args.gpulint, files):
            got.add((os.path.basename(d["filename"]), d["location"]["row"], d["code"]))
    else:
        corpus = os.path.abspath(args.corpus)
        build_root = os.path.abspath(args.build_root or tempfile.mkdtemp(prefix="gpulint-eval-build-"))
        if os.path.commonpath([build_root, corpus]) == corpus:
            sys.exit("error: --build-root must be outside the corpus")
        by_repo = collections.defaultdict(list)
        for f in files:
            rel = os.path.relpath(f, corpus)
            by_repo[rel.split(os.sep, 1)[0]].append(os.path.abspath(f))
        torch_incs = None
        for repo, repo_files in sorted(by_repo.items()):
            cpp = [f for f in repo_files if f.lower().endswith(CPP_EXTS)]
            # C++ headers are analysed as their own main files, with a command clang interpolates
            # from the database's nearest entry.
            headers = [f for f in repo_files if f.lower().endswith(ANALYSED_HEADER_EXTS)]
            unanalysed = [f for f in repo_files if f.lower().endswith(HEADER_EXTS + (".cu",))
                          and f not in headers]
            for f in unanalysed:
                print(f"warning: {os.path.relpath(f, corpus)}: gpulint analyses C++ sources and "
                      "headers (.cpp .cc .cxx .c++ .h .hh .hpp .hxx), not CUDA files: its labels "
                      "count as misses", file=sys.stderr)
            other = [f for f in repo_files if f not in cpp and f not in unanalysed and f not in headers]
            diags = run_gpulint(args.gpulint, other) if other else []
            if cpp:
                torch_incs = torch_incs if torch_incs is not None else torch_include_dirs(build_root)
                bdir, ways = repo_database(repo, os.path.join(corpus, repo), cpp, build_root, torch_incs, {})
                notes = {}
                diags += run_gpulint(args.gpulint, cpp + headers, bdir, notes)
                repos_report[repo] = {}
                for p, w in ways.items():
                    parse = notes.get(p, "clean")
                    repos_report[repo][os.path.relpath(p, corpus)] = {"database": w, "parse": parse}
                    print(f"{os.path.relpath(p, corpus)}: {w}\n    parse: {parse}")
            elif headers:
                diags += run_gpulint(args.gpulint, headers)
            for d in diags:
                got.add((os.path.relpath(os.path.abspath(d["filename"]), corpus), d["location"]["row"], d["code"]))
    want = set()
    out_of_scope = collections.Counter()  # labels of rules gpulint does not implement
    for f in labels:
        if f["file"] in missing:
            continue
        for l in f["labels"]:
            if l["code"] not in GROUPS:
                out_of_scope[l["code"]] += 1
                continue
            want.add((f["file"], l["line"], l["code"]))

    tp = collections.Counter(); fp = collections.Counter(); fn = collections.Counter()
    for g in got:
        (tp if g in want else fp)[GROUPS[g[2]]] += 1
    for w in want:
        if w not in got:
            fn[GROUPS[w[2]]] += 1
    scores = {}
    print(f"{len(files)} files, {len(want)} labels, {len(got)} diagnostics")
    if out_of_scope:
        print("not scored (rules gpulint does not implement): " +
              ", ".join(f"{c} {n}" for c, n in sorted(out_of_scope.items())))
    print(f"{'group':8} {'TP':>4} {'FP':>4} {'FN':>4} {'precision':>10} {'recall':>8}")
    for g in ["DL001", "DL002", "DEV", "MEM001"]:
        p = tp[g] / (tp[g] + fp[g]) if tp[g] + fp[g] else None
        r = tp[g] / (tp[g] + fn[g]) if tp[g] + fn[g] else None
        scores[g] = {"tp": tp[g], "fp": fp[g], "fn": fn[g], "precision": p, "recall": r}
        fmt = lambda x: "n/a" if x is None else f"{x:.3f}"
        print(f"{g:8} {tp[g]:4} {fp[g]:4} {fn[g]:4} {fmt(p):>10} {fmt(r):>8}")
    if args.verbose:
        for g in sorted(got - want):
            print("FP", *g)
        for w in sorted(want - got):
            print("FN", *w)
    if args.json:
        result = {"files": len(files), "labels": len(want), "scores": scores}
        if repos_report:
            result["repos"] = repos_report
        json.dump(result, open(args.json, "w"), indent=2)


if __name__ == "__main__":
    main()
