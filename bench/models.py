#!/usr/bin/env python3
"""Generates the benchmark model suite: real architectures exported by the
PyTorch TorchScript exporter (torch.onnx.export, dynamo=False, opset 17) with
random weights and fixed seeds. Nothing is downloaded.

  mlp             a small MLP, x[batch, 784] -> 1024 -> 1024 -> 10 (ReLU)
  resnet50        torchvision ResNet-50, image[batch, 3, 224, 224]
  mobilenet_v2    torchvision MobileNetV2, image[batch, 3, 224, 224]
  efficientnet_b0 torchvision EfficientNet-B0, image[batch, 3, 224, 224]
  vit_b_16        torchvision ViT-B/16, image[batch, 3, 224, 224]
  bert_base       transformers BertModel, BERT-base config, sequence 128
  gpt2            transformers GPT2LMHeadModel, GPT-2 small config, a full
                  forward over 128 tokens (no KV cache), logits out

The batch dimension is symbolic ("batch"); every other dimension is fixed, so
one file serves every batch size. Files go to build/bench/models/ (git-ignored)
next to manifest.json, which records each model's inputs (name, element type,
shape, how to fill it), outputs and the versions that exported it; bench/run.py
reads it to build the inputs.

This needs a Python with torch, torchvision and transformers (the repo's .venv
has none of them):

  python3 -m venv /tmp/torchenv
  /tmp/torchenv/bin/pip install torch torchvision transformers onnx numpy
  /tmp/torchenv/bin/python bench/models.py [--models mlp,resnet50] [--force]
"""
import argparse
import gc
import json
import os
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
# bench/profile.py would shadow the standard library's `profile`, which
# torch imports (through cProfile); this script needs nothing from bench/.
sys.path[:] = [p for p in sys.path
               if os.path.abspath(p or os.curdir) != HERE]
DEFAULT_OUT = os.path.join(HERE, "..", "build", "bench", "models")
OPSET = 17
# Bump a model's entry when its recipe below changes, so its cached file is
# regenerated (and only its).
RECIPE_VERSION = 1
RECIPE_VERSIONS = {"vit_b_16": 2, "gpt2": 2}


def recipe_version(name):
    return RECIPE_VERSIONS.get(name, RECIPE_VERSION)

IMAGE_INPUT = [{"name": "image", "dtype": "float32",
                "shape": ["batch", 3, 224, 224], "fill": "normal"}]


def seeded(seed):
    import torch
    torch.manual_seed(seed)
    return torch.Generator().manual_seed(seed)


def randomize_batchnorm(model, gen):
    """Gives BatchNorm layers non-trivial running statistics so the folded
    scale and shift are not identities (fresh layers have mean 0, var 1)."""
    import torch
    from torch import nn
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                n = m.num_features
                m.running_mean.copy_(torch.randn(n, generator=gen) * 0.1)
                m.running_var.copy_(torch.rand(n, generator=gen) + 0.5)
                if m.affine:
                    m.weight.copy_(torch.rand(n, generator=gen) + 0.5)
                    m.bias.copy_(torch.randn(n, generator=gen) * 0.1)


def build_mlp():
    from torch import nn
    seeded(1)
    model = nn.Sequential(nn.Linear(784, 1024), nn.ReLU(), nn.Linear(1024, 1024),
                          nn.ReLU(), nn.Linear(1024, 10))
    inputs = [{"name": "x", "dtype": "float32", "shape": ["batch", 784],
               "fill": "normal"}]
    return model, inputs, ["logits"]


def randomize_zero_linears(model, seed):
    """Gives Linear layers that start at zero (ViT's classifier head) random
    weights: a zero head makes every logit 0, and outputs that are all zero
    agree with anything."""
    import torch
    from torch import nn
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.Linear) and not m.weight.any():
                m.weight.copy_(torch.randn(m.weight.shape, generator=gen) * 0.02)
                if m.bias is not None:
                    m.bias.copy_(torch.randn(m.bias.shape, generator=gen) * 0.02)


