// LSTM, GRU and RNN, unrolled over the (static) sequence into the IR's matmul,
// slice and elementwise ops, so training gets their gradients from the ops
// they are made of and the partitioner sees one repeated step per time step
// (hypersections compile it once). The input projection of every time step is
// one matmul over the whole sequence; only the recurrent matmul is per step.
#include "onnx/ImportContext.h"

namespace dfc::onnx {
namespace {

using ir::OpKind;
using ir::Shape;
using ir::ValueId;

enum class Cell { Rnn, Gru, Lstm };

struct CellSpec {
  Cell cell;
  int gates;                                  // weight blocks per direction: 1, 3, 4
  std::vector<std::string> defaultActivations;  // per direction
};

// One direction's weights, already sliced and transposed for row-major matmuls.
struct DirWeights {
  ValueId wT = ir::kNoValue;     // [I, G*H]
  ValueId rT = ir::kNoValue;     // [H, G*H]
  ValueId inBias = ir::kNoValue;  // [G*H] added to the input projection (kNoValue: none)
  ValueId recBias = ir::kNoValue;  // GRU with linear_before_reset: Rb, added inside the reset product
  ValueId peephole = ir::kNoValue;  // LSTM: [3H] (i, o, f)
  ValueId h0 = ir::kNoValue, c0 = ir::kNoValue;  // [B, H]
};

struct Recurrence {
  CellSpec spec;
  int64_t seq = 0, batch = 0, inputSize = 0, hidden = 0, dirs = 1;
  bool batchFirst = false, linearBeforeReset = false;
  double clip = 0;  // 0: no clip
  std::vector<std::string> activations;  // f, g[, h] per direction
  std::vector<double> alphas, betas;
};

Expected<ValueId> sliceAxis(ImportContext& c, ValueId x, int64_t axis, int64_t start, int64_t end) {
  Shape s = c.shape(x);
  std::vector<int64_t> starts(s.size(), 0), ends(s.begin(), s.end()), steps(s.size(), 1);
  starts[axis] = start;
  ends[axis] = end;
  return c.emit(OpKind::StridedSlice, {x}, {{"starts", starts}, {"ends", ends}, {"steps", steps}});
}

// x[d] of a [dirs, ...] tensor, without its leading axis.
Expected<ValueId> direction(ImportContext& c, ValueId x, int64_t d) {
  DFC_TRY_ASSIGN(one, sliceAxis(c, x, 0, d, d + 1));
  Shape s = c.shape(x);
  s.erase(s.begin());
  return c.reshape(one, s);
}

Expected<ValueId> activation(ImportContext& c, const Recurrence& r, size_t index, ValueId x) {
  const std::string& name = r.activations[index];
  const double alpha = index < r.alphas.size() ? r.alphas[index] : 0.0;
  const double beta = index < r.betas.size() ? r.betas[index] : 0.0;
  if (name == "Sigmoid") return c.unary("sigmoid", x);
  if (name == "Tanh") return c.unary("tanh", x);
  if (name == "Relu") return c.unary("relu", x);
  if (name == "HardSigmoid") return c.unary("hard_sigmoid", x, index < r.alphas.size() ? alpha : 0.2,
                                             index < r.betas.size() ? beta : 0.5);
  if (name == "LeakyRelu") return c.unary("leaky_relu", x, index < r.alphas.size() ? alpha : 0.01);
  return c.error("activation '" + name + "' is not supported (Sigmoid, Tanh, Relu, HardSigmoid, LeakyRelu are)");
}

Expected<ValueId> clipped(ImportContext& c, const Recurrence& r, ValueId x) {
  if (r.clip <= 0) return x;
  return c.unary("clip", x, -r.clip, r.clip);
}

Status readAttributes(ImportContext& c, Recurrence& r) {
  const std::string dir = c.attrString("direction", "forward");
  if (dir != "forward" && dir != "reverse" && dir != "bidirectional")
    return c.error("direction '" + dir + "' is not forward, reverse or bidirectional");
  r.dirs = dir == "bidirectional" ? 2 : 1;
  r.batchFirst = c.attrInt("layout", 0) == 1;
  r.linearBeforeReset = c.attrInt("linear_before_reset", 0) != 0;
  r.clip = c.attrFloat("clip", 0.0);
  if (c.attr("clip") && !(r.clip > 0)) return c.error("clip must be positive");
  if (c.attrInt("input_forget", 0) != 0) return c.error("input_forget=1 (coupled input and forget gates) is not supported");
  for (const ::onnx::AttributeProto& a : c.node().attribute()) {
    if (a.name() == "activations")
      for (const auto& s : a.strings()) r.activations.push_back(s);
    if (a.name() == "activation_alpha") r.alphas.assign(a.floats().begin(), a.floats().end());
    if (a.name() == "activation_beta") r.betas.assign(a.floats().begin(), a.floats().end());
  }
  const auto& defaults = r.spec.defaultActivations;
  if (r.activations.empty())
    for (int64_t d = 0; d < r.dirs; ++d) r.activations.insert(r.activations.end(), defaults.begin(), defaults.end());
  if (r.activations.size() != defaults.size() * static_cast<size_t>(r.dirs))
    return c.error("activations lists " + std::to_string(r.activations.size()) + " functions; " +
                   std::to_string(defaults.size() * r.dirs) + " expected");
  return {};
}

// Shapes of X, W and R against one another and the hidden_size attribute.
Status readShapes(ImportContext& c, Recurrence& r, ValueId x, ValueId w, ValueId rec) {
  DFC_TRY(needFloat(c, x));
  if (c.rank(x) != 3 || c.rank(w) != 3 || c.rank(rec) != 3) return c.error("X, W and R must be 3-D");
  Shape xs = c.shape(x), ws = c.shape(w), rs = c.shape(rec);
  r.seq = r.batchFirst ? xs[1] : xs[0];
  r.batch = r.batchFirst ? xs[0] : xs[1];
  r.inputSize = xs[2];
  r.hidden = c.attrInt("hidden_size", rs[2]);
  const int64_t gh = r.spec.gates * r.hidden;
  if (r.seq < 1 || r.batch < 1 || r.hidden < 1) return c.error("empty sequence, batch or hidden size");
  if (r.seq > 4096) return c.error("a sequence of " + std::to_string(r.seq) + " steps is too long to unroll (4096 at most)");
  if (ws != Shape{r.dirs, gh, r.inputSize}) return c.error("W must be [" + std::to_string(r.dirs) + ", " + std::to_string(gh) + ", " + std::to_string(r.inputSize) + "]");
  if (rs != Shape{r.dirs, gh, r.hidden}) return c.error("R must be [" + std::to_string(r.dirs) + ", " + std::to_string(gh) + ", " + std::to_string(r.hidden) + "]");
  return {};
}

// sequence_lens: only "every sequence is full length" is supported (what exporters write for unpacked input).
Status checkSequenceLens(ImportContext& c, const Recurrence& r) {
  ValueId lens = c.input(4);
  if (lens == ir::kNoValue) return {};
  DFC_TRY_ASSIGN(values, c.constInts(lens, "sequence_lens"));
  if (values.size() != static_cast<size_t>(r.batch)) return c.error("sequence_lens must have one entry per batch row");
  for (int64_t v : values)
    if (v != r.seq) return c.error("sequence_lens shorter than the sequence (packed sequences) are not supported");
  return {};
}

Expected<ValueId> initialState(ImportContext& c, const Recurrence& r, int input, int64_t d, const char* what) {
  ValueId init = c.input(input);
  if (init == ir::kNoValue) return c.constant(ir::Tensor(ir::TensorType{ir::DType::F32, {r.batch, r.hidden}}), what);
  Shape expect = r.batchFirst ? Shape{r.batch, r.dirs, r.hidden} : Shape{r.dirs, r.batch, r.hidden};
  if (c.shape(init) != expect) return c.error(std::string(what) + " must be " + ir::TensorType{ir::DType::F32, expect}.toString());
  ValueId byDir = init;
  if (r.batchFirst) {
    DFC_TRY_ASSIGN(t, c.transpose(init, {1, 0, 2}));
    byDir = t;
  }
  return direction(c, byDir, d);
}

Expected<DirWeights> directionWeights(ImportContext& c, const Recurrence& r, ValueId w, ValueId rec, int64_t d) {
  DirWeights dw;
  const int64_t gh = r.spec.gates * r.hidden;
  DFC_TRY_ASSIGN(wd, direction(c, w, d));
  DFC_TRY_ASSIGN(wT, c.transpose(wd, {1, 0}));
  DFC_TRY_ASSIGN(rd, direction(c, rec, d));
  DFC_TRY_ASSIGN(rT, c.transpose(rd, {1, 0}));
  dw.wT = wT;
  dw.rT = rT;
  if (ValueId b = c.input(3); b != ir::kNoValue) {
    if (c.shape(b) != Shape{r.dirs, 2 * gh}) return c.error("B must be [" + std::to_string(r.dirs) + ", " + std::to_string(2 * gh) + "]");
    DFC_TRY_ASSIGN(bd, direction(c, b, d));
    DFC_TRY_ASSIGN(wb, sliceAxis(c, bd, 0, 0, gh));
    DFC_TRY_ASSIGN(rb, sliceAxis(c, bd, 0, gh, 2 * gh));
    if (r.spec.cell == Cell::Gru && r.linearBeforeReset) {
      // Rb of the candidate gate goes inside r * (H R^T + Rb); z and r take both biases up front.
      DFC_TRY_ASSIGN(rbZr, sliceAxis(c, rb, 0, 0, 2 * r.hidden));
      ValueId zeroH = c.constant(ir::Tensor(ir::TensorType{ir::DType::F32, {r.hidden}}), "zeros");
      DFC_TRY_ASSIGN(rbOuter, c.emit(OpKind::Concat, {rbZr, zeroH}, {{"axis", int64_t{0}}}));
      DFC_TRY_ASSIGN(sum, c.binary("add", wb, rbOuter));
      DFC_TRY_ASSIGN(rbH, sliceAxis(c, rb, 0, 2 * r.hidden, 3 * r.hidden));
      dw.inBias = sum;
      dw.recBias = rbH;
    } else {
      DFC_TRY_ASSIGN(sum, c.binary("add", wb, rb));
      dw.inBias = sum;
    }
  }
  if (r.spec.cell == Cell::Lstm) {
    if (ValueId p = c.input(7); p != ir::kNoValue) {
      if (c.shape(p) != Shape{r.dirs, 3 * r.hidden}) return c.error("P must be [" + std::to_string(r.dirs) + ", " + std::to_string(3 * r.hidden) + "]");
      DFC_TRY_ASSIGN(pd, direction(c, p, d));
      dw.peephole = pd;
    }
  }
  DFC_TRY_ASSIGN(h0, initialState(c, r, 5, d, "initial_h"));
  dw.h0 = h0;
  if (r.spec.cell == Cell::Lstm) {
    DFC_TRY_ASSIGN(c0, initialState(c, r, 6, d, "initial_c"));
    dw.c0 = c0;
  }
  return dw;
}

// The input projection of all time steps at once: [T, B, G*H] (time-major).
Expected<ValueId> projectInputs(ImportContext& c, const Recurrence& r, ValueId x, const DirWeights& dw) {
  ValueId timeMajor = x;
  if (r.batchFirst) {
    DFC_TRY_ASSIGN(t, c.transpose(x, {1, 0, 2}));
    timeMajor = t;
  }
  DFC_TRY_ASSIGN(rows, c.reshape(timeMajor, {r.seq * r.batch, r.inputSize}));
  DFC_TRY_ASSIGN(proj, c.emit(OpKind::MatMul, {rows, dw.wT}, {{"trans_a", int64_t{0}}, {"trans_b", int64_t{0}}}));
  ValueId y = proj;
  if (dw.inBias != ir::kNoValue) {
    DFC_TRY_ASSIGN(b, c.binary("add", proj, dw.inBias));
    y = b;
  }
  return c.reshape(y, {r.seq, r.batch, r.spec.gates * r.hidden});
}

Expected<ValueId> gate(ImportContext& c, const Recurrence& r, ValueId pre, int64_t g) {
  return sliceAxis(c, pre, 1, g * r.hidden, (g + 1) * r.hidden);
}

Expected<ValueId> peepholed(ImportContext& c, const Recurrence& r, const DirWeights& dw, ValueId pre, int64_t which,
                            ValueId cell) {
  if (dw.peephole == ir::kNoValue) return pre;
  DFC_TRY_ASSIGN(p, sliceAxis(c, dw.peephole, 0, which * r.hidden, (which + 1) * r.hidden));
  DFC_TRY_ASSIGN(pc, c.binary("mul", p, cell));
  return c.binary("add", pre, pc);
}

struct State {
  ValueId h = ir::kNoValue, cell = ir::kNoValue;
};

// One time step. `xt`: this step's input projection [B, G*H]; `fn`: activation index base for this direction.
Expected<State> step(ImportContext& c, const Recurrence& r, const DirWeights& dw, ValueId xt, State s, size_t fn) {
  DFC_TRY_ASSIGN(hr, c.emit(OpKind::MatMul, {s.h, dw.rT}, {{"trans_a", int64_t{0}}, {"trans_b", int64_t{0}}}));
  if (r.spec.cell == Cell::Rnn) {
    DFC_TRY_ASSIGN(pre, c.binary("add", xt, hr));
    DFC_TRY_ASSIGN(cl, clipped(c, r, pre));
    DFC_TRY_ASSIGN(h, activation(c, r, fn, cl));
    return State{h, ir::kNoValue};
  }
  if (r.spec.cell == Cell::Gru) {  // gates z, r, h
    DFC_TRY_ASSIGN(xz, gate(c, r, xt, 0));
    DFC_TRY_ASSIGN(xr, gate(c, r, xt, 1));
    DFC_TRY_ASSIGN(xh, gate(c, r, xt, 2));
    DFC_TRY_ASSIGN(hz, gate(c, r, hr, 0));
    DFC_TRY_ASSIGN(hrr, gate(c, r, hr, 1));
    DFC_TRY_ASSIGN(zs, c.binary("add", xz, hz));
    DFC_TRY_ASSIGN(zc, clipped(c, r, zs));
    DFC_TRY_ASSIGN(z, activation(c, r, fn, zc));
    DFC_TRY_ASSIGN(rs, c.binary("add", xr, hrr));
    DFC_TRY_ASSIGN(rc, clipped(c, r, rs));
    DFC_TRY_ASSIGN(rg, activation(c, r, fn, rc));
    ValueId candidateRec;
    if (r.linearBeforeReset) {
      DFC_TRY_ASSIGN(hh, gate(c, r, hr, 2));
      ValueId withBias = hh;
      if (dw.recBias != ir::kNoValue) {
        DFC_TRY_ASSIGN(b, c.binary("add", hh, dw.recBias));
        withBias = b;
      }
      DFC_TRY_ASSIGN(prod, c.binary("mul", rg, withBias));
      candidateRec = prod;
    } else {  // (r * H) R_h^T: a second recurrent matmul on the reset state
      DFC_TRY_ASSIGN(rh, c.binary("mul", rg, s.h));
      DFC_TRY_ASSIGN(rhT, sliceAxis(c, dw.rT, 1, 2 * r.hidden, 3 * r.hidden));
      DFC_TRY_ASSIGN(mm, c.emit(OpKind::MatMul, {rh, rhT}, {{"trans_a", int64_t{0}}, {"trans_b", int64_t{0}}}));
      candidateRec = mm;
    }
    DFC_TRY_ASSIGN(hs, c.binary("add", xh, candidateRec));
    DFC_TRY_ASSIGN(hcl, clipped(c, r, hs));
    DFC_TRY_ASSIGN(candidate, activation(c, r, fn + 1, hcl));
    // H = (1 - z) * candidate + z * H_prev = candidate + z * (H_prev - candidate)
    DFC_TRY_ASSIGN(diff, c.binary("sub", s.h, candidate));
    DFC_TRY_ASSIGN(zd, c.binary("mul", z, diff));
    DFC_TRY_ASSIGN(h, c.binary("add", candidate, zd));
    return State{h, ir::kNoValue};
  }
  // LSTM: gates i, o, f, c; peepholes i, o, f.
  DFC_TRY_ASSIGN(pre, c.binary("add", xt, hr));
  DFC_TRY_ASSIGN(pi, gate(c, r, pre, 0));
  DFC_TRY_ASSIGN(po, gate(c, r, pre, 1));
  DFC_TRY_ASSIGN(pf, gate(c, r, pre, 2));
  DFC_TRY_ASSIGN(pc, gate(c, r, pre, 3));
  DFC_TRY_ASSIGN(pi2, peepholed(c, r, dw, pi, 0, s.cell));
  DFC_TRY_ASSIGN(pf2, peepholed(c, r, dw, pf, 2, s.cell));
  DFC_TRY_ASSIGN(ci, clipped(c, r, pi2));
  DFC_TRY_ASSIGN(cf, clipped(c, r, pf2));
  DFC_TRY_ASSIGN(cc, clipped(c, r, pc));
  DFC_TRY_ASSIGN(i, activation(c, r, fn, ci));
  DFC_TRY_ASSIGN(f, activation(c, r, fn, cf));
  DFC_TRY_ASSIGN(g, activation(c, r, fn + 1, cc));
  DFC_TRY_ASSIGN(fc, c.binary("mul", f, s.cell));
  DFC_TRY_ASSIGN(ig, c.binary("mul", i, g));
  DFC_TRY_ASSIGN(cell, c.binary("add", fc, ig));
  DFC_TRY_ASSIGN(po2, peepholed(c, r, dw, po, 1, cell));
  DFC_TRY_ASSIGN(co, clipped(c, r, po2));
  DFC_TRY_ASSIGN(o, activation(c, r, fn, co));
  DFC_TRY_ASSIGN(hc, activation(c, r, fn + 2, cell));
  DFC_TRY_ASSIGN(h, c.binary("mul", o, hc));
  return State{h, cell};
}

struct DirOutputs {
  std::vector<ValueId> hs;  // per time step, [B, H], in time order
  State last;
};

Expected<DirOutputs> runDirection(ImportContext& c, const Recurrence& r, ValueId x, ValueId w, ValueId rec, int64_t d) {
  DFC_TRY_ASSIGN(dw, directionWeights(c, r, w, rec, d));
  DFC_TRY_ASSIGN(proj, projectInputs(c, r, x, dw));
  const bool reverse = d == 1 || c.attrString("direction", "forward") == "reverse";
  const size_t fn = static_cast<size_t>(d) * r.spec.defaultActivations.size();
  DirOutputs out;
  out.hs.assign(static_cast<size_t>(r.seq), ir::kNoValue);
  State s{dw.h0, dw.c0};
  for (int64_t k = 0; k < r.seq; ++k) {
    const int64_t t = reverse ? r.seq - 1 - k : k;
    DFC_TRY_ASSIGN(xt3, sliceAxis(c, proj, 0, t, t + 1));
    DFC_TRY_ASSIGN(xt, c.reshape(xt3, {r.batch, r.spec.gates * r.hidden}));
    DFC_TRY_ASSIGN(next, step(c, r, dw, xt, s, fn));
    s = next;
    out.hs[static_cast<size_t>(t)] = s.h;
  }
  out.last = s;
  return out;
}

// Stacks per-(direction) [B, H] values into [dirs, B, H] (or [B, dirs, H] with layout=1).
Expected<ValueId> stackDirections(ImportContext& c, const Recurrence& r, const std::vector<ValueId>& perDir) {
  std::vector<ValueId> parts;
  for (ValueId v : perDir) {
    DFC_TRY_ASSIGN(p, c.reshape(v, r.batchFirst ? Shape{r.batch, 1, r.hidden} : Shape{1, r.batch, r.hidden}));
    parts.push_back(p);
  }
  if (parts.size() == 1) return parts[0];
  return c.emit(OpKind::Concat, parts, {{"axis", int64_t{r.batchFirst ? 1 : 0}}});
}

// Y: [T, dirs, B, H], or [B, T, dirs, H] with layout=1.
Expected<ValueId> sequenceOutput(ImportContext& c, const Recurrence& r, const std::vector<DirOutputs>& dirs) {
  std::vector<ValueId> steps;
  for (int64_t t = 0; t < r.seq; ++t) {
    std::vector<ValueId> perDir;
    for (const auto& d : dirs) perDir.push_back(d.hs[static_cast<size_t>(t)]);
    DFC_TRY_ASSIGN(stacked, stackDirections(c, r, perDir));
    DFC_TRY_ASSIGN(one, c.reshape(stacked, r.batchFirst ? Shape{r.batch, 1, r.dirs, r.hidden}
                                                        : Shape{1, r.dirs, r.batch, r.hidden}));
    steps.push_back(one);
  }
  if (steps.size() == 1) return steps[0];
  return c.emit(OpKind::Concat, steps, {{"axis", int64_t{r.batchFirst ? 1 : 0}}});
}

Status mapRecurrent(ImportContext& c, CellSpec spec) {
  Recurrence r;
  r.spec = std::move(spec);
  DFC_TRY(readAttributes(c, r));
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  DFC_TRY_ASSIGN(w, c.requireInput(1));
  DFC_TRY_ASSIGN(rec, c.requireInput(2));
  DFC_TRY(readShapes(c, r, x, w, rec));
  DFC_TRY(checkSequenceLens(c, r));
  std::vector<DirOutputs> dirs;
  for (int64_t d = 0; d < r.dirs; ++d) {
    DFC_TRY_ASSIGN(out, runDirection(c, r, x, w, rec, d));
    dirs.push_back(std::move(out));
  }
  if (c.outputWanted(0)) {
    DFC_TRY_ASSIGN(y, sequenceOutput(c, r, dirs));
    c.setOutput(0, y);
  }
  std::vector<ValueId> lastH, lastC;
  for (const auto& d : dirs) {
    lastH.push_back(d.last.h);
    lastC.push_back(d.last.cell);
  }
  if (c.outputWanted(1)) {
    DFC_TRY_ASSIGN(yh, stackDirections(c, r, lastH));
    c.setOutput(1, yh);
  }
  if (r.spec.cell == Cell::Lstm && c.outputWanted(2)) {
    DFC_TRY_ASSIGN(yc, stackDirections(c, r, lastC));
    c.setOutput(2, yc);
  }
  return {};
}

}  // namespace

void registerRecurrentOps(OpTable& t) {
  t["RNN"] = [](ImportContext& c) { return mapRecurrent(c, {Cell::Rnn, 1, {"Tanh"}}); };
  t["GRU"] = [](ImportContext& c) { return mapRecurrent(c, {Cell::Gru, 3, {"Sigmoid", "Tanh"}}); };
  t["LSTM"] = [](ImportContext& c) { return mapRecurrent(c, {Cell::Lstm, 4, {"Sigmoid", "Tanh", "Tanh"}}); };
}

}  // namespace dfc::onnx
