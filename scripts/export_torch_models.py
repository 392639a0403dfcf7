#!/usr/bin/env python3
"""Exports the PyTorch test models (random weights, fixed seeds) to ONNX.

  resnet_small.onnx   a ResNet-style CNN (BasicBlocks with BatchNorm,
                      strided 1x1 projections, global average pool, Linear),
                      input [batch, 3, 64, 64] with a symbolic batch
  bert_small.onnx     a BERT-style encoder (transformers BertModel with a
                      small config: 2 layers, hidden 128, 4 heads), inputs
                      input_ids/attention_mask [batch, sequence]
  vit_small.onnx      torchvision's VisionTransformer with a small config
                      (image 32, patch 8, 1 layer, hidden 32, 2 heads),
                      input [batch, 3, 32, 32]: its attention splits the
                      packed QKV projection with torch's unflatten, which
                      the exporter writes as a Mod-bounded Shape/Slice chain

Both are exported by torch.onnx.export (the TorchScript exporter, which
writes the Shape/Gather/Concat shape chains and decomposed ops that most
deployed models carry) and written to test/models/torch/ with one input set
(*.inputs.npz). They are checked into the repo (a few MB) so the tests do not
need torch; this script regenerates them (all, or the ones named):

  python3 -m venv /tmp/torchenv
  /tmp/torchenv/bin/pip install torch torchvision transformers onnx numpy
  /tmp/torchenv/bin/python scripts/export_torch_models.py [vit_small ...]
"""
import os
import sys

import numpy as np
import torch
from torch import nn

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "test",
                   "models", "torch")
OPSET = 17


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                      nn.BatchNorm2d(cout))

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return torch.relu(y + (self.down(x) if self.down is not None else x))


class ResNetSmall(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 7, 2, 3, bias=False),
                                  nn.BatchNorm2d(16), nn.ReLU(),
                                  nn.MaxPool2d(3, 2, 1))
        self.layers = nn.Sequential(BasicBlock(16, 16, 1), BasicBlock(16, 32, 2),
                                    BasicBlock(32, 64, 2), BasicBlock(64, 64, 1))
        self.fc = nn.Linear(64, classes)

    def forward(self, x):
        x = self.layers(self.stem(x))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


def randomize_batchnorm(model, gen):
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.copy_(torch.randn(m.num_features, generator=gen) * 0.1)
            m.running_var.copy_(torch.rand(m.num_features, generator=gen) + 0.5)
            m.weight.data.copy_(torch.rand(m.num_features, generator=gen) + 0.5)
            m.bias.data.copy_(torch.randn(m.num_features, generator=gen) * 0.1)


def export(model, args, name, input_names, output_names, dynamic_axes):
    path = os.path.join(OUT, name + ".onnx")
    torch.onnx.export(model, args, path, opset_version=OPSET,
                      input_names=input_names, output_names=output_names,
                      dynamic_axes=dynamic_axes, dynamo=False)
    np.savez(os.path.join(OUT, name + ".inputs.npz"),
             **{n: a.numpy() for n, a in zip(input_names, args)})
    print(f"wrote {path} ({os.path.getsize(path) / 1e6:.2f} MB)")


def export_vit_small():
    import torchvision
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)
    vit = torchvision.models.VisionTransformer(
        image_size=32, patch_size=8, num_layers=1, num_heads=2, hidden_dim=32,
        mlp_dim=64, num_classes=10).eval()
    with torch.no_grad():
        # The head starts at zero, which would make every logit 0.
        head = vit.heads.head
        head.weight.copy_(torch.randn(head.weight.shape, generator=gen) * 0.2)
        head.bias.copy_(torch.randn(head.bias.shape, generator=gen) * 0.2)
    # The fused inference fast path of nn.MultiheadAttention is one aten op
    # the exporter cannot write.
    torch.backends.mha.set_fastpath_enabled(False)
    image = torch.randn(2, 3, 32, 32, generator=gen)
    with torch.no_grad():
        export(vit, (image,), "vit_small", ["image"], ["logits"],
               {"image": {0: "batch"}, "logits": {0: "batch"}})


def main():
    os.makedirs(OUT, exist_ok=True)
    names = sys.argv[1:] or ["resnet_small", "bert_small", "vit_small"]
    if "vit_small" in names:
        export_vit_small()
    # resnet_small and bert_small draw from one seeded generator, in this
    # order, so they are always exported together.
    if "resnet_small" not in names and "bert_small" not in names:
        return
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)

    resnet = ResNetSmall().eval()
    with torch.no_grad():
        randomize_batchnorm(resnet, gen)
    image = torch.randn(2, 3, 64, 64, generator=gen)
    export(resnet, (image,), "resnet_small", ["image"], ["logits"],
           {"image": {0: "batch"}, "logits": {0: "batch"}})

    from transformers import BertConfig, BertModel
    config = BertConfig(vocab_size=1000, hidden_size=128, num_hidden_layers=2,
                        num_attention_heads=4, intermediate_size=512,
                        max_position_embeddings=128)
    encoder = BertModel(config, add_pooling_layer=True).eval()

    class Bert(nn.Module):
        # Keyword arguments and a tuple result: what the exporter traces.
        def __init__(self):
            super().__init__()
            self.encoder = encoder

        def forward(self, input_ids, attention_mask):
            out = self.encoder(input_ids=input_ids, attention_mask=attention_mask)
            return out.last_hidden_state, out.pooler_output

    bert = Bert().eval()
    ids = torch.randint(0, 1000, (2, 16), generator=gen)
    mask = torch.ones(2, 16, dtype=torch.int64)
    mask[1, 11:] = 0
    export(bert, (ids, mask), "bert_small", ["input_ids", "attention_mask"],
           ["last_hidden_state", "pooler_output"],
           {"input_ids": {0: "batch", 1: "sequence"},
            "attention_mask": {0: "batch", 1: "sequence"},
            "last_hidden_state": {0: "batch", 1: "sequence"},
            "pooler_output": {0: "batch"}})


if __name__ == "__main__":
    main()
