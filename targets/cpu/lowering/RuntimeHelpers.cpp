//===- RuntimeHelpers.cpp - Declare the runtime functions lowerings call --===//
//
// The signatures here must match the C definitions in runtime/cpu/ (see
// runtime/cpu/CpuRuntime.h). Memref arguments are dense row-major buffers
// passed through MLIR's C interface (`llvm.emit_c_interface`): the callee
// gets a pointer to each descriptor.
//
//===----------------------------------------------------------------------===//

#include "targets/cpu/lowering/RuntimeHelpers.h"
#include "targets/cpu/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/Pass.h"
#include "llvm/Support/FormatVariadic.h"

namespace onnxc::cpu {
#define GEN_PASS_DECL_DECLARERUNTIMEHELPERS
#define GEN_PASS_DEF_DECLARERUNTIMEHELPERS
#include "targets/cpu/Passes.h.inc"
} // namespace onnxc::cpu

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// The suffix of the Unique entry point for ONNX element type `type`.
std::optional<StringRef> uniqueSuffix(Type type) {
  if (type.isF16())
    return StringRef("f16");
  if (type.isBF16())
    return StringRef("bf16");
  if (type.isF32())
    return StringRef("f32");
  if (type.isF64())
    return StringRef("f64");
  auto integer = llvm::dyn_cast<IntegerType>(type);
  if (!integer)
    return std::nullopt;
  bool isUnsigned = integer.isUnsigned();
  switch (integer.getWidth()) {
  case 1:
    return StringRef("bool");
  case 8:
    return StringRef(isUnsigned ? "u8" : "i8");
  case 16:
    return StringRef(isUnsigned ? "u16" : "i16");
  case 32:
    return StringRef(isUnsigned ? "u32" : "i32");
  case 64:
    return StringRef(isUnsigned ? "u64" : "i64");
  default:
    return std::nullopt;
  }
}

/// Whether `type` is a ranked tensor with a dynamic dim.
bool hasDynamicDim(Type type) {
  auto tensor = llvm::dyn_cast<RankedTensorType>(type);
  return tensor && !tensor.hasStaticShape();
}

bool returnsKernelStatus(Operation *op);

/// A OneHotEncoder with zeros = 0 fails runs with unknown categories.
bool checksCategories(Operation *op) {
  if (op->getName().getStringRef() != "onnx.ml.OneHotEncoder")
    return false;
  auto zeros = op->getAttrOfType<IntegerAttr>("zeros");
  return zeros && zeros.getInt() == 0;
}

