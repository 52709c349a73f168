// The Python harness that `gpulint confirm` injects into the re-run, compiled into the binary
// from runtime_check/harness/*.py (runtime_check/embed_files.cmake), so that a copied gpulint
// binary needs no data files beside it.
#pragma once

#include <string_view>
#include <vector>

namespace gpulint::runtime_check {

struct EmbeddedFile {
  std::string_view name;     ///< file name, e.g. "sitecustomize.py"
  std::string_view content;  ///< the file's bytes
};

/// Every file of runtime_check/harness/, in name order. Empty when there are none.
const std::vector<EmbeddedFile>& harness_files();

}  // namespace gpulint::runtime_check
