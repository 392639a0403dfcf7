//===- DeviceBuffers.cpp - A partition's buffers in device memory ---------===//
//
// After bufferization a partition function takes and returns host buffers
// (identity layouts) and allocates its intermediates with memref.alloc.
// This pass puts every value the kernels touch in device memory:
//
//   - each argument is copied into a gpu.alloc'd buffer at entry (the
//     partitioner's host->device transfer), and read from there, but for
//     the shapes and axes that only the host reads;
//   - each memref.alloc becomes a gpu.alloc of the same shape, but for the
//     dims of a dynamic reshape, which the host writes and reads;
//   - each returned value is copied into a fresh host buffer (the
//     device->host transfer), which the host graph owns and frees;
//   - the call is bracketed by onnxc_cuda_begin(options)/end (runtime/cuda:
//     the options say whether products may use TF32), and
//     the runtime frees at the end every device buffer allocated in
//     between: none is live after the call, and buffers allocated inside
//     regions (the broadcasting of dynamic dims) need no dealloc of their
//     own;
//   - memref.copy becomes linalg.copy, so it runs as a kernel, and a
//     linalg op with no parallel dim goes into a one-iteration
//     scf.parallel, so it runs as a kernel of one thread;
//   - each memref.get_global is marked: it lowers to the weights' device
//     copy, which the runtime uploads once (DeviceConstantsToLLVM.cpp).
//
//===----------------------------------------------------------------------===//