def build_torchvision(name):
    import torchvision
    gen = seeded(2)
    model = getattr(torchvision.models, name)(weights=None)
    randomize_batchnorm(model, gen)
    randomize_zero_linears(model, 5)
    return model, IMAGE_INPUT, ["logits"]


def build_bert_base():
    from torch import nn
    from transformers import BertConfig, BertModel
    seeded(3)
    # Eager attention exports as plain MatMul/Softmax; the BERT-base sizes are
    # the config defaults (12 layers, hidden 768, 12 heads, vocab 30522).
    config = BertConfig(attn_implementation="eager")
    encoder = BertModel(config, add_pooling_layer=True)

    class Bert(nn.Module):
        # Positional inputs and a tuple result: what the exporter traces.
        def __init__(self):
            super().__init__()
            self.encoder = encoder

        def forward(self, input_ids, attention_mask):
            out = self.encoder(input_ids=input_ids, attention_mask=attention_mask)
            return out.last_hidden_state, out.pooler_output

    inputs = [{"name": "input_ids", "dtype": "int64", "shape": ["batch", 128],
               "fill": f"ids:{config.vocab_size}"},
              {"name": "attention_mask", "dtype": "int64",
               "shape": ["batch", 128], "fill": "mask"}]
    return Bert(), inputs, ["last_hidden_state", "pooler_output"]


def build_gpt2():
    from torch import nn
    from transformers import GPT2Config, GPT2LMHeadModel, masking_utils
    seeded(4)
    # transformers looks for packed sequences (several sequences in one row,
    # told apart by restarting position ids) whenever no attention mask is
    # given, with torch.diff, which the TorchScript exporter cannot write
    # (aten::diff). Eager mode finds none for one ordinary sequence per row
    # and uses the plain causal mask; tracing cannot take that branch, so the
    # search is switched off for the export: the graph then holds the causal
    # mask eager mode uses for these inputs. (Checked once: ORT on the
    # exported file against the unpatched eager model, batches 1 and 3, max
    # relative error 1.3e-6.)
    def no_packed_sequences(position_ids):
        return None
    # GPT-2 small: the config defaults (12 layers, 768 wide, vocab 50257).
    config = GPT2Config(attn_implementation="eager", use_cache=False)
    lm = GPT2LMHeadModel(config)

    class Gpt2(nn.Module):
        def __init__(self):
            super().__init__()
            self.lm = lm

        def forward(self, input_ids):
            search = masking_utils.find_packed_sequence_indices
            masking_utils.find_packed_sequence_indices = no_packed_sequences
            try:
                return self.lm(input_ids=input_ids, use_cache=False).logits
            finally:
                masking_utils.find_packed_sequence_indices = search

    inputs = [{"name": "input_ids", "dtype": "int64", "shape": ["batch", 128],
               "fill": f"ids:{config.vocab_size}"}]
    return Gpt2(), inputs, ["logits"]


MODELS = {
    "mlp": ("small MLP 784-1024-1024-10", build_mlp),
    "resnet50": ("torchvision ResNet-50", lambda: build_torchvision("resnet50")),
    "mobilenet_v2": ("torchvision MobileNetV2",
                     lambda: build_torchvision("mobilenet_v2")),
    "efficientnet_b0": ("torchvision EfficientNet-B0",
                        lambda: build_torchvision("efficientnet_b0")),
    "vit_b_16": ("torchvision ViT-B/16", lambda: build_torchvision("vit_b_16")),
    "bert_base": ("transformers BERT-base, sequence 128", build_bert_base),
    "gpt2": ("transformers GPT-2 small LM, full forward over 128 tokens",
             build_gpt2),
}


