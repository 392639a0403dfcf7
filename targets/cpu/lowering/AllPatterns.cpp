//===- AllPatterns.cpp - Every onnx -> linalg pattern family --------------===//

#include "targets/cpu/lowering/Patterns.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace onnxc::cpu {

void populateAllLoweringPatterns(const mlir::TypeConverter &typeConverter,
                                 mlir::RewritePatternSet &patterns) {
  populateElementwisePatterns(typeConverter, patterns);
  populateReductionPatterns(typeConverter, patterns);
  populateCumulativePatterns(typeConverter, patterns);
  populateTopKPatterns(typeConverter, patterns);
  populateSoftmaxPatterns(typeConverter, patterns);
  populateNormalizationPatterns(typeConverter, patterns);
  populateNormalizationExtraPatterns(typeConverter, patterns);
  populateActivationPatterns(typeConverter, patterns);
  populateAttentionPatterns(typeConverter, patterns);
  populateMatMulPatterns(typeConverter, patterns);
  populateConvPatterns(typeConverter, patterns);
  populatePoolingPatterns(typeConverter, patterns);
  populateDataMovementPatterns(typeConverter, patterns);
  populateLossPatterns(typeConverter, patterns);
  populateResizePatterns(typeConverter, patterns);
  populateGridSamplePatterns(typeConverter, patterns);
  populateEinsumPatterns(typeConverter, patterns);
  populateCenterCropPadPatterns(typeConverter, patterns);
  populateCol2ImPatterns(typeConverter, patterns);
  populateQuantizationPatterns(typeConverter, patterns);
  populateElementwiseExtraPatterns(typeConverter, patterns);
  populateGeneratorPatterns(typeConverter, patterns);
  populateSelectionPatterns(typeConverter, patterns);
  populateLinearAlgebraPatterns(typeConverter, patterns);
  populateDetectionPatterns(typeConverter, patterns);
  populateUniquePatterns(typeConverter, patterns);
  populateTfIdfVectorizerPatterns(typeConverter, patterns);
  populateRecurrentPatterns(typeConverter, patterns);
  populateControlFlowPatterns(typeConverter, patterns);
  populateCausalConvPatterns(typeConverter, patterns);
  populateDeformConvPatterns(typeConverter, patterns);
  populateLinearAttentionPatterns(typeConverter, patterns);
  populateSignalPatterns(typeConverter, patterns);
  populateClassicMlPatterns(typeConverter, patterns);
  populateMlEncoderPatterns(typeConverter, patterns);
  populateSvmPatterns(typeConverter, patterns);
  populateTreeEnsemblePatterns(typeConverter, patterns);
  populateLegacyTreeEnsemblePatterns(typeConverter, patterns);
  populateFusedPatterns(typeConverter, patterns);
  populateGemmCallPatterns(typeConverter, patterns);
  populateMatMulIntegerCallPatterns(typeConverter, patterns);
  populateDynamicQuantizeCallPatterns(typeConverter, patterns);
  populateQLinearConvCallPatterns(typeConverter, patterns);
  populateSoftmaxCallPatterns(typeConverter, patterns);
  populateLayerNormCallPatterns(typeConverter, patterns);
  populateAttentionCallPatterns(typeConverter, patterns);
  populateConvCallPatterns(typeConverter, patterns);
  populateBlockedLayoutPatterns(typeConverter, patterns);
  populateBlockedConvCallPatterns(typeConverter, patterns);
}

} // namespace onnxc::cpu
