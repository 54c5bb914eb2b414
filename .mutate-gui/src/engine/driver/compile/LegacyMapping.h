#pragma once
// --mac-v2 ("use the legacy compiler", as SambaFlow says): the mapping path the
// current one replaced, kept selectable so its results can be compared.
//   Section cutter: the first mapper's rule. A subgraph that fits in one
//   section shares its hypersection with its repeats; one cut into several
//   sections compiles each piece as its own hypersection (the current mapper
//   shares the k-th piece across repeats). No nlp attention-block rule, no
//   mapping cache (every repeat is cut again).
//   Placer: the first annealing schedule (kernelc::PlacerOptions::Schedule::
//   Bounded: moves per kernel, geometric cooling, a linearly shrinking window)
//   instead of the adaptive one; the router is the same.
// The sections (and so the numbers a run computes) are the same either way.
#include "kernelc/Linker.h"
#include "mapping/SectionMapper.h"

namespace dfc::driver {

void useLegacyMapping(mapping::MappingOptions& options);
void useLegacyPlacer(kernelc::LinkOptions& options);

}  // namespace dfc::driver
