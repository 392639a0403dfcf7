/*===- ConvNchwcReference.c - The NCHWc convolution as plain loops --------===*
 *
 * Every output element on its own, accumulated in double over the true
 * input channels and the in-bounds taps; the kernels are tested against it.
 *
 *===----------------------------------------------------------------------===*/

#include "ConvNchwc.h"

void onnxc_conv_nchwc_reference(const onnxc_conv_nchwc_shape *s, const float *x,
                                const float *w, const float *bias,
                                const float *z, float *y,
                                const onnxc_sgemm_epilogue *epilogue) {
  const int64_t B = ONNXC_NCHWC_BLOCK;
  int64_t in_blocks = (s->in_channels + B - 1) / B;
  int64_t out_blocks = (s->out_channels + B - 1) / B;
  int64_t taps = s->kernel_h * s->kernel_w;
  for (int64_t n = 0; n < s->batch; ++n)
    for (int64_t m = 0; m < s->out_channels; ++m)
      for (int64_t oh = 0; oh < s->out_h; ++oh)
        for (int64_t ow = 0; ow < s->out_w; ++ow) {
          double sum = bias ? bias[m] : 0.0;
          int64_t c_begin = s->depthwise ? m : 0;
          int64_t c_end = s->depthwise ? m + 1 : s->in_channels;
          for (int64_t c = c_begin; c < c_end; ++c)
            for (int64_t kh = 0; kh < s->kernel_h; ++kh)
              for (int64_t kw = 0; kw < s->kernel_w; ++kw) {
                int64_t ih = oh * s->stride_h - s->pad_top + kh * s->dilation_h;
                int64_t iw =
                    ow * s->stride_w - s->pad_left + kw * s->dilation_w;
                if (ih < 0 || ih >= s->in_h || iw < 0 || iw >= s->in_w)
                  continue;
                float xv = s->nchw_input
                               ? x[((n * s->in_channels + c) * s->in_h + ih) *
                                       s->in_w +
                                   iw]
                               : x[(((n * in_blocks + c / B) * s->in_h + ih) *
                                        s->in_w +
                                    iw) *
                                       B +
                                   c % B];
                float wv =
                    s->depthwise
                        ? w[((m / B) * taps + kh * s->kernel_w + kw) * B +
                            m % B]
                        : w[((((m / B) * in_blocks + c / B) * taps +
                              kh * s->kernel_w + kw) *
                                 B +
                             c % B) *
                                B +
                            m % B];
                sum += (double)xv * wv;
              }
          int64_t at =
              (((n * out_blocks + m / B) * s->out_h + oh) * s->out_w + ow) * B +
              m % B;
          float v = (float)sum;
          if (z)
            v += z[at];
          y[at] = onnxc_apply_activation(v, epilogue);
        }
}
