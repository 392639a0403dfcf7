//===- Recurrent.cpp - RNN, GRU and LSTM ----------------------------------===//
//
// Each direction of a recurrent op is one scf.for over the time steps that
// carries the hidden state (and the LSTM cell state) and the Y tensor. The
// input projection X * W^T of every step is one matmul before the loop; a
// step multiplies the carried hidden state by R^T (linalg.matmul_transpose_b)
// and evaluates the gate equations in a linalg.generic over [batch, hidden].
//
// Layout 1 ([batch, seq, ...]) needs no transposes: step t reads the rows
// t, t + seq, ... of the projected input (a strided slice) and writes its
// [batch, hidden] result into Y, Y_h and Y_c at that layout's positions.
//
// sequence_lens: a batch entry whose length is <= t keeps its state and
// writes zeros into Y. A reverse pass visits t from the end, so each sequence
// starts at its own last valid step (ONNX Runtime's semantics; the reference
// implementation ignores sequence_lens).
//
// f16 and bf16 inputs are extended to f32 and the outputs rounded back once.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/KernelActivation.h"
#include "targets/cpu/lowering/LinalgBuilders.h"
#include "targets/cpu/lowering/Patterns.h"
#include "targets/cpu/lowering/RuntimeCall.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

enum class CellKind { Rnn, Gru, Lstm };

int64_t gateCount(CellKind kind) {
  return kind == CellKind::Rnn ? 1 : kind == CellKind::Gru ? 3 : 4;
}

/// The activation functions a recurrent op may name, with their alpha/beta.
enum class ActivationKind {
  Relu,
  Tanh,
  Sigmoid,
  Affine,
  LeakyRelu,
  ThresholdedRelu,
  ScaledTanh,
  HardSigmoid,
  Elu,
  Softsign,
  Softplus
};

struct Activation {
  ActivationKind kind;
  double alpha = 0.0;
  double beta = 0.0;
};

/// An activation's name, whether it takes alpha and beta, and their defaults
/// (those of the ONNX operator of the same name).
struct ActivationInfo {
  StringRef name;
  ActivationKind kind;
  bool takesAlpha, takesBeta;
  double defaultAlpha, defaultBeta;
};

constexpr ActivationInfo kActivations[] = {
    {"Relu", ActivationKind::Relu, false, false, 0.0, 0.0},
    {"Tanh", ActivationKind::Tanh, false, false, 0.0, 0.0},
    {"Sigmoid", ActivationKind::Sigmoid, false, false, 0.0, 0.0},
    {"Affine", ActivationKind::Affine, true, true, 1.0, 0.0},
    {"LeakyRelu", ActivationKind::LeakyRelu, true, false, 0.01, 0.0},
    {"ThresholdedRelu", ActivationKind::ThresholdedRelu, true, false, 1.0, 0.0},
    {"ScaledTanh", ActivationKind::ScaledTanh, true, true, 1.0, 1.0},
    {"HardSigmoid", ActivationKind::HardSigmoid, true, true, 0.2, 0.5},
    {"Elu", ActivationKind::Elu, true, false, 1.0, 0.0},
    {"Softsign", ActivationKind::Softsign, false, false, 0.0, 0.0},
    {"Softplus", ActivationKind::Softplus, false, false, 0.0, 0.0},
};

/// Reads the float list attribute `name` (empty when absent).
SmallVector<double> getFloats(Operation *op, StringRef name) {
  SmallVector<double> values;
  if (auto array = op->getAttrOfType<ArrayAttr>(name))
    for (Attribute a : array)
      if (auto f = llvm::dyn_cast<FloatAttr>(a))
        values.push_back(f.getValueAsDouble());
  return values;
}

/// The activations of every direction, `perDirection` of them each: the
/// `activations` attribute (names are case-insensitive; one direction's list
/// serves both of a bidirectional op) or the defaults. activation_alpha and
/// activation_beta are consumed in order by the activations that take them.
FailureOr<SmallVector<Activation>> readActivations(Operation *op,
                                                   ArrayRef<StringRef> defaults,
                                                   int64_t directions) {
  int64_t perDirection = defaults.size();
  SmallVector<StringRef> names;
  if (auto array = op->getAttrOfType<ArrayAttr>("activations")) {
    for (Attribute a : array) {
      auto name = llvm::dyn_cast<StringAttr>(a);
      if (!name)
        return op->emitError("activations must be strings");
      names.push_back(name.getValue());
    }
  }
  if (names.empty())
    for (int64_t d = 0; d < directions; ++d)
      names.append(defaults.begin(), defaults.end());
  if (int64_t(names.size()) == perDirection && directions == 2)
    names.append(SmallVector<StringRef>(names));
  if (int64_t(names.size()) != perDirection * directions)
    return op->emitError() << "expects " << perDirection * directions
                           << " activations, got " << names.size();

  SmallVector<double> alphas = getFloats(op, "activation_alpha");
  SmallVector<double> betas = getFloats(op, "activation_beta");
  size_t nextAlpha = 0, nextBeta = 0;
  SmallVector<Activation> activations;
  for (StringRef name : names) {
    const ActivationInfo *info =
        llvm::find_if(kActivations, [&](const ActivationInfo &i) {
          return i.name.equals_insensitive(name);
        });
    if (info == std::end(kActivations))
      return op->emitError() << "unsupported activation '" << name << "'";
    Activation activation{info->kind, info->defaultAlpha, info->defaultBeta};
    if (info->takesAlpha && nextAlpha < alphas.size())
      activation.alpha = alphas[nextAlpha++];
    if (info->takesBeta && nextBeta < betas.size())
      activation.beta = betas[nextBeta++];
    activations.push_back(activation);
  }
  return activations;
}