struct DeclareRuntimeHelpersPass
    : impl::DeclareRuntimeHelpersBase<DeclareRuntimeHelpersPass> {
  using DeclareRuntimeHelpersBase::DeclareRuntimeHelpersBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
    // Run-time shape checks (broadcasting) are only emitted for dynamic dims.
    bool needsShapeError = false;
    module.walk([&](Operation *op) {
      if (needsShapeError || op->getDialect() == nullptr ||
          !op->getName().getStringRef().starts_with("onnx"))
        return;
      needsShapeError = llvm::any_of(op->getOperandTypes(), hasDynamicDim) ||
                        llvm::any_of(op->getResultTypes(), hasDynamicDim) ||
                        returnsKernelStatus(op) || checksCategories(op);
    });
    if (needsShapeError && !symbols.lookup(kShapeErrorCallee)) {
      auto decl = builder.create<func::FuncOp>(
          module.getLoc(), kShapeErrorCallee,
          builder.getFunctionType({builder.getI32Type(), builder.getI64Type(),
                                   builder.getI64Type()},
                                  {}));
      decl.setPrivate();
      symbols.insert(decl);
    }
    if (gemmKernel)
      addPackedBSlots(builder, symbols, module);
    module.walk([&](Operation *op) {
      std::optional<RuntimeHelper> helper = runtimeHelperFor(op);
      if (!helper || symbols.lookup(helper->name))
        return;
      // The helpers called through a wrapper (`target`: the GEMM, the
      // NCHWc convolution, the softmax, layer norm and attention kernels)
      // are left out with gemm-kernel=false (`--emit static`), since some
      // allocate scratch; their lowerings then fall back to linalg.
      if (!gemmKernel && !helper->target.empty())
        return;
      if (helper->target.empty()) {
        declare(builder, symbols, module.getLoc(), helper->name, helper->type);
        return;
      }
      func::FuncOp target = symbols.lookup<func::FuncOp>(helper->target);
      if (!target)
        target = declare(builder, symbols, module.getLoc(), helper->target,
                         helper->targetType);
      defineWrapper(builder, symbols, module.getLoc(), *helper, target);
    });
  }

  /// Gives every f32 MatMul/Gemm whose B is a constant its own cache slot
  /// (kPackedBSlotAttr): the GEMM then packs that weight once, not per run.
  /// Only with the GEMM kernel, whose packed copy is allocated on first use.
  static void addPackedBSlots(OpBuilder &builder, SymbolTable &symbols,
                              ModuleOp module) {
    MemRefType slotType = packedBSlotType(module.getContext());
    auto zero = DenseElementsAttr::get(
        RankedTensorType::get(slotType.getShape(), slotType.getElementType()),
        builder.getI64IntegerAttr(0).getValue());
    module.walk([&](Operation *op) {
      if (!isF32GemmOp(op) && !isInt8WeightProductOp(op))
        return;
      unsigned bIndex = isF32GemmOp(op) ? 1 : int8WeightOperand(op);
      Operation *def = op->getOperand(bIndex).getDefiningOp();
      if (!def || !(def->hasTrait<OpTrait::ConstantLike>() ||
                    def->getName().getStringRef() == "onnx.Constant"))
        return;
      auto global = builder.create<memref::GlobalOp>(
          op->getLoc(), "onnxc_packed_b_slot", builder.getStringAttr("private"),
          slotType, zero, /*constant=*/false,
          /*alignment=*/builder.getI64IntegerAttr(8));
      symbols.insert(global); // renames it to a unique name
      op->setAttr(kPackedBSlotAttr,
                  FlatSymbolRefAttr::get(global.getSymNameAttr()));
    });
  }

  /// A private declaration called through `_mlir_ciface_<name>(descriptor
  /// pointers...)`.
  static func::FuncOp declare(OpBuilder &builder, SymbolTable &symbols,
                              Location loc, StringRef name, FunctionType type) {
    auto decl = builder.create<func::FuncOp>(loc, name, type);
    decl.setPrivate();
    decl->setAttr("llvm.emit_c_interface", builder.getUnitAttr());
    symbols.insert(decl);
    return decl;
  }

  /// `helper.name`: casts each memref argument to the target's (unranked)
  /// type and calls the target.
  static void defineWrapper(OpBuilder &builder, SymbolTable &symbols,
                            Location loc, const RuntimeHelper &helper,
                            func::FuncOp target) {
    OpBuilder::InsertionGuard guard(builder);
    auto wrapper = builder.create<func::FuncOp>(loc, helper.name, helper.type);
    wrapper.setPrivate();
    Block *body = wrapper.addEntryBlock();
    builder.setInsertionPointToStart(body);
    SmallVector<Value> args;
    for (auto [arg, type] :
         llvm::zip(body->getArguments(), helper.targetType.getInputs())) {
      if (arg.getType() == type)
        args.push_back(arg);
      else
        args.push_back(builder.create<memref::CastOp>(loc, type, arg));
    }
    auto call = builder.create<func::CallOp>(loc, target, args);
    builder.create<func::ReturnOp>(loc, call.getResults());
    symbols.insert(wrapper);
  }
};

