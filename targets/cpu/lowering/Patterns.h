//===- Patterns.h - onnx -> linalg pattern families -------------*- C++ -*-===//
//
// Each lowering/*.cpp file owns one family of ONNX operators and exposes one
// populate function; AllPatterns.cpp collects them all. Patterns are
// OpConversionPatterns built with `typeConverter` (unsigned -> signless
// integers), so they read converted operands from their adaptor.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TARGETS_CPU_LOWERING_PATTERNS_H
#define ONNXC_TARGETS_CPU_LOWERING_PATTERNS_H

namespace mlir {
class RewritePatternSet;
class TypeConverter;
} // namespace mlir

namespace onnxc::cpu {

// Add, Sub, Mul, Div, Pow, Sqrt, Exp, Erf, Tanh, Relu, Sigmoid, Clip, Where,
// Equal, Cast, ... (Elementwise.cpp)
void populateElementwisePatterns(const mlir::TypeConverter &typeConverter,
                          mlir::RewritePatternSet &patterns);
// ReduceMean, ReduceSum, ... ArgMax, Hardmax, GlobalAveragePool
// (Reduction.cpp)
void populateReductionPatterns(const mlir::TypeConverter &typeConverter,
                          mlir::RewritePatternSet &patterns);
// CumSum, CumProd (Cumulative.cpp)
void populateCumulativePatterns(const mlir::TypeConverter &typeConverter,
                          mlir::RewritePatternSet &patterns);
// TopK (TopK.cpp)
void populateTopKPatterns(const mlir::TypeConverter &typeConverter,
                          mlir::RewritePatternSet &patterns);
// Softmax (Softmax.cpp)
void populateSoftmaxPatterns(const mlir::TypeConverter &typeConverter,
                          mlir::RewritePatternSet &patterns);
// BatchNormalization, LayerNormalization (Normalization.cpp)
void populateNormalizationPatterns(const mlir::TypeConverter &typeConverter,
                          mlir::RewritePatternSet &patterns);
// Attention (Attention.cpp)
void populateAttentionPatterns(const mlir::TypeConverter &typeConverter,
                               mlir::RewritePatternSet &patterns);
// RMSNormalization, GroupNormalization, LRN, MeanVarianceNormalization
// (NormalizationExtra.cpp)
void populateNormalizationExtraPatterns(
    const mlir::TypeConverter &typeConverter,
    mlir::RewritePatternSet &patterns);
// Swish, SwiGLU, RotaryEmbedding (Activation.cpp)
void populateActivationPatterns(const mlir::TypeConverter &typeConverter,
                                mlir::RewritePatternSet &patterns);
// MatMul, Gemm (MatMul.cpp)
void populateMatMulPatterns(const mlir::TypeConverter &typeConverter,
                          mlir::RewritePatternSet &patterns);
// Conv (Conv.cpp)
void populateConvPatterns(const mlir::TypeConverter &typeConverter,
                          mlir::RewritePatternSet &patterns);
// MaxPool, AveragePool (Pooling.cpp)
void populatePoolingPatterns(const mlir::TypeConverter &typeConverter,
                          mlir::RewritePatternSet &patterns);
// QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, QLinearMatMul,
// ConvInteger, QLinearConv, BitCast (Quantization.cpp)
void populateQuantizationPatterns(const mlir::TypeConverter &typeConverter,
                                  mlir::RewritePatternSet &patterns);
// Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Concat, Split, Gather,
// Slice, Expand, Shape, Constant, Identity (DataMovement*.cpp)
void populateDataMovementPatterns(const mlir::TypeConverter &typeConverter,
                          mlir::RewritePatternSet &patterns);
// BitwiseAnd/Or/Xor/Not, Acosh, Asinh, Atanh, Shrink (ElementwiseExtra.cpp)
void populateElementwiseExtraPatterns(const mlir::TypeConverter &typeConverter,
                                      mlir::RewritePatternSet &patterns);
// EyeLike, MelWeightMatrix, Hann/Hamming/BlackmanWindow (Generators.cpp)
void populateGeneratorPatterns(const mlir::TypeConverter &typeConverter,
                               mlir::RewritePatternSet &patterns);
// NonZero, Compress, ReverseSequence, MaxUnpool (Selection.cpp)
void populateSelectionPatterns(const mlir::TypeConverter &typeConverter,
                               mlir::RewritePatternSet &patterns);
// NonMaxSuppression, RoiAlign (Detection.cpp)
void populateDetectionPatterns(const mlir::TypeConverter &typeConverter,
                               mlir::RewritePatternSet &patterns);
// Unique (Unique.cpp)
void populateUniquePatterns(const mlir::TypeConverter &typeConverter,
                            mlir::RewritePatternSet &patterns);
// TfIdfVectorizer (TfIdfVectorizer.cpp)
void populateTfIdfVectorizerPatterns(const mlir::TypeConverter &typeConverter,
                                     mlir::RewritePatternSet &patterns);
// RNN, GRU, LSTM (Recurrent.cpp)
void populateRecurrentPatterns(const mlir::TypeConverter &typeConverter,
                               mlir::RewritePatternSet &patterns);
// Det (LinearAlgebra.cpp)
void populateLinearAlgebraPatterns(const mlir::TypeConverter &typeConverter,
                                   mlir::RewritePatternSet &patterns);

// NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss (Loss.cpp)
void populateLossPatterns(const mlir::TypeConverter &typeConverter,
                          mlir::RewritePatternSet &patterns);
// Resize (Resize.cpp)
void populateResizePatterns(const mlir::TypeConverter &typeConverter,
                            mlir::RewritePatternSet &patterns);
// GridSample, AffineGrid (GridSample.cpp)
void populateGridSamplePatterns(const mlir::TypeConverter &typeConverter,
                                mlir::RewritePatternSet &patterns);
// Einsum (Einsum.cpp)
void populateEinsumPatterns(const mlir::TypeConverter &typeConverter,
                            mlir::RewritePatternSet &patterns);
// CenterCropPad (CenterCropPad.cpp)
void populateCenterCropPadPatterns(const mlir::TypeConverter &typeConverter,
                                   mlir::RewritePatternSet &patterns);
// Col2Im (Col2Im.cpp)
void populateCol2ImPatterns(const mlir::TypeConverter &typeConverter,
                            mlir::RewritePatternSet &patterns);
// If, Loop, Scan (ControlFlow.cpp)
void populateControlFlowPatterns(const mlir::TypeConverter &typeConverter,
                                 mlir::RewritePatternSet &patterns);
// CausalConvWithState (CausalConv.cpp)
void populateCausalConvPatterns(const mlir::TypeConverter &typeConverter,
                                mlir::RewritePatternSet &patterns);
// DeformConv (DeformConv.cpp)
void populateDeformConvPatterns(const mlir::TypeConverter &typeConverter,
                                mlir::RewritePatternSet &patterns);
// LinearAttention (LinearAttention.cpp)
void populateLinearAttentionPatterns(const mlir::TypeConverter &typeConverter,
                                     mlir::RewritePatternSet &patterns);
// DFT, STFT (Signal.cpp)
void populateSignalPatterns(const mlir::TypeConverter &typeConverter,
                            mlir::RewritePatternSet &patterns);
// ai.onnx.ml Binarizer, ArrayFeatureExtractor, Scaler, linear models
// (ClassicMl.cpp)
void populateClassicMlPatterns(const mlir::TypeConverter &typeConverter,
                               mlir::RewritePatternSet &patterns);
// ai.onnx.ml Imputer, OneHotEncoder (MlEncoders.cpp)
void populateMlEncoderPatterns(const mlir::TypeConverter &typeConverter,
                               mlir::RewritePatternSet &patterns);
// ai.onnx.ml SVMRegressor, SVMClassifier (Svm.cpp)
void populateSvmPatterns(const mlir::TypeConverter &typeConverter,
                         mlir::RewritePatternSet &patterns);
// ai.onnx.ml TreeEnsemble (TreeEnsemble.cpp)
void populateTreeEnsemblePatterns(const mlir::TypeConverter &typeConverter,
                                  mlir::RewritePatternSet &patterns);
// ai.onnx.ml TreeEnsembleRegressor, TreeEnsembleClassifier
// (TreeEnsembleLegacy.cpp)
void populateLegacyTreeEnsemblePatterns(
    const mlir::TypeConverter &typeConverter,
    mlir::RewritePatternSet &patterns);
// onnxc.FusedConv, FusedMatMul, FusedGemm (Fused.cpp)
void populateFusedPatterns(const mlir::TypeConverter &typeConverter,
                           mlir::RewritePatternSet &patterns);
// f32 MatMul, Gemm, FusedMatMul, FusedGemm as runtime GEMM calls; they
// outrank the linalg patterns of the same ops (GemmCall.cpp)
void populateGemmCallPatterns(const mlir::TypeConverter &typeConverter,
                              mlir::RewritePatternSet &patterns);
// MatMulInteger with a 2-D B as an int8 GEMM call; it outranks the linalg
// pattern (MatMulIntegerCall.cpp)
void populateMatMulIntegerCallPatterns(const mlir::TypeConverter &typeConverter,
                                       mlir::RewritePatternSet &patterns);
// 2-D QLinearConv with a constant W as an int8 GEMM call; it outranks the
// linalg pattern (QLinearConvCall.cpp)
void populateQLinearConvCallPatterns(const mlir::TypeConverter &typeConverter,
                                     mlir::RewritePatternSet &patterns);
// f32 DynamicQuantizeLinear as a runtime kernel call; it outranks the
// linalg pattern (DynamicQuantizeCall.cpp)
void populateDynamicQuantizeCallPatterns(
    const mlir::TypeConverter &typeConverter,
    mlir::RewritePatternSet &patterns);
// f32 last-axis Softmax, BiasSoftmax as runtime kernel calls; they outrank
// the linalg patterns of the same ops (SoftmaxCall.cpp)
void populateSoftmaxCallPatterns(const mlir::TypeConverter &typeConverter,
                                 mlir::RewritePatternSet &patterns);
// f32 last-axis LayerNormalization, SkipLayerNorm as runtime kernel calls
// (LayerNormCall.cpp)
void populateLayerNormCallPatterns(const mlir::TypeConverter &typeConverter,
                                   mlir::RewritePatternSet &patterns);
// f32 4-D Attention as a runtime kernel call (AttentionCall.cpp)
void populateAttentionCallPatterns(const mlir::TypeConverter &typeConverter,
                                   mlir::RewritePatternSet &patterns);
// f32 2-D NCHW Conv, FusedConv as runtime conv kernel calls; they outrank
// the linalg patterns of the same ops (ConvCall.cpp)
void populateConvCallPatterns(const mlir::TypeConverter &typeConverter,
                              mlir::RewritePatternSet &patterns);
// onnxc.ReorderToBlocked, ReorderFromBlocked, BlockedConv (BlockedLayout.cpp)
void populateBlockedLayoutPatterns(const mlir::TypeConverter &typeConverter,
                                   mlir::RewritePatternSet &patterns);

// f32 onnxc.BlockedConv as a call of the runtime's NCHWc convolution; it
// outranks the linalg pattern (BlockedConvCall.cpp)
void populateBlockedConvCallPatterns(const mlir::TypeConverter &typeConverter,
                                     mlir::RewritePatternSet &patterns);

/// Every family above, in one place: the conversion pass and the capability
/// table (CpuTarget.cpp) both take exactly this set. A new family file adds
/// its populate call here (AllPatterns.cpp) and nowhere else.
void populateAllLoweringPatterns(const mlir::TypeConverter &typeConverter,
                                 mlir::RewritePatternSet &patterns);

} // namespace onnxc::cpu

#endif // ONNXC_TARGETS_CPU_LOWERING_PATTERNS_H