/// Applies `activation` to float scalar `x`.
Value activate(OpBuilder &b, Location loc, const Activation &activation,
               Value x) {
  Type type = x.getType();
  auto c = [&](double v) { return scalarConst(b, loc, type, v); };
  auto mul = [&](Value l, Value r) -> Value {
    return b.create<arith::MulFOp>(loc, l, r);
  };
  auto add = [&](Value l, Value r) -> Value {
    return b.create<arith::AddFOp>(loc, l, r);
  };
  auto nonNegative = [&]() -> Value {
    return b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OGE, x, c(0.0));
  };
  switch (activation.kind) {
  case ActivationKind::Relu:
    return b.create<arith::MaximumFOp>(loc, x, c(0.0));
  case ActivationKind::Tanh:
    return b.create<math::TanhOp>(loc, x);
  case ActivationKind::Sigmoid: {
    Value e = b.create<math::ExpOp>(loc, b.create<arith::NegFOp>(loc, x));
    return b.create<arith::DivFOp>(loc, c(1.0), add(c(1.0), e));
  }
  case ActivationKind::Affine:
    return add(mul(c(activation.alpha), x), c(activation.beta));
  case ActivationKind::LeakyRelu:
    return b.create<arith::SelectOp>(loc, nonNegative(), x,
                                     mul(c(activation.alpha), x));
  case ActivationKind::ThresholdedRelu: {
    Value above = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OGT, x,
                                          c(activation.alpha));
    return b.create<arith::SelectOp>(loc, above, x, c(0.0));
  }
  case ActivationKind::ScaledTanh:
    return mul(c(activation.alpha),
               b.create<math::TanhOp>(loc, mul(c(activation.beta), x)));
  case ActivationKind::HardSigmoid: {
    Value linear = add(mul(c(activation.alpha), x), c(activation.beta));
    return b.create<arith::MaximumFOp>(
        loc, c(0.0), b.create<arith::MinimumFOp>(loc, c(1.0), linear));
  }
  case ActivationKind::Elu: {
    Value e =
        b.create<arith::SubFOp>(loc, b.create<math::ExpOp>(loc, x), c(1.0));
    return b.create<arith::SelectOp>(loc, nonNegative(), x,
                                     mul(c(activation.alpha), e));
  }
  case ActivationKind::Softsign:
    return b.create<arith::DivFOp>(loc, x,
                                   add(c(1.0), b.create<math::AbsFOp>(loc, x)));
  case ActivationKind::Softplus:
    return b.create<math::Log1pOp>(loc, b.create<math::ExpOp>(loc, x));
  }
  llvm_unreachable("unknown activation");
}

/// The static value of `size`, or kDynamic.
int64_t staticSize(OpFoldResult size) {
  return getConstantIntValue(size).value_or(ShapedType::kDynamic);
}

/// Whether static sizes `a` and `b` are both known and differ.
bool mismatch(int64_t a, int64_t b) {
  return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
}

/// `n * size`, folded when `size` is static.
OpFoldResult mulSize(OpBuilder &b, Location loc, int64_t n, OpFoldResult size) {
  if (std::optional<int64_t> s = getConstantIntValue(size))
    return b.getIndexAttr(n * *s);
  return b
      .create<arith::MulIOp>(loc, indexConst(b, loc, n), toValue(b, loc, size))
      .getResult();
}

Value zeroFilled(OpBuilder &b, Location loc, Type elementType,
                 ArrayRef<OpFoldResult> sizes) {
  Value empty = b.create<tensor::EmptyOp>(loc, sizes, elementType);
  return b.create<linalg::FillOp>(loc, zeroScalar(b, loc, elementType), empty)
      .getResult(0);
}

/// A slice of `source` of rank `rank` (unit dims of `sizes` dropped).
Value slice(OpBuilder &b, Location loc, Value source, int64_t rank,
            ArrayRef<OpFoldResult> offsets, ArrayRef<OpFoldResult> sizes,
            ArrayRef<OpFoldResult> strides) {
  auto type = tensor::ExtractSliceOp::inferCanonicalRankReducedResultType(
      rank, llvm::cast<RankedTensorType>(source.getType()), offsets, sizes,
      strides);
  return b.create<tensor::ExtractSliceOp>(loc, type, source, offsets, sizes,
                                          strides);
}

/// `value` with its elements converted to float type `to`.
Value convertElements(OpBuilder &b, Location loc, Value value, Type to) {
  auto type = llvm::cast<RankedTensorType>(value.getType());
  Type from = type.getElementType();
  return buildParallelGeneric(b, loc, type.clone(to),
                              tensorSizes(b, loc, value), ValueRange{value},
                              {b.getMultiDimIdentityMap(type.getRank())},
                              [&](OpBuilder &nb, Location nl, ValueRange args) {
                                return castScalar(nb, nl, args[0], from, to);
                              });
}