/// The softmax, layer norm and attention kernels (runtime/cpu/
/// TransformerOps.c; lowerings SoftmaxCall.cpp, LayerNormCall.cpp,
/// AttentionCall.cpp): one C entry point each on unranked f32 memrefs,
/// called through a wrapper named by the ranks of its memref arguments. An
/// absent optional operand passes operand 0 again.
std::optional<RuntimeHelper> transformerKernelHelper(Operation *op) {
  StringRef name = op->getName().getStringRef();
  StringRef base;
  // The operands passed as memrefs before the result: i >= 0 is operand i,
  // -1 operand 0 again, -2 - i operand i when present, else operand 0.
  SmallVector<int> operands;
  bool hasEpsilonOrScale = true;
  if (name == "onnx.Softmax") {
    base = "onnxc_rt_softmax_f32";
    operands = {0, -1};
    hasEpsilonOrScale = false;
  } else if (name == "onnxc.BiasSoftmax") {
    base = "onnxc_rt_softmax_f32";
    operands = {0, 1};
    hasEpsilonOrScale = false;
  } else if (name == "onnx.LayerNormalization") {
    base = "onnxc_rt_layer_norm_f32";
    operands = {0, -1, -1, 1, -2 - 2};
  } else if (name == "onnxc.SkipLayerNorm") {
    base = "onnxc_rt_layer_norm_f32";
    operands = {0, 1, -2 - 4, 2, -2 - 3};
  } else if (name == "onnx.Attention") {
    base = "onnxc_rt_attention_f32";
    operands = {0, 1, 2, -2 - 3};
  } else {
    return std::nullopt;
  }
  auto f32Ranked = [](Value v) {
    auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
    return type && type.getElementType().isF32() ? type : RankedTensorType();
  };
  if (op->getNumResults() == 0 || !f32Ranked(op->getResult(0)))
    return std::nullopt;
  // The attention kernel reads every stride of its inputs, so they cross
  // with their own layout (a Split output needs no copy); the others, and
  // every result, have the identity layout.
  bool stridedInputs = name == "onnx.Attention";
  Builder b(op->getContext());
  SmallVector<Type> ranked, unranked;
  std::string wrapper = (base + "_r").str();
  auto add = [&](RankedTensorType type, bool strided) {
    if (!ranked.empty())
      wrapper += "_";
    wrapper += std::to_string(type.getRank());
    int64_t dynamic = ShapedType::kDynamic;
    MemRefLayoutAttrInterface layout;
    if (strided)
      layout =
          StridedLayoutAttr::get(b.getContext(), dynamic,
                                 SmallVector<int64_t>(type.getRank(), dynamic));
    ranked.push_back(MemRefType::get(
        SmallVector<int64_t>(type.getRank(), dynamic), b.getF32Type(), layout));
    unranked.push_back(UnrankedMemRefType::get(b.getF32Type(), 0));
  };
  for (int number : operands) {
    int index = number >= 0 ? number : number == -1 ? 0 : -2 - number;
    if (index >= (int)op->getNumOperands() ||
        llvm::isa<NoneType>(op->getOperand(index).getType()))
      index = 0;
    RankedTensorType type = f32Ranked(op->getOperand(index));
    if (!type)
      return std::nullopt;
    add(type, stridedInputs);
  }
  add(f32Ranked(op->getResult(0)), /*strided=*/false);
  for (SmallVector<Type> *types : {&ranked, &unranked}) {
    types->push_back(b.getI32Type());
    if (hasEpsilonOrScale)
      types->push_back(b.getF32Type());
  }
  return RuntimeHelper{wrapper, b.getFunctionType(ranked, {}), base.str(),
                       b.getFunctionType(unranked, {})};
}

/// lowering/MatMulIntegerCall.cpp, runtime/cpu/MatMulInteger.c: A of any
/// rank, a 2-D B, zero points (absent: A again) and the i32 result as
/// unranked memrefs through a wrapper per rank combination.
std::optional<RuntimeHelper> matMulIntegerHelper(Operation *op) {
  MLIRContext *ctx = op->getContext();
  Builder b(ctx);
  // A, B, a_zero_point, b_zero_point.
  SmallVector<unsigned> operands = {0, 1, 2, 3};
  auto ranked = [](Value v) {
    return llvm::dyn_cast<RankedTensorType>(v.getType());
  };
  if (op->getNumResults() != 1 || op->getNumOperands() <= operands[1])
    return std::nullopt;
  RankedTensorType resultType = ranked(op->getResult(0));
  RankedTensorType a = ranked(op->getOperand(operands[0]));
  RankedTensorType bm = ranked(op->getOperand(operands[1]));
  if (!resultType || !a || !bm || bm.getRank() != 2)
    return std::nullopt;
  Type i8 = b.getIntegerType(8), i32 = b.getI32Type();
  auto dynamic = [&](int64_t rank, Type element) {
    return MemRefType::get(SmallVector<int64_t>(rank, ShapedType::kDynamic),
                           element);
  };
  SmallVector<int64_t> zeroRanks;
  for (unsigned i : {operands[2], operands[3]}) {
    RankedTensorType zero = a;
    if (i < op->getNumOperands() &&
        !llvm::isa<NoneType>(op->getOperand(i).getType()))
      zero = ranked(op->getOperand(i));
    if (!zero)
      return std::nullopt;
    zeroRanks.push_back(zero.getRank());
  }
  bool packed = op->hasAttr(kPackedBSlotAttr);
  StringRef base =
      packed ? "onnxc_rt_matmul_integer_packed" : "onnxc_rt_matmul_integer";
  std::string wrapper =
      llvm::formatv("{0}_r{1}_{2}_{3}_{4}", base, a.getRank(), zeroRanks[0],
                    zeroRanks[1], resultType.getRank());
  auto anyI8 = UnrankedMemRefType::get(i8, 0);
  SmallVector<Type> wrapperInputs{
      dynamic(a.getRank(), i8), dynamic(2, i8), dynamic(zeroRanks[0], i8),
      dynamic(zeroRanks[1], i8), dynamic(resultType.getRank(), i32)};
  SmallVector<Type> targetInputs{anyI8, anyI8, anyI8, anyI8,
                                 UnrankedMemRefType::get(i32, 0)};
  for (SmallVector<Type> *types : {&wrapperInputs, &targetInputs}) {
    if (packed)
      types->push_back(packedBSlotType(ctx));
    types->push_back(i32);
  }
  return RuntimeHelper{wrapper, b.getFunctionType(wrapperInputs, {i32}),
                       base.str(), b.getFunctionType(targetInputs, {i32})};
}

