/*===- ConvWinogradWeights.h - Weights of the Winograd 3x3 convolutions ---===*
 *
 * onnxc_conv_nchwc_winograd (ConvNchwc.h) multiplies transformed weights:
 * for each 3x3 kernel g of an (input, output) channel pair, U = G g G^T,
 * with G (P x 3, P = tile + 2 positions a side) for output tiles of
 *
 *   2x2, F(2x2, 3x3): G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1]
 *   4x4, F(4x4, 3x3): G = [1/4 0 0; -1/6 -1/6 -1/6; -1/6 1/6 -1/6;
 *                          1/24 1/12 1/6; 1/24 -1/12 1/6; 0 0 1]
 *
 * the P x P values of U laid out as P x P matrices, one per position:
 *
 *   U [P * P positions][ceil(M/16)][ceil(C/16)][16 ci][16 co]
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

/* The positions of a tile of `tile` x `tile` outputs (2 or 4): 16 or 36. */
static inline int64_t onnxc_conv_winograd_positions(int tile) {
  return (int64_t)(tile + 2) * (tile + 2);
}

/* The floats of U for C input and M output channels. */
static inline size_t onnxc_conv_winograd_weight_floats(int tile,
                                                       int64_t in_channels,
                                                       int64_t out_channels) {
  int64_t in_blocks = (in_channels + 15) / 16;
  int64_t out_blocks = (out_channels + 15) / 16;
  return (size_t)(onnxc_conv_winograd_positions(tile) * out_blocks * in_blocks *
                  256);
}

/* G g for one column (or row) g of 3 values: the tile + 2 values of G's
 * rows, in double (the 1/6 and 1/24 of F(4x4) are not exact in float). */
static inline void onnxc_conv_winograd_g(int tile, const double g[3],
                                         double *out) {
  if (tile == 2) {
    out[0] = g[0];
    out[1] = 0.5 * (g[0] + g[1] + g[2]);
    out[2] = 0.5 * (g[0] - g[1] + g[2]);
    out[3] = g[2];
    return;
  }
  out[0] = g[0] / 4.0;
  out[1] = -(g[0] + g[1] + g[2]) / 6.0;
  out[2] = -(g[0] - g[1] + g[2]) / 6.0;
  out[3] = g[0] / 24.0 + g[1] / 12.0 + g[2] / 6.0;
  out[4] = g[0] / 24.0 - g[1] / 12.0 + g[2] / 6.0;
  out[5] = g[2];
}

/* U from W in BlockedConv's group-1 layout [ceil(M/16)][ceil(C/16)][3][3]
 * [16 ci][16 co], for tiles of 2x2 or 4x4 outputs. Padding channels stay
 * zero. */
static inline void onnxc_conv_winograd_weights(int tile, int64_t in_channels,
                                               int64_t out_channels,
                                               const float *w, float *u) {
  const int64_t lanes = 256, tap = 256;
  const int p = tile + 2;
  int64_t in_blocks = (in_channels + 15) / 16;
  int64_t out_blocks = (out_channels + 15) / 16;
  int64_t position = out_blocks * in_blocks * lanes;
  for (int64_t block = 0; block < out_blocks * in_blocks; ++block)
    for (int64_t lane = 0; lane < lanes; ++lane) {
      const float *g = w + block * 9 * tap + lane;
      double t[6][3]; /* G g */
      for (int kw = 0; kw < 3; ++kw) {
        double column[3] = {g[kw * tap], g[(3 + kw) * tap], g[(6 + kw) * tap]};
        double gc[6];
        onnxc_conv_winograd_g(tile, column, gc);
        for (int r = 0; r < p; ++r)
          t[r][kw] = gc[r];
      }
      float *out = u + block * lanes + lane;
      for (int r = 0; r < p; ++r) { /* (G g) G^T */
        double row[6];
        onnxc_conv_winograd_g(tile, t[r], row);
        for (int c = 0; c < p; ++c)
          out[(r * p + c) * position] = (float)row[c];
      }
    }
}

#endif /* ONNXC_RUNTIME_CPU_KERNELS_CONVWINOGRADWEIGHTS_H */
