#pragma once
// Sequences and optionals, resolved at import: the chip's graph is static, so a
// sequence whose length is known when the model is compiled is kept as the
// list of its tensors (ImportContext::lists), each an ordinary IR value, and
// the sequence ops become bookkeeping on that list: SequenceConstruct,
// SequenceEmpty, SequenceInsert / SequenceErase / SequenceAt at constant
// positions, SequenceLength (a constant), ConcatFromSequence, SplitToSequence,
// SequenceMap (its body mapped once per element), Optional, OptionalHasElement
// (a constant), OptionalGetElement and Identity of a sequence or optional.
// At the graph's boundary a sequence or optional input is one IR input per
// element (their shapes given by ImportOptions::listInputs), and a sequence or
// optional output one IR output per element.
#include <string>

#include "onnx/ControlFlow.h"

namespace dfc::onnx {

// True for the ops above (Identity only when its input is a sequence or optional).
bool isListOp(ImportContext& c, const ::onnx::NodeProto& n);
Status mapListOp(ImportContext& c, const MapBody& mapBody);

}  // namespace dfc::onnx