/// lowering/MatMulIntegerCall.cpp, runtime/cpu/MatMulInteger.c: a
/// QLinearMatMul with a constant 2-D B: its eight operands and Y (8-bit)
/// as unranked memrefs, the slot and the flags.
std::optional<RuntimeHelper> qlinearMatMulHelper(Operation *op) {
  MLIRContext *ctx = op->getContext();
  Builder b(ctx);
  Type i32 = b.getI32Type();
  if (op->getNumOperands() != 8 || op->getNumResults() != 1)
    return std::nullopt;
  SmallVector<Type> wrapperInputs, targetInputs;
  std::string wrapper = "onnxc_rt_qlinear_matmul_r";
  for (unsigned i = 0; i < 9; ++i) {
    Value v = i < 8 ? op->getOperand(i) : op->getResult(0);
    auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
    if (!type)
      return std::nullopt;
    Type element = type.getElementType();
    if (auto integer = llvm::dyn_cast<IntegerType>(element))
      element = IntegerType::get(ctx, integer.getWidth());
    wrapper += (i ? "_" : "") + std::to_string(type.getRank());
    wrapperInputs.push_back(MemRefType::get(
        SmallVector<int64_t>(type.getRank(), ShapedType::kDynamic), element));
    targetInputs.push_back(UnrankedMemRefType::get(element, 0));
  }
  for (SmallVector<Type> *types : {&wrapperInputs, &targetInputs})
    types->append({packedBSlotType(ctx), i32});
  return RuntimeHelper{wrapper, b.getFunctionType(wrapperInputs, {i32}),
                       "onnxc_rt_qlinear_matmul",
                       b.getFunctionType(targetInputs, {i32})};
}

/// lowering/QLinearConvCall.cpp, runtime/cpu/QLinearConv.c: QLinearConv's
/// X, its scale and zero point, W, its scale and zero point, Y's scale and
/// zero point, the bias and Y; or ConvInteger's X, x_zero_point, W,
/// w_zero_point and Y. Absent operands pass X again, but an absent bias
/// passes one int32 zero. X, W and Y cross as
/// 4-D (a 1-D convolution gets a unit height; onnxc.BlockedQLinearConv's
/// [N, 1, H, W, C] goes as NHWC).
std::optional<RuntimeHelper> quantizedConvHelper(Operation *op) {
  MLIRContext *ctx = op->getContext();
  Builder b(ctx);
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  StringRef name = op->getName().getStringRef();
  bool blocked = name == "onnxc.BlockedQLinearConv";
  bool qlinear = name == "onnx.QLinearConv" || blocked;
  // Operand indices in call order (-1: the result); X, W and Y are 4-D.
  SmallVector<int> order = qlinear
                               ? SmallVector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, -1}
                               : SmallVector<int>{0, 2, 1, 3, -1};
  auto isImage = [&](int index) {
    return index == 0 || index == -1 || index == (qlinear ? 3 : 1);
  };
  auto ranked = [](Value v) {
    return llvm::dyn_cast<RankedTensorType>(v.getType());
  };
  RankedTensorType x = ranked(op->getOperand(0));
  if (op->getNumResults() != 1 || !ranked(op->getResult(0)) || !x ||
      (blocked ? x.getRank() != 5 : x.getRank() != 3 && x.getRank() != 4))
    return std::nullopt;
  SmallVector<Type> wrapperInputs, targetInputs;
  std::string wrapper =
      qlinear ? "onnxc_rt_qlinear_conv2d_r" : "onnxc_rt_conv_integer2d_r";
  for (auto [position, index] : llvm::enumerate(order)) {
    Value v = index < 0                           ? op->getResult(0)
              : index < (int)op->getNumOperands() ? op->getOperand(index)
                                                  : Value();
    bool absent = !v || llvm::isa<NoneType>(v.getType());
    if (absent)
      v = op->getOperand(0);
    RankedTensorType type = ranked(v);
    // An absent bias is one int32 zero, so that every call site of the
    // target function passes the same types.
    if (absent && qlinear && index == 8)
      type = RankedTensorType::get({1}, i32);
    if (!type)
      return std::nullopt;
    Type element = type.getElementType();
    if (auto integer = llvm::dyn_cast<IntegerType>(element))
      element = IntegerType::get(ctx, integer.getWidth());
    int64_t rank = isImage(index) ? 4 : type.getRank();
    if (v == op->getOperand(0) && !(absent && qlinear && index == 8))
      rank = 4;
    wrapper += (position ? "_" : "") + std::to_string(rank);
    wrapperInputs.push_back(MemRefType::get(
        SmallVector<int64_t>(rank, ShapedType::kDynamic), element));
    targetInputs.push_back(UnrankedMemRefType::get(element, 0));
  }
  for (SmallVector<Type> *types : {&wrapperInputs, &targetInputs}) {
    types->push_back(packedBSlotType(ctx));
    types->push_back(i32);
    types->append(SmallVector<Type>(7, i64));
  }
  return RuntimeHelper{wrapper, b.getFunctionType(wrapperInputs, {i32}),
                       qlinear ? "onnxc_rt_qlinear_conv2d"
                               : "onnxc_rt_conv_integer2d",
                       b.getFunctionType(targetInputs, {i32})};
}