/// `a * b^T` for `a` [M, K] and `b` [N, K]: a call of the runtime's GEMM
/// when `gemm` (its rank-2 wrapper, RuntimeHelpers.cpp) is declared and the
/// operands are f32, else a linalg product. In a step the hidden state has
/// a few rows, which the GEMM's small-M path multiplies at a fraction of
/// the linalg loops' time (docs/benchmarks-pypi.md).
Value matmulTransposeB(OpBuilder &b, Location loc, Value lhs, Value rhs,
                       func::FuncOp gemm) {
  auto lhsType = llvm::cast<RankedTensorType>(lhs.getType());
  auto rhsType = llvm::cast<RankedTensorType>(rhs.getType());
  Type element = lhsType.getElementType();
  SmallVector<OpFoldResult> sizes = {tensorSize(b, loc, lhs, 0),
                                     tensorSize(b, loc, rhs, 0)};
  if (!gemm || !element.isF32()) {
    Value init = zeroFilled(b, loc, element, sizes);
    return b.create<linalg::MatmulTransposeBOp>(loc, ValueRange{lhs, rhs}, init)
        .getResult(0);
  }
  auto resultType = RankedTensorType::get(
      {lhsType.getDimSize(0), rhsType.getDimSize(0)}, element);
  Value buffer = allocRuntimeResult(b, loc, resultType, sizes);
  Value aRef = runtimeCallArgument(b, loc, lhs);
  auto i32 = [&](int32_t v) -> Value {
    return b.create<arith::ConstantIntOp>(loc, v, 32);
  };
  auto f32 = [&](float v) -> Value {
    return b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(v));
  };
  // B transposed; no bias (the third memref is A again), alpha 1, no
  // activation.
  KernelActivation none;
  b.create<func::CallOp>(loc, gemm,
                         ValueRange{aRef, runtimeCallArgument(b, loc, rhs),
                                    aRef, castToDynamicMemref(b, loc, buffer),
                                    i32(kGemmTransB), f32(1.0f), f32(0.0f),
                                    i32(none.kind), f32(none.alpha),
                                    f32(none.beta)});
  return runtimeResultTensor(b, loc, resultType, buffer);
}

/// Operands of one per-step linalg.generic over [batch, hidden], each read
/// as a [batch, hidden] tile, a [hidden] vector or a [batch] vector. `add`
/// returns the operand's position among the body's arguments; absent
/// operands get -1.
struct StepOperands {
  MLIRContext *ctx;
  SmallVector<Value> values;
  SmallVector<AffineMap> maps;

  int add(Value value, AffineMap map) {
    if (!value)
      return -1;
    values.push_back(value);
    maps.push_back(map);
    return values.size() - 1;
  }
  int tile(Value value) {
    return add(value, AffineMap::getMultiDimIdentityMap(2, ctx));
  }
  int perHidden(Value value) {
    return add(value, AffineMap::get(2, 0, getAffineDimExpr(1, ctx)));
  }
  int perBatch(Value value) {
    return add(value, AffineMap::get(2, 0, getAffineDimExpr(0, ctx)));
  }
};

/// Everything a lowering reads about one recurrent node.
struct RecurrentInputs {
  CellKind kind;
  Value x, w, r, bias, sequenceLens, initialH, initialC, peepholes;
  bool batchFirst;
  StringRef direction;
  std::optional<double> clip;
  bool linearBeforeReset = false;
  bool inputForget = false;
  func::FuncOp gemm; // the runtime GEMM's wrapper, or null (linalg)
};

/// The per-direction pieces a step reads: [hidden] slices of B (W's biases,
/// then R's, one per gate) and P (i, o, f), and the R rows a step multiplies.
struct DirectionWeights {
  Value inputProjection; // [rows, gates * hidden]: X * W^T
  Value recurrence;      // R's rows multiplied by the hidden state
  Value gruCandidate;    // GRU without linear_before_reset: R's h rows
  SmallVector<Value> wBias, rBias, peepholes;
};

/// Builds the loops of one recurrent node, direction by direction.
class RecurrentBuilder {
public:
  RecurrentBuilder(OpBuilder &b, Location loc, const RecurrentInputs &in,
                   ArrayRef<Activation> activations)
      : b(b), loc(loc), in(in), allActivations(activations) {
    element = llvm::cast<RankedTensorType>(in.x.getType()).getElementType();
    int64_t seqDim = in.batchFirst ? 1 : 0;
    seq = tensorSize(b, loc, in.x, seqDim);
    batch = tensorSize(b, loc, in.x, 1 - seqDim);
    hidden = tensorSize(b, loc, in.r, 2);
    gates = gateCount(in.kind);
    stateType =
        RankedTensorType::get({staticSize(batch), staticSize(hidden)}, element);
  }

  /// Runs direction `d` (reverse when `reverse`) over the sequence; writes
  /// its hidden states into `y` (when non-null) and returns the final
  /// hidden and cell state.
  std::pair<Value, Value> runDirection(int64_t d, bool reverse, Value &y);

