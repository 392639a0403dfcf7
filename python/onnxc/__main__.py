"""`python -m onnxc quantize ...`: the Python side of the command line (the
`onnxc` executable forwards `onnxc quantize` here, where the ONNX protos
are at hand)."""
import sys

from .quantization import main as quantize_main


def main(argv):
    if not argv or argv[0] != "quantize":
        print("usage: python -m onnxc quantize MODEL -o OUT [options]",
              file=sys.stderr)
        return 2
    return quantize_main(argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
