//===- Progress.cpp - What a long compile is doing, on a terminal ---------===//

#include "compiler/driver/Progress.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

namespace onnxc {
namespace {

struct ProgressState {
  bool enabled = false;
  bool shown = false;
  std::chrono::steady_clock::time_point start =
      std::chrono::steady_clock::now();
};

ProgressState &state() {
  static ProgressState progress;
  return progress;
}

void show(llvm::StringRef text) {
  ProgressState &s = state();
  if (!s.enabled)
    return;
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - s.start)
          .count();
  // Back to the line's start, erase it, write the new status.
  llvm::errs() << "\r\x1b[K"
               << "onnxc: " << text << " (" << llvm::format("%.0f", seconds)
               << " s)";
  llvm::errs().flush();
  s.shown = true;
}

/// Counts the top-level passes of one pipeline as they start.
class ProgressInstrumentation : public mlir::PassInstrumentation {
public:
  ProgressInstrumentation(std::string phase, size_t total)
      : phase(std::move(phase)), total(total) {}

  void runBeforePass(mlir::Pass *pass, mlir::Operation *op) override {
    bool topLevel = llvm::isa<mlir::ModuleOp>(op) && !op->getParentOp();
    if (topLevel)
      ++done;
    // A nested pipeline (passes on each function) shows its passes as they
    // run, under the top-level count.
    llvm::StringRef name = pass->getArgument();
    if (name.empty()) {
      if (topLevel)
        return; // the adaptor itself: its passes follow
      name = pass->getName();
    }
    std::string text;
    llvm::raw_string_ostream os(text);
    os << phase << " [" << done << "/" << total << "] " << name;
    show(text);
  }

private:
  std::string phase;
  size_t total;
  size_t done = 0;
};

} // namespace

void enableProgress(bool enabled) {
  state().enabled = enabled && llvm::sys::Process::StandardErrIsDisplayed();
}

void progressPhase(llvm::StringRef phase) { show(phase); }

void attachProgress(mlir::PassManager &pm, llvm::StringRef phase) {
  if (!state().enabled)
    return;
  pm.addInstrumentation(
      std::make_unique<ProgressInstrumentation>(phase.str(), pm.size()));
}

void clearProgress() {
  ProgressState &s = state();
  if (!s.shown)
    return;
  llvm::errs() << "\r\x1b[K";
  llvm::errs().flush();
  s.shown = false;
}

} // namespace onnxc