  /// Inserts the [batch, hidden] `state` of direction `d` into `dest`, a
  /// Y_h/Y_c tensor.
  Value insertState(Value state, Value dest, int64_t d) {
    auto [offsets, sizes] = stateSlice(d);
    return b.create<tensor::InsertSliceOp>(
        loc, state, dest, offsets, sizes,
        SmallVector<OpFoldResult>(3, b.getIndexAttr(1)));
  }

  OpFoldResult seq, batch, hidden;
  Type element;

private:
  /// The offsets and sizes of direction `d`'s [batch, hidden] slice of an
  /// initial_h/initial_c/Y_h/Y_c tensor ([directions, batch, hidden], or
  /// [batch, directions, hidden] in layout 1).
  std::pair<SmallVector<OpFoldResult>, SmallVector<OpFoldResult>>
  stateSlice(int64_t d) {
    SmallVector<OpFoldResult> offsets(3, b.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes{b.getIndexAttr(1), batch, hidden};
    offsets[0] = b.getIndexAttr(d);
    if (in.batchFirst) {
      std::swap(offsets[0], offsets[1]);
      std::swap(sizes[0], sizes[1]);
    }
    return {offsets, sizes};
  }
  DirectionWeights prepareDirection(int64_t d);
  Value initialState(Value given, int64_t d);
  SmallVector<Value> step(OpBuilder &nb, Location nl,
                          const DirectionWeights &dw, ArrayRef<Activation> acts,
                          Value t, Value h, Value c);
  Value gateTile(OpBuilder &nb, Location nl, Value projection, Value rowOffset,
                 OpFoldResult rowStride, int64_t gate);
  Value clipped(OpBuilder &nb, Location nl, Value v) const;

  OpBuilder &b;
  Location loc;
  const RecurrentInputs &in;
  ArrayRef<Activation> allActivations;
  int64_t gates;
  RankedTensorType stateType;
};

Value RecurrentBuilder::clipped(OpBuilder &nb, Location nl, Value v) const {
  if (!in.clip)
    return v;
  Value bound = scalarConst(nb, nl, v.getType(), *in.clip);
  Value low = scalarConst(nb, nl, v.getType(), -*in.clip);
  return nb.create<arith::MinimumFOp>(nl, bound,
                                      nb.create<arith::MaximumFOp>(nl, low, v));
}

Value RecurrentBuilder::initialState(Value given, int64_t d) {
  if (isNoneValue(given))
    return zeroFilled(b, loc, element, {batch, hidden});
  auto [offsets, sizes] = stateSlice(d);
  return castIfNeeded(b, loc,
                      slice(b, loc, given, 2, offsets, sizes,
                            SmallVector<OpFoldResult>(3, b.getIndexAttr(1))),
                      stateType);
}

DirectionWeights RecurrentBuilder::prepareDirection(int64_t d) {
  DirectionWeights dw;
  OpFoldResult zero = b.getIndexAttr(0), one = b.getIndexAttr(1);
  SmallVector<OpFoldResult> unit3(3, one);
  auto rows = [&](Value weights, int64_t firstGate, int64_t count) {
    return slice(
        b, loc, weights, 2,
        {b.getIndexAttr(d), mulSize(b, loc, firstGate, hidden), zero},
        {one, mulSize(b, loc, count, hidden), tensorSize(b, loc, weights, 2)},
        unit3);
  };

  // X * W^T for every step at once: X's rows in memory order.
  Value xRows = b.create<tensor::CollapseShapeOp>(
      loc, in.x, SmallVector<ReassociationIndices>{{0, 1}, {2}});
  dw.inputProjection =
      matmulTransposeB(b, loc, xRows, rows(in.w, 0, gates), in.gemm);

  if (in.kind == CellKind::Gru && !in.linearBeforeReset) {
    // The candidate multiplies r * H by R's h rows, so it has its own matmul.
    dw.recurrence = rows(in.r, 0, 2);
    dw.gruCandidate = rows(in.r, 2, 1);
  } else {
    dw.recurrence = rows(in.r, 0, gates);
  }

  auto vectorSlice = [&](Value source, int64_t index) {
    return slice(b, loc, source, 1,
                 {b.getIndexAttr(d), mulSize(b, loc, index, hidden)},
                 {one, hidden}, {one, one});
  };
  if (!isNoneValue(in.bias))
    for (int64_t g = 0; g < gates; ++g) {
      dw.wBias.push_back(vectorSlice(in.bias, g));
      dw.rBias.push_back(vectorSlice(in.bias, gates + g));
    }
  if (!isNoneValue(in.peepholes))
    for (int64_t g = 0; g < 3; ++g)
      dw.peepholes.push_back(vectorSlice(in.peepholes, g));
  return dw;
}

Value RecurrentBuilder::gateTile(OpBuilder &nb, Location nl, Value projection,
                                 Value rowOffset, OpFoldResult rowStride,
                                 int64_t gate) {
  OpFoldResult column = mulSize(nb, nl, gate, hidden);
  OpFoldResult one = nb.getIndexAttr(1);
  return castIfNeeded(nb, nl,
                      slice(nb, nl, projection, 2, {rowOffset, column},
                            {batch, hidden}, {rowStride, one}),
                      stateType);
}

SmallVector<Value> RecurrentBuilder::step(OpBuilder &nb, Location nl,
                                          const DirectionWeights &dw,
                                          ArrayRef<Activation> acts, Value t,
                                          Value h, Value c) {
  // Step t's rows of X * W^T: t * batch + [0, batch) in layout 0,
  // t + seq * [0, batch) in layout 1.
  Value rowOffset = t;
  OpFoldResult rowStride = nb.getIndexAttr(1);
  if (in.batchFirst)
    rowStride = seq;
  else
    rowOffset = nb.create<arith::MulIOp>(nl, t, toValue(nb, nl, batch));
  Value recurrent = matmulTransposeB(nb, nl, h, dw.recurrence, in.gemm);
  OpFoldResult zero = nb.getIndexAttr(0), one = nb.getIndexAttr(1);
  auto xGate = [&](int64_t g) {
    return gateTile(nb, nl, dw.inputProjection, rowOffset, rowStride, g);
  };
  auto hGate = [&](int64_t g) {
    OpFoldResult column = mulSize(nb, nl, g, hidden);
    return castIfNeeded(nb, nl,
                        slice(nb, nl, recurrent, 2, {zero, column},
                              {batch, hidden}, {one, one}),
                        stateType);
  };
  auto at = [](ValueRange args, int i) { return i < 0 ? Value() : args[i]; };
  auto addAll = [](OpBuilder &bb, Location bl, ArrayRef<Value> terms) {
    Value sum;
    for (Value v : terms)
      if (v)
        sum = sum ? bb.create<arith::AddFOp>(bl, sum, v).getResult() : v;
    return sum;
  };
  auto bias = [&](const SmallVector<Value> &list, int64_t g) {
    return list.empty() ? Value() : list[g];
  };

  // Sequence masking: entries whose length is <= t keep their state.
  Value tLens;
  if (!isNoneValue(in.sequenceLens))
    tLens = nb.create<arith::IndexCastOp>(
        nl, getElementTypeOrSelf(in.sequenceLens.getType()), t);

  StepOperands ops{nb.getContext(), {}, {}};
  int lensIdx = tLens ? ops.perBatch(in.sequenceLens) : -1;
  SmallVector<int> xIdx, rIdx, wbIdx, rbIdx, pIdx;
  Value gruResetHidden;
  if (in.kind == CellKind::Gru && !in.linearBeforeReset) {
    // r * H first: the candidate multiplies it by R's h rows.
    StepOperands reset{nb.getContext(), {}, {}};
    int x = reset.tile(xGate(1)), r = reset.tile(hGate(1)),
        wb = reset.perHidden(bias(dw.wBias, 1)),
        rb = reset.perHidden(bias(dw.rBias, 1)), hp = reset.tile(h);
    Value empty = nb.create<tensor::EmptyOp>(
        nl, SmallVector<OpFoldResult>{batch, hidden}, element);
    reset.maps.push_back(AffineMap::getMultiDimIdentityMap(2, ops.ctx));
    Value resetHidden =
        nb.create<linalg::GenericOp>(
              nl, TypeRange{empty.getType()}, reset.values, ValueRange{empty},
              reset.maps,
              SmallVector<utils::IteratorType>(2,
                                               utils::IteratorType::parallel),
              [&](OpBuilder &bb, Location bl, ValueRange args) {
                Value pre = addAll(
                    bb, bl, {args[x], args[r], at(args, wb), at(args, rb)});
                Value gate = activate(bb, bl, acts[0], clipped(bb, bl, pre));
                bb.create<linalg::YieldOp>(
                    bl, ValueRange{bb.create<arith::MulFOp>(bl, gate, args[hp])
                                       .getResult()});
              })
            .getResult(0);
    gruResetHidden =
        matmulTransposeB(nb, nl, resetHidden, dw.gruCandidate, in.gemm);
  }
  int candidateIdx = gruResetHidden ? ops.tile(gruResetHidden) : -1;
  for (int64_t g = 0; g < gates; ++g) {
    // GRU without linear_before_reset: r was applied above and the
    // candidate's recurrent term is gruResetHidden.
    bool gruSplit = gruResetHidden && g > 0;
    xIdx.push_back(gruSplit && g == 1 ? -1 : ops.tile(xGate(g)));
    rIdx.push_back(gruSplit ? -1 : ops.tile(hGate(g)));
    wbIdx.push_back(gruSplit && g == 1 ? -1 : ops.perHidden(bias(dw.wBias, g)));
    rbIdx.push_back(gruSplit && g == 1 ? -1 : ops.perHidden(bias(dw.rBias, g)));
  }
  for (int64_t g = 0; g < 3 && !dw.peepholes.empty(); ++g)
    pIdx.push_back(ops.perHidden(dw.peepholes[g]));

  bool writesCell = in.kind == CellKind::Lstm;
  bool masked = lensIdx >= 0;
  // The old hidden state is read by GRU's update and by masked steps.
  int hIdx = in.kind == CellKind::Gru || masked ? ops.tile(h) : -1;
  int cIdx = writesCell ? ops.tile(c) : -1;
  SmallVector<Value> inits;
  SmallVector<Type> types;
  int results = 1 + (writesCell ? 1 : 0) + (masked ? 1 : 0);
  for (int i = 0; i < results; ++i) {
    inits.push_back(nb.create<tensor::EmptyOp>(
        nl, SmallVector<OpFoldResult>{batch, hidden}, element));
    types.push_back(inits.back().getType());
    ops.maps.push_back(AffineMap::getMultiDimIdentityMap(2, ops.ctx));
  }

  auto generic = nb.create<linalg::GenericOp>(
      nl, types, ops.values, inits, ops.maps,
      SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
      [&](OpBuilder &bb, Location bl, ValueRange args) {
        auto gatePre = [&](int64_t g, ArrayRef<Value> extra) {
          SmallVector<Value> terms{at(args, xIdx[g]), at(args, rIdx[g]),
                                   at(args, wbIdx[g]), at(args, rbIdx[g])};
          terms.append(extra.begin(), extra.end());
          return addAll(bb, bl, terms);
        };
        auto act = [&](int i, Value pre) {
          return activate(bb, bl, acts[i], clipped(bb, bl, pre));
        };
        auto mul = [&](Value l, Value r) -> Value {
          return bb.create<arith::MulFOp>(bl, l, r);
        };
        Value unit = scalarConst(bb, bl, element, 1.0);
        Value hPrev = at(args, hIdx);
        Value newH, newC;
        switch (in.kind) {
        case CellKind::Rnn:
          newH = act(0, gatePre(0, {}));
          break;
        case CellKind::Gru: {
          Value z = act(0, gatePre(0, {}));
          Value candidate;
          if (in.linearBeforeReset) {
            Value r = act(0, gatePre(1, {}));
            Value recurrentH =
                addAll(bb, bl, {args[rIdx[2]], at(args, rbIdx[2])});
            candidate =
                addAll(bb, bl,
                       {args[xIdx[2]], mul(r, recurrentH), at(args, wbIdx[2])});
          } else {
            candidate = gatePre(2, {args[candidateIdx]});
          }
          Value hTilde = act(1, candidate);
          // (1 - z) * h~ + z * H
          newH = bb.create<arith::AddFOp>(
              bl, mul(bb.create<arith::SubFOp>(bl, unit, z), hTilde),
              mul(z, hPrev));
          break;
        }
        case CellKind::Lstm: {
          // Gates in W/R/B order: i, o, f, c; peepholes: i, o, f.
          Value cPrev = args[cIdx];
          auto peephole = [&](int p, Value state) -> Value {
            return pIdx.empty() ? Value() : mul(args[pIdx[p]], state);
          };
          Value i = act(0, gatePre(0, {peephole(0, cPrev)}));
          Value f = in.inputForget
                        ? bb.create<arith::SubFOp>(bl, unit, i).getResult()
                        : act(0, gatePre(2, {peephole(2, cPrev)}));
          Value cTilde = act(1, gatePre(3, {}));
          newC = bb.create<arith::AddFOp>(bl, mul(f, cPrev), mul(i, cTilde));
          Value o = act(0, gatePre(1, {peephole(1, newC)}));
          newH = mul(o, activate(bb, bl, acts[2], newC));
          break;
        }
        }
        SmallVector<Value> yields;
        if (!masked) {
          yields.push_back(newH);
          if (newC)
            yields.push_back(newC);
        } else {
          Value valid = bb.create<arith::CmpIOp>(bl, arith::CmpIPredicate::slt,
                                                 tLens, args[lensIdx]);
          yields.push_back(bb.create<arith::SelectOp>(bl, valid, newH, hPrev));
          if (newC)
            yields.push_back(
                bb.create<arith::SelectOp>(bl, valid, newC, args[cIdx]));
          yields.push_back(bb.create<arith::SelectOp>(
              bl, valid, newH, scalarConst(bb, bl, element, 0.0)));
        }
        bb.create<linalg::YieldOp>(bl, yields);
      });
  // The new states are copied into the carried ones (whose last reader is
  // this step), so the loop's yields bufferize to its iteration arguments
  // instead of a fresh buffer per step, which one-shot bufferization refuses.
  auto overwrite = [&](Value state, Value carried) {
    return nb.create<linalg::CopyOp>(nl, state, carried).getResult(0);
  };
  // (new H, new C or null, this step's Y tile)
  SmallVector<Value> out{overwrite(generic.getResult(0), h),
                         writesCell ? overwrite(generic.getResult(1), c)
                                    : Value()};
  out.push_back(masked ? generic.getResults().back() : generic.getResult(0));
  return out;
}

std::pair<Value, Value> RecurrentBuilder::runDirection(int64_t d, bool reverse,
                                                       Value &y) {
  int64_t perDirection =
      allActivations.size() / (in.direction == "bidirectional" ? 2 : 1);
  ArrayRef<Activation> acts =
      allActivations.slice(d * perDirection, perDirection);
  DirectionWeights dw = prepareDirection(d);
  Value h0 = initialState(in.initialH, d);
  Value c0;
  if (in.kind == CellKind::Lstm)
    c0 = initialState(in.initialC, d);

  SmallVector<Value> iterInits{h0};
  if (c0)
    iterInits.push_back(c0);
  if (y)
    iterInits.push_back(y);
  Value seqValue = toValue(b, loc, seq);
  Value lastStep =
      b.create<arith::SubIOp>(loc, seqValue, indexConst(b, loc, 1));
  auto loop = b.create<scf::ForOp>(
      loc, indexConst(b, loc, 0), seqValue, indexConst(b, loc, 1), iterInits,
      [&](OpBuilder &nb, Location nl, Value i, ValueRange iter) {
        Value t =
            reverse ? nb.create<arith::SubIOp>(nl, lastStep, i).getResult() : i;
        Value h = iter[0];
        Value c = c0 ? iter[1] : Value();
        SmallVector<Value> next = step(nb, nl, dw, acts, t, h, c);
        SmallVector<Value> yields{next[0]};
        if (c)
          yields.push_back(next[1]);
        if (y) {
          // Y is [seq, directions, batch, hidden] ([batch, seq, directions,
          // hidden] in layout 1).
          SmallVector<OpFoldResult> offsets{
              t, nb.getIndexAttr(d), nb.getIndexAttr(0), nb.getIndexAttr(0)};
          SmallVector<OpFoldResult> sizes{nb.getIndexAttr(1),
                                          nb.getIndexAttr(1), batch, hidden};
          if (in.batchFirst) {
            offsets = {nb.getIndexAttr(0), t, nb.getIndexAttr(d),
                       nb.getIndexAttr(0)};
            sizes = {batch, nb.getIndexAttr(1), nb.getIndexAttr(1), hidden};
          }
          yields.push_back(nb.create<tensor::InsertSliceOp>(
              nl, next[2], iter.back(), offsets, sizes,
              SmallVector<OpFoldResult>(4, nb.getIndexAttr(1))));
        }
        nb.create<scf::YieldOp>(nl, yields);
      });
  if (y)
    y = loop.getResults().back();
  return {loop.getResult(0), c0 ? loop.getResult(1) : Value()};
}

/// RNN, GRU and LSTM on float tensors, every attribute of opset 22.
template <typename OpTy, CellKind kind>
struct RecurrentLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RecurrentInputs in;
    in.kind = kind;
    in.x = adaptor.getX();
    in.w = adaptor.getW();
    in.r = adaptor.getR();
    in.bias = adaptor.getB();
    in.sequenceLens = adaptor.getSequenceLens();
    in.initialH = adaptor.getInitialH();
    if constexpr (kind == CellKind::Lstm) {
      in.initialC = adaptor.getInitialC();
      in.peepholes = adaptor.getP();
      in.inputForget = op.getInputForget() != 0;
    }
    if constexpr (kind == CellKind::Gru)
      in.linearBeforeReset = op.getLinearBeforeReset() != 0;
    in.batchFirst = op.getLayout() != 0;
    in.direction = op.getDirection();
    in.gemm = lookupRuntimeCallee(op);
    if (std::optional<APFloat> clip = op.getClip())
      in.clip = clip->convertToDouble();