/// The wrapper of the packed GEMM (runtime/cpu/MatMul.c) for operands of
/// these ranks: its one C entry point takes unranked memrefs, and a wrapper
/// per operand-rank combination casts to them. `packed`: B's cache slot
/// follows the result; `prepacked`: B is the compiler's 1-D packed copy,
/// followed by its layout's ISA and op(B)'s K and N.
RuntimeHelper gemmHelper(MLIRContext *ctx, int64_t aRank, int64_t bRank,
                         int64_t biasRank, int64_t resultRank, bool packed,
                         bool prepacked) {
  Builder b(ctx);
  Type i32 = b.getI32Type(), i64 = b.getI64Type(), f32 = b.getF32Type();
  auto dynamic = [&](int64_t rank) {
    return MemRefType::get(SmallVector<int64_t>(rank, ShapedType::kDynamic),
                           f32);
  };
  auto any = UnrankedMemRefType::get(f32, 0);
  StringRef base = prepacked ? "onnxc_rt_matmul_prepacked_f32"
                   : packed  ? "onnxc_rt_matmul_packed_f32"
                             : "onnxc_rt_matmul_f32";
  if (prepacked)
    bRank = 1;
  std::string wrapper = llvm::formatv("{0}_r{1}_{2}_{3}_{4}", base, aRank,
                                      bRank, biasRank, resultRank);
  SmallVector<Type> wrapperInputs{dynamic(aRank), dynamic(bRank),
                                  dynamic(biasRank), dynamic(resultRank)};
  SmallVector<Type> targetInputs(4, any);
  for (SmallVector<Type> *types : {&wrapperInputs, &targetInputs}) {
    if (packed)
      types->push_back(packedBSlotType(ctx));
    if (prepacked)
      types->append({i32, i64, i64});
    types->append({i32, f32, f32, i32, f32, f32});
  }
  return RuntimeHelper{wrapper, b.getFunctionType(wrapperInputs, {}),
                       base.str(), b.getFunctionType(targetInputs, {})};
}

/// Whether `op` lowers to a kernel call that returns a status the lowering
/// checks (emitKernelStatusCheck): it then needs the shape-error callee
/// even in a module without dynamic dims.
bool returnsKernelStatus(Operation *op) {
  std::optional<RuntimeHelper> helper = runtimeHelperFor(op);
  return helper && helper->type.getNumResults() == 1 &&
         helper->type.getResult(0).isInteger(32);
}

} // namespace

