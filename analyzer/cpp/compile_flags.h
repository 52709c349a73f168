// Compile flags from a compile_commands.json written for GCC, made acceptable to Clang 16.
//
// A CMake project configured with g++ records g++'s command: flags Clang does not know, or
// knows with other values, make Clang's driver stop before parsing anything ("unknown
// argument", "invalid value"), so the whole translation unit would go unanalysed. gpulint only
// parses (-fsyntax-only): optimisation, code generation, profiling, sanitizer, plugin and
// diagnostic-format flags do not change what the code means, so dropping them is safe.
//
// Measured with clang++-16 -fsyntax-only (Debian 12), what breaks the parse and what is done:
//   * flags Clang's driver does not know at all ("error: unknown argument"), e.g.
//     -fconcepts-diagnostics-depth=N -mno-direct-extern-access -fipa-pta -fno-ipa-cp-clone
//     -fno-tree-loop-distribute-patterns -ftree-loop-distribution -fno-tree-pre
//     -fno-var-tracking-assignments -fvar-tracking -fno-gnu-unique -fconcepts -fcoroutines
//     -fext-numeric-literals -fno-canonical-system-headers -fallow-store-data-races
//     -fconstexpr-ops-limit=N -fconstexpr-loop-limit=N -fsched-pressure -fpredictive-commoning
//     -flto-partition=none -fabi-version=N -fstack-reuse=none -fno-lifetime-dse
//     -mindirect-branch=thunk -fdiagnostics-urls=never -fdiagnostics-plain-output -fanalyzer
//     -fimplicit-constexpr -fcontracts -fhardened -fstack-protector-explicit …:
//     dropped, found by Clang's own driver option table (so the list never goes stale);
//   * GCC options whose value is a separate argument, which would otherwise be read as an
//     input file: -aux-info FILE, -dumpbase NAME, -dumpbase-ext EXT, -dumpdir DIR (dropped with
//     their value);
//   * flags Clang knows, with GCC-only values or effects: -std=c++23/c++26/c++2c (and gnu++)
//     → -std=c++2b (Clang 16's name for the newest standard; -std is found as Clang's driver
//     reads it, OPT_std_EQ and its aliases `--std=X` / `--std X`, its value judged by
//     clang::LangStandard's table); -fsanitize=… (GCC-only
//     sanitizers, e.g. bounds-strict, pointer-compare), -fplugin=… / -fplugin-arg-… (GCC
//     plugins, which Clang would try to load), -fprofile-use=… / -fauto-profile=… (GCC profile
//     data), -fdiagnostics-format=… (json, sarif-file…), -mrecord-mcount, -p: dropped.
// A standard older than LibTorch's minimum breaks the parse the same way: -std=c++98/03/0x/11
// (and gnu++) make torch/all.h stop with `#error C++14 or later compatible compiler is required`,
// and clang drops what depends on it. Projects record them (a CMakeLists.txt that says
// CXX_STANDARD 11, written for a LibTorch that raised the standard itself): → -std=c++14
// (gnu++14), LibTorch's minimum; C++14 only adds to C++11, so the code means what it meant.
// GCC's precompiled headers are not flags but break the same way: CMake's
// target_precompile_headers built with g++ leaves `cmake_pch.hxx.gch` beside the header the
// command `-include`s, and clang's driver would load it as its own PCH ("not a valid
// precompiled PCH file"); the front end's file system hides `*.gch` files (frontend.cpp).
// Flags that only warn in Clang (-Wno-maybe-uninitialized, -fno-tree-vectorize, -flto=auto,
// -fcf-protection=full, -fstack-clash-protection, -fno-semantic-interposition, …) are kept:
// the analysis runs with -w.
#pragma once

#include <string>
#include <vector>

namespace gpulint::cpp {

/// Returns `flags` (a compile command's arguments without argv[0] and the input file) with the
/// flags above dropped or rewritten for Clang 16 and LibTorch's headers. `*dropped` (may be null) receives each
/// dropped argument as written (a separate value as its own entry) and each rewrite as
/// "OLD → NEW". Arguments that are not options (values of known options) are kept in place.
/// Never throws.
std::vector<std::string> clang_compatible_flags(const std::vector<std::string>& flags,
                                                std::vector<std::string>* dropped);

/// Returns `flags` (compile arguments without argv[0] and the input file) without the -std
/// options that name a C standard (`-std=c11`, `--std gnu99`, `-std=iso9899:1999`) or a
/// standard Clang does not know: what a C file's command says about a header that is parsed
/// as C++. -std is found by Clang's driver option table (OPT_std_EQ and its aliases, a
/// separate value dropped with its option); the value is judged by clang::LangStandard's
/// table (GCC's c++23/c++26/c++2c count as C++). Other arguments are kept in order. Never throws.
std::vector<std::string> without_c_standards(const std::vector<std::string>& flags);

}  // namespace gpulint::cpp