    auto xType = llvm::dyn_cast<RankedTensorType>(in.x.getType());
    if (!xType ||
        !llvm::isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(
            xType.getElementType()))
      return rewriter.notifyMatchFailure(op, "expects a float X");
    if (failed(verifyShapes(op, in)))
      return failure();
    // Half floats are computed in f32 and rounded once at the end.
    Type element = xType.getElementType();
    Type compute = computeType(element);
    if (compute != element)
      for (Value *v : {&in.x, &in.w, &in.r, &in.bias, &in.initialH,
                       &in.initialC, &in.peepholes})
        if (!isNoneValue(*v))
          *v = convertElements(rewriter, loc, *v, compute);
    int64_t directions = in.direction == "bidirectional" ? 2 : 1;

    SmallVector<StringRef> defaults;
    if (kind == CellKind::Rnn)
      defaults = {"Tanh"};
    else if (kind == CellKind::Gru)
      defaults = {"Sigmoid", "Tanh"};
    else
      defaults = {"Sigmoid", "Tanh", "Tanh"};
    FailureOr<SmallVector<Activation>> activations =
        readActivations(op, defaults, directions);
    if (failed(activations))
      return failure();

    // Result types (null for an omitted output).
    SmallVector<RankedTensorType> resultTypes;
    for (unsigned i = 0; i < op->getNumResults(); ++i) {
      if (llvm::isa<NoneType>(op->getResult(i).getType())) {
        resultTypes.push_back(nullptr);
        continue;
      }
      RankedTensorType type =
          convertedResultType(*this->getTypeConverter(), op, i);
      if (!type)
        return failure();
      resultTypes.push_back(type.clone(compute));
    }

