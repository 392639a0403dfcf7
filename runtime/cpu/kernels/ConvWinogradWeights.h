/*===- ConvWinogradWeights.h - Weights of the Winograd F(2x2, 3x3) conv ---===*
 *
 * onnxc_conv_nchwc_winograd (ConvNchwc.h) multiplies transformed weights:
 * for each 3x3 kernel g of an (input, output) channel pair, U = G g G^T,
 *
 *   G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1],
 *
 * the 16 values of the 4x4 U laid out as 16 matrices, one per position:
 *
 *   U [16 positions][ceil(M/16)][ceil(C/16)][16 ci][16 co]
 *
 * so that each position's product reads its matrix in the blocked layout
 * of a 1x1 convolution. The compiler transforms constant weights with this
 * header (targets/cpu/transforms/WinogradConvWeights.cpp); the unit tests
 * use it to feed the kernel. Plain C, usable from C++.
 *
 *===----------------------------------------------------------------------===*/

#ifndef ONNXC_RUNTIME_CPU_KERNELS_CONVWINOGRADWEIGHTS_H
#define ONNXC_RUNTIME_CPU_KERNELS_CONVWINOGRADWEIGHTS_H

#include <stddef.h>
#include <stdint.h>

/* The floats of U for C input and M output channels. */
static inline size_t onnxc_conv_winograd_weight_floats(int64_t in_channels,
                                                       int64_t out_channels) {
  int64_t in_blocks = (in_channels + 15) / 16;
  int64_t out_blocks = (out_channels + 15) / 16;
  return (size_t)(16 * out_blocks * in_blocks * 256);
}

/* U from W in BlockedConv's group-1 layout [ceil(M/16)][ceil(C/16)][3][3]
 * [16 ci][16 co]. Padding channels stay zero. */
static inline void onnxc_conv_winograd_weights(int64_t in_channels,
                                               int64_t out_channels,
                                               const float *w, float *u) {
  const int64_t lanes = 256, tap = 256;
  int64_t in_blocks = (in_channels + 15) / 16;
  int64_t out_blocks = (out_channels + 15) / 16;
  int64_t position = out_blocks * in_blocks * lanes;
  for (int64_t block = 0; block < out_blocks * in_blocks; ++block)
    for (int64_t lane = 0; lane < lanes; ++lane) {
      const float *g = w + block * 9 * tap + lane;
      float t[4][3]; /* G g */
      for (int kw = 0; kw < 3; ++kw) {
        float g0 = g[kw * tap], g1 = g[(3 + kw) * tap], g2 = g[(6 + kw) * tap];
        t[0][kw] = g0;
        t[1][kw] = 0.5f * (g0 + g1 + g2);
        t[2][kw] = 0.5f * (g0 - g1 + g2);
        t[3][kw] = g2;
      }
      float *out = u + block * lanes + lane;
      for (int r = 0; r < 4; ++r) { /* (G g) G^T */
        out[(r * 4 + 0) * position] = t[r][0];
        out[(r * 4 + 1) * position] = 0.5f * (t[r][0] + t[r][1] + t[r][2]);
        out[(r * 4 + 2) * position] = 0.5f * (t[r][0] - t[r][1] + t[r][2]);
        out[(r * 4 + 3) * position] = t[r][2];
      }
    }
}

#endif /* ONNXC_RUNTIME_CPU_KERNELS_CONVWINOGRADWEIGHTS_H */
