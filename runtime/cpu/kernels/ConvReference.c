/*===- ConvReference.c - The convolution as plain loops --------------------===*
 *
 * The definition the fast paths of Conv.c are tested against: one output
 * element at a time, double accumulation, padding taps skipped.
 *
 *===----------------------------------------------------------------------===*/

#include "Conv.h"

void onnxc_conv2d_reference(const onnxc_conv2d_shape *s, const float *x,
                            const float *w, const float *bias,
                            const float *residual, float *y,
                            const onnxc_sgemm_epilogue *activation) {
  onnxc_sgemm_epilogue none = {0};
  if (!activation)
    activation = &none;
  size_t cg = s->in_channels / s->group, mg = s->out_channels / s->group;
  size_t plane = s->out_height * s->out_width;
  for (size_t n = 0; n < s->batch; ++n)
    for (size_t m = 0; m < s->out_channels; ++m) {
      size_t g = m / mg;
      const float *wm = w + m * cg * s->kernel_height * s->kernel_width;
      for (size_t oh = 0; oh < s->out_height; ++oh)
        for (size_t ow = 0; ow < s->out_width; ++ow) {
          double acc = bias ? bias[m] : 0.0;
          for (size_t c = 0; c < cg; ++c) {
            const float *xc = x + ((n * s->in_channels) + g * cg + c) *
                                      s->in_height * s->in_width;
            for (size_t kh = 0; kh < s->kernel_height; ++kh) {
              ptrdiff_t ih =
                  (ptrdiff_t)(oh * s->stride_height + kh * s->dilation_height) -
                  (ptrdiff_t)s->pad_top;
              if (ih < 0 || ih >= (ptrdiff_t)s->in_height)
                continue;
              for (size_t kw = 0; kw < s->kernel_width; ++kw) {
                ptrdiff_t iw =
                    (ptrdiff_t)(ow * s->stride_width + kw * s->dilation_width) -
                    (ptrdiff_t)s->pad_left;
                if (iw < 0 || iw >= (ptrdiff_t)s->in_width)
                  continue;
                acc +=
                    (double)
                        wm[(c * s->kernel_height + kh) * s->kernel_width + kw] *
                    (double)xc[ih * (ptrdiff_t)s->in_width + iw];
              }
            }
          }
          size_t index =
              (n * s->out_channels + m) * plane + oh * s->out_width + ow;
          if (residual)
            acc += residual[index];
          y[index] = onnxc_apply_activation((float)acc, activation);
        }
    }
}