std::optional<RuntimeHelper> runtimeHelperFor(Operation *op) {
  MLIRContext *ctx = op->getContext();
  Builder b(ctx);
  Type i32 = b.getI32Type(), i64 = b.getI64Type(), f32 = b.getF32Type();
  StringRef name = op->getName().getStringRef();
  if (std::optional<RuntimeHelper> helper = transformerKernelHelper(op))
    return helper;
  if (name == "onnx.NonMaxSuppression") {
    auto dense3 = MemRefType::get(
        {ShapedType::kDynamic, ShapedType::kDynamic, ShapedType::kDynamic},
        f32);
    auto rows = MemRefType::get({ShapedType::kDynamic, 3}, i64);
    return RuntimeHelper{
        "onnxc_rt_nms",
        b.getFunctionType({dense3, dense3, i64, f32, f32, i32, i64, rows},
                          {i64})};
  }
  if (name == "onnx.Unique" && op->getNumOperands() == 1) {
    auto inputType =
        llvm::dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    if (!inputType)
      return std::nullopt;
    Type element = inputType.getElementType();
    std::optional<StringRef> suffix = uniqueSuffix(element);
    if (!suffix)
      return std::nullopt;
    Type signless = element;
    if (auto integer = llvm::dyn_cast<IntegerType>(element))
      signless = IntegerType::get(ctx, integer.getWidth());
    auto values = MemRefType::get({ShapedType::kDynamic}, signless);
    auto indices = MemRefType::get({ShapedType::kDynamic}, i64);
    return RuntimeHelper{("onnxc_rt_unique_" + *suffix).str(),
                         b.getFunctionType({values, i64, i64, i64, i32, values,
                                            indices, indices, indices},
                                           {i64})};
  }
  if (name == "onnx.MatMul" || name == "onnx.Gemm" ||
      name == "onnxc.FusedMatMul" || name == "onnxc.FusedGemm") {
    // f32 products go through the packed GEMM (lowering/GemmCall.cpp,
    // runtime/cpu/MatMul.c), whose one C entry point takes unranked memrefs;
    // a wrapper per operand-rank combination casts to them. The third
    // memref is operand 2 (bias or C) when present, else A again.
    auto ranked = [](Value v) {
      return llvm::dyn_cast<RankedTensorType>(v.getType());
    };
    RankedTensorType resultType = ranked(op->getResult(0));
    if (!resultType || !resultType.getElementType().isF32() ||
        op->getNumOperands() < 2)
      return std::nullopt;
    RankedTensorType a = ranked(op->getOperand(0));
    RankedTensorType bm = ranked(op->getOperand(1));
    RankedTensorType bias = a;
    if (op->getNumOperands() > 2 &&
        !llvm::isa<NoneType>(op->getOperand(2).getType()))
      bias = ranked(op->getOperand(2));
    if (!a || !bm || !bias)
      return std::nullopt;
    // A constant B (kPackedBSlotAttr) also passes its cache slot; one the
    // compiler packed (kPrepackedBAttr) is passed as that 1-D copy.
    bool packed = op->hasAttr(kPackedBSlotAttr);
    return gemmHelper(ctx, a.getRank(), bm.getRank(), bias.getRank(),
                      resultType.getRank(), packed,
                      packed && op->hasAttr(kPrepackedBAttr));
  }
  if (name == "onnx.RNN" || name == "onnx.GRU" || name == "onnx.LSTM") {
    // The per-step products of the recurrent lowering (Recurrent.cpp): the
    // hidden state [batch, hidden] times R's rows transposed, whose few
    // rows take the GEMM's small-M path (R read as it is, no packing).
    auto x = llvm::dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    if (!x || !x.getElementType().isF32())
      return std::nullopt;
    return gemmHelper(ctx, 2, 2, 2, 2, /*packed=*/false, /*prepacked=*/false);
  }
  if (name == "onnx.DynamicQuantizeLinear") {
    // lowering/DynamicQuantizeCall.cpp, runtime/cpu/DynamicQuantize.c.
    auto x = llvm::dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    if (!x || !x.getElementType().isF32())
      return std::nullopt;
    SmallVector<int64_t> dynamic(x.getRank(), ShapedType::kDynamic);
    auto params = MemRefType::get({2}, f32);
    Type i8 = b.getIntegerType(8);
    return RuntimeHelper{
        llvm::formatv("onnxc_rt_dynamic_quantize_f32_r{0}", x.getRank()),
        b.getFunctionType({MemRefType::get(dynamic, f32),
                           MemRefType::get(dynamic, i8), params},
                          {i32}),
        "onnxc_rt_dynamic_quantize_f32",
        b.getFunctionType({UnrankedMemRefType::get(f32, 0),
                           UnrankedMemRefType::get(i8, 0), params},
                          {i32})};
  }
  if (name == "onnx.QLinearConv" || name == "onnx.ConvInteger" ||
      name == "onnxc.BlockedQLinearConv")
    return quantizedConvHelper(op);

  if (name == "onnx.MatMulInteger")
    return matMulIntegerHelper(op);
  if (name == "onnx.QLinearMatMul")
    return qlinearMatMulHelper(op);
  if (name == "onnx.Conv" || name == "onnxc.FusedConv") {
    // f32 2-D NCHW convolutions go through the runtime's conv kernels
    // (lowering/ConvCall.cpp, runtime/cpu/Conv.c), which allocate scratch:
    // a wrapper, so that `--emit static` leaves them out. An absent bias
    // or Z is passed as X (rank 4): the wrapper's name says the bias rank.
    auto ranked4 = [](Value v) {
      auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
      return type && type.getRank() == 4 && type.getElementType().isF32();
    };
    if (op->getNumOperands() < 3 || !ranked4(op->getResult(0)) ||
        !ranked4(op->getOperand(0)) || !ranked4(op->getOperand(1)))
      return std::nullopt;
    bool hasBias = !llvm::isa<NoneType>(op->getOperand(2).getType());
    auto dynamic = [&](int64_t rank) {
      return MemRefType::get(SmallVector<int64_t>(rank, ShapedType::kDynamic),
                             f32);
    };
    auto any = UnrankedMemRefType::get(f32, 0);
    MemRefType x = dynamic(4), bias = dynamic(hasBias ? 1 : 4);
    return RuntimeHelper{
        hasBias ? "onnxc_rt_conv2d_f32_b1" : "onnxc_rt_conv2d_f32_b4",
        b.getFunctionType({x, x, bias, x, x, i32, i64, i64, i64, i64, i64, i64,
                           i64, i32, f32, f32},
                          {}),
        "onnxc_rt_conv2d_f32",
        b.getFunctionType({any, any, any, any, any, i32, i64, i64, i64, i64,
                           i64, i64, i64, i32, f32, f32},
                          {})};
  }
  if (name == "onnxc.ReorderToBlocked") {
    // lowering/BlockedConvCall.cpp, runtime/cpu/ConvNchwc.c: f32, block 16,
    // 1 to 3 spatial dims.
    auto x = llvm::dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    auto y = llvm::dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!x || !y || !x.getElementType().isF32() || x.getRank() < 3 ||
        x.getRank() > 5 || y.getRank() != x.getRank() + 1 ||
        y.getShape().back() != 16 || reorderReadOnlyAsPlainInput(op))
      return std::nullopt;
    auto dynamic = [&](int64_t rank) {
      return MemRefType::get(SmallVector<int64_t>(rank, ShapedType::kDynamic),
                             f32);
    };
    auto any = UnrankedMemRefType::get(f32, 0);
    return RuntimeHelper{
        llvm::formatv("onnxc_rt_reorder_to_nchwc_f32_r{0}", x.getRank()),
        b.getFunctionType({dynamic(x.getRank()), dynamic(y.getRank())}, {}),
        "onnxc_rt_reorder_to_nchwc_f32", b.getFunctionType({any, any}, {})};
  }
  if (name == "onnx.MaxPool") {
    // lowering/BlockedConvCall.cpp, runtime/cpu/ConvNchwc.c: the max pool
    // of a blocked f32 tensor (rank 5, block 16; NchwcLayout's form).
    auto x = llvm::dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    if (!x || !x.getElementType().isF32() || x.getRank() != 5 ||
        x.getShape().back() != 16)
      return std::nullopt;
    auto dynamic5 =
        MemRefType::get(SmallVector<int64_t>(5, ShapedType::kDynamic), f32);
    auto any = UnrankedMemRefType::get(f32, 0);
    SmallVector<Type> scalars(8, i64);
    SmallVector<Type> wrapperInputs{dynamic5, dynamic5}, targetInputs{any, any};
    wrapperInputs.append(scalars);
    targetInputs.append(scalars);
    return RuntimeHelper{
        "onnxc_rt_maxpool_nchwc_f32_r5", b.getFunctionType(wrapperInputs, {}),
        "onnxc_rt_maxpool_nchwc_f32", b.getFunctionType(targetInputs, {})};
  }
  if (name == "onnxc.BlockedConv") {
    // lowering/BlockedConvCall.cpp, runtime/cpu/ConvNchwc.c: X, W, bias, Z
    // and Y as unranked memrefs through a wrapper per rank combination; an
    // absent bias or Z is X again.
    auto ranked = [](Value v) {
      auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
      return type && type.getElementType().isF32() ? type : nullptr;
    };
    RankedTensorType x = ranked(op->getOperand(0));
    RankedTensorType w = ranked(op->getOperand(1));
    RankedTensorType y = ranked(op->getResult(0));
    // The kernel's forms (as BlockedConvCall.cpp matches them): 1-D or
    // 2-D, block 16.
    if (!x || !w || !y || op->getNumOperands() != 4 ||
        (x.getRank() != 4 && x.getRank() != 5) ||
        x.isDynamicDim(x.getRank() - 1) || x.getShape().back() != 16)
      return std::nullopt;
    // X may cross as the plain image the op reads through a reorder.
    mlir::Value plain = blockedConvPlainInput(op);
    if (plain)
      x = llvm::cast<RankedTensorType>(plain.getType());
    // Winograd weights (kWinogradWeightsAttr) cross as a 1-D memref.
    if (op->hasAttr(kWinogradWeightsAttr))
      w = RankedTensorType::get({ShapedType::kDynamic}, f32);
    RankedTensorType bias = x, z = x;
    if (!llvm::isa<NoneType>(op->getOperand(2).getType()))
      bias = ranked(op->getOperand(2));
    if (!llvm::isa<NoneType>(op->getOperand(3).getType()))
      z = ranked(op->getOperand(3));
    if (!bias || !z)
      return std::nullopt;
    auto dynamic = [&](RankedTensorType t) {
      return MemRefType::get(
          SmallVector<int64_t>(t.getRank(), ShapedType::kDynamic), f32);
    };
    auto any = UnrankedMemRefType::get(f32, 0);
    std::string wrapper = llvm::formatv(
        "onnxc_rt_conv_nchwc_f32_r{0}_{1}_{2}_{3}{4}", x.getRank(), w.getRank(),
        bias.getRank(), z.getRank(), plain ? "_nchw" : "");
    SmallVector<Type> scalars{i32, i64, i64, i64, i64, i64,
                              i64, i64, i64, i32, f32, f32};
    SmallVector<Type> wrapperInputs{dynamic(x), dynamic(w), dynamic(bias),
                                    dynamic(z), dynamic(y)};
    SmallVector<Type> targetInputs(5, any);
    wrapperInputs.append(scalars);
    targetInputs.append(scalars);
    return RuntimeHelper{wrapper, b.getFunctionType(wrapperInputs, {}),
                         "onnxc_rt_conv_nchwc_f32",
                         b.getFunctionType(targetInputs, {})};
  }
  return std::nullopt;
}

