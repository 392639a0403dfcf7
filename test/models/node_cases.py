"""Single-node models for the per-op tests of the cpu lowerings: the one
builder every test_ops_*.py uses.

`check_node(op, inputs, attrs)` builds a model around one ONNX node, compiles
it with onnxc and compares every output with ONNX Runtime (or with the onnx
reference implementation where ONNX Runtime lacks the kernel, or with given
`expected` values), through onnxc_runner.check_against_ort: exact for
integers and bools, max relative error <= rtol for floats.

Inputs are numpy arrays (None for an omitted optional input). How each input
is fed:
- a graph input with its static shape (the default);
- `constants`: indices that become initializers (e.g. reduction axes);
- `symbolic`: indices whose non-unit dims get a symbolic name that follows the
  right-aligned broadcast position, so dims that broadcast against each other
  share a name (elementwise ops);
- `dynamic`: {index: dim indices, or "all"}: those dims get a name of their
  own (`in<i>_d<d>`), so shape inference can assume nothing about them (data
  movement, Concat, Conv: the lowering must read the sizes at run time);
- `input_dims`: {index: dims (ints or names)} given explicitly.
"""
import numpy as np
import onnx
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from onnxc_runner import check_against_ort

RNG = np.random.default_rng(11)


def uniform(*shape, dtype=np.float32, low=-3.0, high=3.0):
    return RNG.uniform(low, high, shape).astype(dtype)


def integers(*shape, dtype=np.int32, low=-20, high=20):
    return RNG.integers(low, high, shape).astype(dtype)


def bools(*shape):
    return RNG.random(shape) > 0.5


def _dims(array, symbolic):
    if not symbolic:
        return list(array.shape)
    rank = array.ndim
    return [d if d == 1 else f"s{rank - i}" for i, d in enumerate(array.shape)]


def _declared_dims(i, array, symbolic, dynamic, input_dims):
    if input_dims and i in input_dims:
        return input_dims[i]
    if dynamic and i in dynamic:
        which = dynamic[i]
        which = range(array.ndim) if which == "all" else set(which)
        return [f"in{i}_d{d}" if d in which else size
                for d, size in enumerate(array.shape)]
    return _dims(array, i in symbolic)


def _output_dtypes(op, node, graph_inputs, inits, feeds, num_outputs, opset):
    """The output element types: from ONNX's type inference where it knows
    the op, else by running the onnx reference implementation."""
    probe = helper.make_model(
        helper.make_graph([node], op, graph_inputs,
                          [helper.make_empty_tensor_value_info(f"out{i}")
                           for i in range(num_outputs)], inits),
        opset_imports=[helper.make_opsetid("", opset)])
    try:
        inferred = onnx.shape_inference.infer_shapes(probe, strict_mode=True)
        codes = [o.type.tensor_type.elem_type for o in inferred.graph.output]
        if all(codes):
            return [helper.tensor_dtype_to_np_dtype(c) for c in codes]
    except onnx.shape_inference.InferenceError:
        pass
    return [r.dtype for r in ReferenceEvaluator(probe).run(None, feeds)]


def node_model(op, inputs, attrs=None, *, opset=21, num_outputs=1, symbolic=(),
               dynamic=None, constants=(), out_dtypes=None, input_dims=None):
    """Returns (model, feeds) for one `op` node (see the module doc)."""
    if out_dtypes is not None:
        num_outputs = max(num_outputs, len(out_dtypes))
    names = [f"in{i}" if x is not None else "" for i, x in enumerate(inputs)]
    while names and names[-1] == "":
        names.pop()
    outputs = [f"out{i}" for i in range(num_outputs)]
    node = helper.make_node(op, names, outputs, **(attrs or {}))
    graph_inputs, inits, feeds = [], [], {}
    for i, (name, x) in enumerate(zip(names, inputs)):
        if x is None:
            continue
        if i in constants:
            inits.append(numpy_helper.from_array(np.asarray(x), name))
            continue
        elem = helper.np_dtype_to_tensor_dtype(x.dtype)
        dims = _declared_dims(i, x, symbolic, dynamic, input_dims)
        graph_inputs.append(helper.make_tensor_value_info(name, elem, dims))
        feeds[name] = x
    if out_dtypes is None:
        out_dtypes = _output_dtypes(op, node, graph_inputs, inits, feeds,
                                    num_outputs, opset)
    graph_outputs = [helper.make_tensor_value_info(o, helper.np_dtype_to_tensor_dtype(
        np.dtype(d)), None) for o, d in zip(outputs, out_dtypes)]
    graph = helper.make_graph([node], op.lower(), graph_inputs, graph_outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    return model, feeds


def check_node(op, inputs, attrs=None, *, rtol=None, reference=False,
               expected=None, **kwargs):
    """Compiles and runs one node and compares it (see the module doc).
    `reference` compares with the onnx reference implementation instead of
    ONNX Runtime (for kernels ONNX Runtime does not have); `expected` gives
    the outputs directly. Returns the per-output errors."""
    model, feeds = node_model(op, inputs, attrs, **kwargs)
    if reference:
        expected = ReferenceEvaluator(model).run(None, feeds)
    if rtol is None:
        halves = any(x is not None and x.dtype == np.float16 for x in inputs)
        rtol = 2e-3 if halves else 1e-5
    return check_against_ort(model, feeds, rtol=rtol, expected=expected)
