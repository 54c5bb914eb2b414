#pragma once
// The engine entry points the main window needs, as replaceable functions
// (views/support/DocumentLoaders.h): the app passes engineLoaders(); tests
// pass synthetic ones, so the window is testable without files or a run store.
#include "support/DocumentLoaders.h"

namespace dfc::studio {

using views::DocumentLoaders;
using views::findTraceForPef;

DocumentLoaders engineLoaders();

}  // namespace dfc::studio
