// STUB
#include "tools/onnxc/Commands.h"
namespace onnxc::cli {
int runRun(const RunOptions &) { return 1; }
} // namespace onnxc::cli
