"""Single-node models for the per-op tests of the cpu lowerings.

`check_node(op, inputs, attrs)` builds a model around one ONNX node, compiles
it with onnxc and compares every output with ONNX Runtime (or with the onnx
reference implementation where ONNX Runtime lacks the kernel), through
onnxc_runner.check_against_ort: exact for integers and bools, max relative
error <= rtol for floats.

Inputs are numpy arrays (None for an omitted optional input). Indices in
`constants` become initializers (e.g. reduction axes); indices in `symbolic`
get a symbolic name for every non-unit dim, so the artifact is compiled for
dynamic shapes. Symbolic names follow the right-aligned broadcast position,
so dims that broadcast against each other share a name.
"""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
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


def node_model(op, inputs, attrs=None, *, opset=21, num_outputs=1, symbolic=(),
               constants=(), out_dtypes=None, input_dims=None):
    """Returns (model, feeds) for one `op` node. `input_dims` maps an input
    index to the dims (ints or names) the model declares for it."""
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
        dims = (input_dims or {}).get(i) or _dims(x, i in symbolic)
        graph_inputs.append(helper.make_tensor_value_info(name, elem, dims))
        feeds[name] = x
    if out_dtypes is None:
        probe = helper.make_model(
            helper.make_graph([node], op, graph_inputs,
                              [helper.make_tensor_value_info(o, TensorProto.UNDEFINED, None)
                               for o in outputs], inits),
            opset_imports=[helper.make_opsetid("", opset)])
        out_dtypes = [r.dtype for r in ReferenceEvaluator(probe).run(None, feeds)]
    graph_outputs = [helper.make_tensor_value_info(o, helper.np_dtype_to_tensor_dtype(
        np.dtype(d)), None) for o, d in zip(outputs, out_dtypes)]
    graph = helper.make_graph([node], op.lower(), graph_inputs, graph_outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    return model, feeds


def check_node(op, inputs, attrs=None, *, rtol=None, reference=False, **kwargs):
    """Compiles and runs one node and compares it (see the module doc).
    `reference` compares with the onnx reference implementation instead of
    ONNX Runtime (for kernels ONNX Runtime does not have)."""
    model, feeds = node_model(op, inputs, attrs, **kwargs)
    expected = ReferenceEvaluator(model).run(None, feeds) if reference else None
    if rtol is None:
        halves = any(x is not None and x.dtype == np.float16 for x in inputs)
        rtol = 2e-3 if halves else 1e-5
    return check_against_ort(model, feeds, rtol=rtol, expected=expected)
