// STUB: replaced by the lowering work.
#include "targets/cpu/lowering/Patterns.h"
namespace onnxc::cpu {
void populateSoftmaxPatterns(const mlir::TypeConverter &, mlir::RewritePatternSet &) {}
} // namespace onnxc::cpu