MemRefType packedBSlotType(MLIRContext *ctx) {
  return MemRefType::get({1}, IntegerType::get(ctx, 64));
}

void emitShapeErrorIf(OpBuilder &b, Location loc, Value failed,
                      ShapeErrorKind kind, Value a, Value bSize) {
  if (matchPattern(failed, m_Zero()))
    return;
  Operation *scope = b.getInsertionBlock()->getParentOp();
  auto callee = scope ? SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
                            scope, b.getStringAttr(kShapeErrorCallee))
                      : nullptr;
  if (!callee)
    return;
  auto ifOp = b.create<scf::IfOp>(loc, failed, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  Value kindValue =
      b.create<arith::ConstantIntOp>(loc, static_cast<int32_t>(kind), 32);
  auto toI64 = [&](Value size) -> Value {
    return b.create<arith::IndexCastOp>(loc, b.getI64Type(), size);
  };
  b.create<func::CallOp>(loc, callee,
                         ValueRange{kindValue, toI64(a), toI64(bSize)});
}

void emitKernelStatusCheck(OpBuilder &b, Location loc, Value status) {
  Value zero = b.create<arith::ConstantIntOp>(loc, 0, 32);
  Value failed =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, status, zero);
  Value code = b.create<arith::IndexCastOp>(loc, b.getIndexType(), status);
  emitShapeErrorIf(b, loc, failed, ShapeErrorKind::Kernel, code,
                   b.create<arith::ConstantIndexOp>(loc, 0));
}