    RecurrentBuilder builder(rewriter, loc, in, *activations);
    OpFoldResult dirs = rewriter.getIndexAttr(directions);
    Value y;
    if (resultTypes[0]) {
      SmallVector<OpFoldResult> sizes{builder.seq, dirs, builder.batch,
                                      builder.hidden};
      if (in.batchFirst)
        sizes = {builder.batch, builder.seq, dirs, builder.hidden};
      y = emptyTensor(rewriter, loc, resultTypes[0], sizes);
    }
    SmallVector<OpFoldResult> stateSizes{dirs, builder.batch, builder.hidden};
    if (in.batchFirst)
      std::swap(stateSizes[0], stateSizes[1]);
    SmallVector<Value> finalStates;
    for (unsigned i = 1; i < resultTypes.size(); ++i)
      finalStates.push_back(
          resultTypes[i]
              ? emptyTensor(rewriter, loc, resultTypes[i], stateSizes)
              : Value());

    for (int64_t d = 0; d < directions; ++d) {
      bool reverse = in.direction == "reverse" || d == 1;
      auto [h, c] = builder.runDirection(d, reverse, y);
      Value states[] = {h, c};
      for (size_t i = 0; i < finalStates.size(); ++i)
        if (finalStates[i])
          finalStates[i] = builder.insertState(states[i], finalStates[i], d);
    }

