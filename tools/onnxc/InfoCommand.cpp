// STUB
#include "tools/onnxc/Commands.h"
namespace onnxc::cli {
int runInfo(const InfoOptions &) { return 1; }
} // namespace onnxc::cli