bool isF32GemmOp(Operation *op) {
  StringRef name = op->getName().getStringRef();
  if ((name != "onnx.MatMul" && name != "onnx.Gemm" &&
       name != "onnxc.FusedMatMul" && name != "onnxc.FusedGemm") ||
      op->getNumOperands() < 2 || op->getNumResults() != 1)
    return false;
  auto result = llvm::dyn_cast<RankedTensorType>(op->getResult(0).getType());
  return result && result.getElementType().isF32();
}

bool isInt8WeightProductOp(Operation *op) {
  StringRef name = op->getName().getStringRef();
  bool conv = name == "onnx.QLinearConv" || name == "onnx.ConvInteger" ||
              name == "onnxc.BlockedQLinearConv";
  if ((name != "onnx.MatMulInteger" && name != "onnx.QLinearMatMul" && !conv) ||
      op->getNumResults() != 1)
    return false;
  unsigned bIndex = int8WeightOperand(op);
  if (op->getNumOperands() <= bIndex)
    return false;
  auto b = llvm::dyn_cast<RankedTensorType>(op->getOperand(bIndex).getType());
  return b && (conv ? b.getRank() == 3 || b.getRank() == 4 : b.getRank() == 2);
}

unsigned int8WeightOperand(Operation *op) {
  StringRef name = op->getName().getStringRef();
  return name == "onnx.MatMulInteger" || name == "onnx.ConvInteger" ? 1 : 3;
}

std::unique_ptr<Pass> createDeclareRuntimeHelpersPass(bool gemmKernel) {
  DeclareRuntimeHelpersOptions options;
  options.gemmKernel = gemmKernel;
  return std::make_unique<DeclareRuntimeHelpersPass>(options);
}

} // namespace onnxc::cpu