    SmallVector<Value> results{y};
    results.append(finalStates.begin(), finalStates.end());
    if (compute != element)
      for (Value &result : results)
        if (result)
          result = convertElements(rewriter, loc, result, element);
    rewriter.replaceOp(op, results);
    return success();
  }

  /// Checks the static dims the inputs must agree on, with an error naming
  /// the node on a mismatch.
  static LogicalResult verifyShapes(OpTy op, const RecurrentInputs &in) {
    auto shapeOf = [](Value v) -> ArrayRef<int64_t> {
      if (auto type = llvm::dyn_cast<RankedTensorType>(v.getType()))
        return type.getShape();
      return {};
    };
    ArrayRef<int64_t> x = shapeOf(in.x), w = shapeOf(in.w), r = shapeOf(in.r);
    if (x.size() != 3 || w.size() != 3 || r.size() != 3)
      return op.emitError("expects 3-D X, W and R");
    if (in.direction != "forward" && in.direction != "reverse" &&
        in.direction != "bidirectional")
      return op.emitError() << "unknown direction '" << in.direction << "'";
    int64_t directions = in.direction == "bidirectional" ? 2 : 1;
    int64_t gates = gateCount(in.kind);
    int64_t hidden = r[2];
    int64_t batch = in.batchFirst ? x[0] : x[1];
    auto times = [](int64_t n, int64_t size) {
      return ShapedType::isDynamic(size) ? size : n * size;
    };
    if (std::optional<int64_t> attr = op.getHiddenSize())
      if (mismatch(*attr, hidden))
        return op.emitError()
               << "hidden_size " << *attr << " but R is " << in.r.getType();
    if (mismatch(w[0], directions) || mismatch(r[0], directions) ||
        mismatch(w[1], times(gates, hidden)) ||
        mismatch(r[1], times(gates, hidden)) || mismatch(w[2], x[2]))
      return op.emitError()
             << "W " << in.w.getType() << " and R " << in.r.getType()
             << " do not fit X " << in.x.getType() << " with " << directions
             << " direction(s) and " << gates << " gate(s)";
    auto expect = [&](Value v, ArrayRef<int64_t> shape,
                      StringRef name) -> LogicalResult {
      if (isNoneValue(v))
        return success();
      ArrayRef<int64_t> actual = shapeOf(v);
      bool bad = actual.size() != shape.size();
      for (size_t i = 0; !bad && i < shape.size(); ++i)
        bad = mismatch(actual[i], shape[i]);
      if (bad)
        return op.emitError() << name << " has type " << v.getType()
                              << ", which does not fit the other inputs";
      return success();
    };
    SmallVector<int64_t> state{directions, batch, hidden};
    if (in.batchFirst)
      std::swap(state[0], state[1]);
    if (failed(expect(in.bias, {directions, times(2 * gates, hidden)}, "B")) ||
        failed(expect(in.sequenceLens, {batch}, "sequence_lens")) ||
        failed(expect(in.initialH, state, "initial_h")) ||
        failed(expect(in.initialC, state, "initial_c")) ||
        failed(expect(in.peepholes, {directions, times(3, hidden)}, "P")))
      return failure();
    Type element = getElementTypeOrSelf(in.x.getType());
    for (Value v :
         {in.w, in.r, in.bias, in.initialH, in.initialC, in.peepholes})
      if (!isNoneValue(v) && getElementTypeOrSelf(v.getType()) != element)
        return op.emitError()
               << "expects every float input to have X's "
               << "element type " << element << ", got " << v.getType();
    if (!isNoneValue(in.sequenceLens) &&
        !getElementTypeOrSelf(in.sequenceLens.getType()).isInteger(32))
      return op.emitError("sequence_lens must be int32");
    return success();
  }
};

} // namespace

void populateRecurrentPatterns(const TypeConverter &typeConverter,
                               RewritePatternSet &patterns) {
  patterns.add<RecurrentLowering<onnx::RNNOp, CellKind::Rnn>,
               RecurrentLowering<onnx::GRUOp, CellKind::Gru>,
               RecurrentLowering<onnx::LSTMOp, CellKind::Lstm>>(
      typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
