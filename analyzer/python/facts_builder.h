// Python front end, second half: turns the semantic model of one module into the
// language-neutral FileFacts the rules read (loaders, models, training loops, tensors kept
// across iterations), with the fix edits each fact supports.
#pragma once

#include "analyzer/facts.h"
#include "analyzer/python/semantic_model.h"
#include "analyzer/source.h"

namespace gpulint::python {

/// Builds the facts of one module. `model` must have been built over `source.text()`.
/// Never throws; what cannot be decided is left out (rules then stay silent).
FileFacts build_facts(const SemanticModel& model, const SourceFile& source);

}  // namespace gpulint::python