def example_args(inputs, batch=2):
    """Tensors to trace with; batch 2 keeps the exporter from specializing
    anything on a batch of 1."""
    import torch
    gen = torch.Generator().manual_seed(0)
    args = []
    for spec in inputs:
        shape = [batch if d == "batch" else d for d in spec["shape"]]
        fill = spec["fill"]
        if fill == "normal":
            args.append(torch.randn(*shape, generator=gen))
        elif fill.startswith("ids:"):
            args.append(torch.randint(0, int(fill[4:]), shape, generator=gen))
        elif fill == "mask":
            args.append(torch.ones(*shape, dtype=torch.int64))
        else:
            raise ValueError(f"unknown fill {fill}")
    return tuple(args)


def export(name, out_dir):
    import torch
    description, build = MODELS[name]
    model, inputs, outputs = build()
    model.eval()
    path = os.path.join(out_dir, name + ".onnx")
    dynamic = {spec["name"]: {0: "batch"} for spec in inputs}
    dynamic.update({o: {0: "batch"} for o in outputs})
    # nn.MultiheadAttention's inference fast path (ViT) is one fused aten op
    # the TorchScript exporter cannot write; the plain path exports as
    # MatMul/Softmax.
    if hasattr(torch.backends, "mha"):
        torch.backends.mha.set_fastpath_enabled(False)
    # The cache may link to files elsewhere; never write through a link.
    if os.path.islink(path):
        os.unlink(path)
    start = time.perf_counter()
    with torch.no_grad():
        torch.onnx.export(model, example_args(inputs), path, opset_version=OPSET,
                          input_names=[s["name"] for s in inputs],
                          output_names=outputs, dynamic_axes=dynamic,
                          do_constant_folding=True, dynamo=False)
    seconds = time.perf_counter() - start
    params = sum(p.numel() for p in model.parameters())
    size = os.path.getsize(path)
    print(f"{name}: wrote {path} ({size / 1e6:.1f} MB, {params / 1e6:.1f} M "
          f"parameters, {seconds:.1f} s)", flush=True)
    return {"file": name + ".onnx", "description": description,
            "parameters": params, "size_bytes": size, "inputs": inputs,
            "outputs": outputs, "recipe": recipe_version(name)}


def versions():
    import torch
    found = {"python": sys.version.split()[0], "torch": torch.__version__}
    for module in ("torchvision", "transformers", "onnx"):
        try:
            found[module] = __import__(module).__version__
        except ImportError:
            pass
    return found


def is_current(manifest, name, out_dir):
    entry = manifest.get("models", {}).get(name)
    return (entry is not None and entry.get("recipe") == recipe_version(name)
            and os.path.exists(os.path.join(out_dir, entry["file"])))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default=",".join(MODELS),
                        help="comma-separated subset of: " + ", ".join(MODELS))
    parser.add_argument("--out", default=DEFAULT_OUT,
                        help="output folder (default build/bench/models)")
    parser.add_argument("--force", action="store_true",
                        help="re-export even when a current file exists")
    args = parser.parse_args()
    names = [n for n in args.models.split(",") if n]
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        parser.error(f"unknown models: {', '.join(unknown)}")

    # The TorchScript exporter is chosen on purpose (see the docstring).
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    out_dir = os.path.abspath(args.out)
    os.makedirs(out_dir, exist_ok=True)
    manifest_path = os.path.join(out_dir, "manifest.json")
    manifest = {"opset": OPSET, "models": {}}
    if os.path.exists(manifest_path):
        with open(manifest_path) as f:
            manifest = json.load(f)
    manifest["exporter"] = "torch.onnx.export (TorchScript, dynamo=False)"
    manifest["versions"] = versions()

    for name in names:
        if not args.force and is_current(manifest, name, out_dir):
            print(f"{name}: cached", flush=True)
            continue
        manifest["models"][name] = export(name, out_dir)
        # Written after every model so an interrupted run keeps its work.
        with open(manifest_path, "w") as f:
            json.dump(manifest, f, indent=1, sort_keys=True)
        gc.collect()
    with open(manifest_path, "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