#include "targets/cuda/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace onnxc::cuda {
namespace {

SmallVector<Value> dynamicSizes(OpBuilder &b, Location loc, Value memref) {
  auto type = llvm::cast<MemRefType>(memref.getType());
  SmallVector<Value> sizes;
  for (int64_t dim = 0; dim < type.getRank(); ++dim)
    if (type.isDynamicDim(dim))
      sizes.push_back(b.create<memref::DimOp>(loc, memref, dim));
  return sizes;
}

Value deviceAlloc(OpBuilder &b, Location loc, MemRefType type,
                  ValueRange sizes) {
  return b
      .create<gpu::AllocOp>(loc, type, /*asyncToken=*/Type(),
                            /*asyncDependencies=*/ValueRange(), sizes,
                            /*symbolOperands=*/ValueRange(),
                            /*hostShared=*/false)
      .getMemref();
}

void copy(OpBuilder &b, Location loc, Value to, Value from) {
  b.create<gpu::MemcpyOp>(loc, /*asyncToken=*/TypeRange(),
                          /*asyncDependencies=*/ValueRange(), to, from);
}

/// A buffer the host fills with the dims of a dynamic reshape: it stays in
/// host memory, where memref.reshape reads it.
bool isShapeBuffer(memref::AllocOp alloc) {
  bool shape = false;
  for (Operation *user : alloc->getUsers()) {
    if (auto reshape = llvm::dyn_cast<memref::ReshapeOp>(user)) {
      if (reshape.getShape() != alloc.getResult())
        return false;
      shape = true;
    } else if (!llvm::isa<memref::StoreOp, memref::LoadOp>(user)) {
      return false;
    }
  }
  return shape;
}

/// An argument only the host reads: the shape of a dynamic reshape, or
/// axes read with scalar loads outside any loop nest. It is not copied.
bool isHostArgument(BlockArgument arg) {
  for (Operation *user : arg.getUsers()) {
    if (llvm::isa<memref::DimOp>(user))
      continue;
    if (auto reshape = llvm::dyn_cast<memref::ReshapeOp>(user);
        reshape && reshape.getShape() == arg)
      continue;
    if (llvm::isa<memref::LoadOp>(user) &&
        !user->getParentOfType<linalg::LinalgOp>() &&
        !user->getParentOfType<scf::ParallelOp>() &&
        !user->getParentOfType<scf::ForOp>())
      continue;
    return false;
  }
  return true;
}

func::FuncOp declare(ModuleOp module, StringRef name, TypeRange inputs) {
  if (auto func = module.lookupSymbol<func::FuncOp>(name))
    return func;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  auto func = b.create<func::FuncOp>(
      module.getLoc(), name,
      FunctionType::get(module.getContext(), inputs, {}));
  func.setPrivate();
  return func;
}

LogicalResult placeOnDevice(func::FuncOp func, int32_t callOptions) {
  if (!func.getBody().hasOneBlock())
    return func.emitError("a cuda partition must be one block");
  auto module = func->getParentOfType<ModuleOp>();
  Block &body = func.front();
  OpBuilder b = OpBuilder::atBlockBegin(&body);
  Location loc = func.getLoc();
  Value options = b.create<arith::ConstantIntOp>(loc, callOptions, 32);
  b.create<func::CallOp>(loc, declare(module, kBeginCallee, options.getType()),
                         options);

  for (BlockArgument arg : body.getArguments()) {
    auto type = llvm::dyn_cast<MemRefType>(arg.getType());
    if (!type || isHostArgument(arg))
      continue;
    SmallVector<Value> sizes = dynamicSizes(b, loc, arg);
    Value device = deviceAlloc(b, loc, type, sizes);
    copy(b, loc, device, arg);
    Operation *copyOp = device.getDefiningOp()->getNextNode();
    arg.replaceUsesWithIf(device, [&](OpOperand &use) {
      return use.getOwner() != copyOp &&
             !llvm::isa<memref::DimOp>(use.getOwner());
    });
  }

  // Every buffer, also those the broadcasting of dynamic dims allocates
  // inside scf.if, in device memory.
  SmallVector<Operation *> erase;
  func.walk([&](Operation *op) {
    if (auto alloc = llvm::dyn_cast<memref::AllocOp>(op)) {
      if (isShapeBuffer(alloc))
        return;
      OpBuilder ab(alloc);
      alloc.replaceAllUsesWith(deviceAlloc(ab, alloc.getLoc(), alloc.getType(),
                                           alloc.getDynamicSizes()));
      erase.push_back(alloc);
    } else if (llvm::isa<memref::DeallocOp>(op)) {
      erase.push_back(op);
    } else if (auto memcopy = llvm::dyn_cast<memref::CopyOp>(op)) {
      OpBuilder cb(memcopy);
      cb.create<linalg::CopyOp>(memcopy.getLoc(), memcopy.getSource(),
                                memcopy.getTarget());
      erase.push_back(memcopy);
    } else if (auto global = llvm::dyn_cast<memref::GetGlobalOp>(op)) {
      global->setAttr(kDeviceConstantAttr, UnitAttr::get(op->getContext()));
    }
  });
  for (Operation *op : erase)
    op->erase();

  // A linalg op with no parallel dim (a reduction to one value, a 0-d op)
  // lowers to no parallel loop: in a one-iteration scf.parallel it becomes
  // a kernel of one thread, like the other loop nests.
  SmallVector<linalg::LinalgOp> serial;
  func.walk([&](linalg::LinalgOp op) {
    if (op.getNumParallelLoops() == 0 &&
        !op->getParentOfType<scf::ParallelOp>())
      serial.push_back(op);
  });
  for (linalg::LinalgOp op : serial) {
    OpBuilder pb(op);
    Value zero = pb.create<arith::ConstantIndexOp>(op.getLoc(), 0);
    Value one = pb.create<arith::ConstantIndexOp>(op.getLoc(), 1);
    auto parallel = pb.create<scf::ParallelOp>(
        op.getLoc(), ValueRange{zero}, ValueRange{one}, ValueRange{one});
    op->moveBefore(parallel.getBody()->getTerminator());
  }

  Operation *ret = body.getTerminator();
  b.setInsertionPoint(ret);
  for (OpOperand &operand : ret->getOpOperands()) {
    auto type = llvm::dyn_cast<MemRefType>(operand.get().getType());
    if (!type)
      continue;
    Value host = b.create<memref::AllocOp>(
        ret->getLoc(), type, dynamicSizes(b, ret->getLoc(), operand.get()),
        b.getI64IntegerAttr(64));
    copy(b, ret->getLoc(), host, operand.get());
    operand.set(host);
  }
  // The runtime frees every device buffer this call allocated.
  b.create<func::CallOp>(ret->getLoc(), declare(module, kEndCallee, {}),
                         ValueRange());
  return success();
}

struct DeviceBuffersPass
    : PassWrapper<DeviceBuffersPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DeviceBuffersPass)

  DeviceBuffersPass() = default;
  DeviceBuffersPass(const DeviceBuffersPass &other) : PassWrapper(other) {}
  explicit DeviceBuffersPass(int32_t options) { callOptions = options; }

  Option<int32_t> callOptions{
      *this, "call-options",
      llvm::cl::desc("onnxc_cuda_begin's options (1: allow TF32 products)"),
      llvm::cl::init(0)};

  StringRef getArgument() const final { return "onnxc-cuda-device-buffers"; }
  StringRef getDescription() const final {
    return "Put a cuda partition's buffers in device memory, copying its "
           "arguments in and its results out";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, gpu::GPUDialect, linalg::LinalgDialect,
                    memref::MemRefDialect, scf::SCFDialect>();
  }

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() && failed(placeOnDevice(func, callOptions)))
        return signalPassFailure();
  }
};

} // namespace

std::unique_ptr<Pass> createDeviceBuffersPass() {
  return std::make_unique<DeviceBuffersPass>();
}

std::unique_ptr<Pass> createDeviceBuffersPass(int32_t callOptions) {
  return std::make_unique<DeviceBuffersPass>(callOptions);
}

} // namespace onnxc::cuda
