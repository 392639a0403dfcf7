/*===- Dtype.c - Element type sizes and names -----------------------------===*/

#include "onnxc/onnxc.h"

size_t onnxc_dtype_size(int32_t dtype) {
  switch (dtype) {
  case ONNXC_DTYPE_BOOL:
  case ONNXC_DTYPE_UINT8:
  case ONNXC_DTYPE_INT8:
  case ONNXC_DTYPE_FLOAT8E4M3FN:
  case ONNXC_DTYPE_FLOAT8E4M3FNUZ:
  case ONNXC_DTYPE_FLOAT8E5M2:
  case ONNXC_DTYPE_FLOAT8E5M2FNUZ:
  /* One element a byte, not packed (see onnxc.h). */
  case ONNXC_DTYPE_UINT4:
  case ONNXC_DTYPE_INT4:
  case ONNXC_DTYPE_UINT2:
  case ONNXC_DTYPE_INT2:
    return 1;
  case ONNXC_DTYPE_UINT16:
  case ONNXC_DTYPE_INT16:
  case ONNXC_DTYPE_FLOAT16:
  case ONNXC_DTYPE_BFLOAT16:
    return 2;
  case ONNXC_DTYPE_FLOAT:
  case ONNXC_DTYPE_INT32:
  case ONNXC_DTYPE_UINT32:
    return 4;
  case ONNXC_DTYPE_DOUBLE:
  case ONNXC_DTYPE_INT64:
  case ONNXC_DTYPE_UINT64:
    return 8;
  default:
    return 0;
  }
}

const char *onnxc_dtype_name(int32_t dtype) {
  switch (dtype) {
  case ONNXC_DTYPE_FLOAT:
    return "float";
  case ONNXC_DTYPE_UINT8:
    return "uint8";
  case ONNXC_DTYPE_INT8:
    return "int8";
  case ONNXC_DTYPE_UINT16:
    return "uint16";
  case ONNXC_DTYPE_INT16:
    return "int16";
  case ONNXC_DTYPE_INT32:
    return "int32";
  case ONNXC_DTYPE_INT64:
    return "int64";
  case ONNXC_DTYPE_STRING:
    return "string";
  case ONNXC_DTYPE_BOOL:
    return "bool";
  case ONNXC_DTYPE_FLOAT16:
    return "float16";
  case ONNXC_DTYPE_DOUBLE:
    return "double";
  case ONNXC_DTYPE_UINT32:
    return "uint32";
  case ONNXC_DTYPE_UINT64:
    return "uint64";
  case ONNXC_DTYPE_BFLOAT16:
    return "bfloat16";
  case ONNXC_DTYPE_FLOAT8E4M3FN:
    return "float8e4m3fn";
  case ONNXC_DTYPE_FLOAT8E4M3FNUZ:
    return "float8e4m3fnuz";
  case ONNXC_DTYPE_FLOAT8E5M2:
    return "float8e5m2";
  case ONNXC_DTYPE_FLOAT8E5M2FNUZ:
    return "float8e5m2fnuz";
  case ONNXC_DTYPE_UINT4:
    return "uint4";
  case ONNXC_DTYPE_INT4:
    return "int4";
  case ONNXC_DTYPE_FLOAT4E2M1:
    return "float4e2m1";
  case ONNXC_DTYPE_FLOAT8E8M0:
    return "float8e8m0";
  case ONNXC_DTYPE_UINT2:
    return "uint2";
  case ONNXC_DTYPE_INT2:
    return "int2";
  default:
    return "undefined";
  }
}
