#!/usr/bin/python3
"""Regenerates the ONNX test fixtures of package onnxmodel.

Run from the repository root with Debian's PyTorch and onnx (no PyPI):

    apt-get install -y python3-torch python3-onnx
    /usr/bin/python3 testdata/models/make_fixtures.py

Reads data/wbc.csv (or $QUCE_WBC_CSV) and testdata/iris.csv. Deterministic:
fixed seeds, fixed split, full-batch Adam for a fixed number of epochs, one thread.

Writes into testdata/models/:
  wbc_raw.onnx    W-BC MLP on raw values: standardise (training rows' mean/std) → 30→32→ReLU→1 logit
  wbc_prob.onnx   the same network with a trailing Sigmoid (probability)
  wbc_tanh.onnx   a saturating W-BC MLP: standardise → 30→16→Tanh→1 → Sigmoid (probability),
                  trained long at a high learning rate so most tanh units sit at ±1
  iris.onnx       Iris MLP on raw values: standardise → 4→16→ReLU→3 logits
  iris_prob.onnx  the same network with a trailing Softmax
  wbc_std.onnx    W-BC MLP on standardised values, 30→16→ReLU→1 logit, and
  wbc_mlp_weights.json its weights in GoMLX's layers.Dense layout (weights [in, out], biases [out])
  <name>.expected.json for each of the five real models: 10 input rows (float32, in the units
                  the model takes), PyTorch's outputs on them, and grads[c]: PyTorch's input
                  gradients of the sum over the rows of output c (for one output: of the sum
                  of the outputs)
  unsupported_op.onnx  30 → Linear → Elu → Linear → 1 (Elu: not in onnx-gomlx v0.5.13; LeakyRelu,
                       used before, is since v0.5.13)
  two_outputs.onnx     30 → (logit [rows,1], prob [rows,1])
  two_inputs.onnx      x [rows,4], aux [rows,4] → y = x·w (x only), z = x·w + Σaux (both)
  bad_shape.onnx       30 → [rows, 2, 2]
  dynamic_width.onnx   x [rows, features] (input width not static)
  rank3_input.onnx     x [rows, 2, 15] (input of rank 3)
  fixed_batch.onnx     x [1, 4] (no dynamic row axis)
  vector_output.onnx   x [rows, 4] → y [rows] = x·(1,2,3,4)ᵀ (a rank-1 binary score)
  float64_input.onnx   x float64 [rows, 4] → y float64 [rows, 1] = x·(1,2,3,4)ᵀ
The real models carry metadata_props feature_names (comma-separated), except wbc_std.onnx.
"""

import csv
import json
import os

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.dirname(HERE)
WBC_CSV = os.environ.get("QUCE_WBC_CSV", os.path.join(os.path.dirname(TESTDATA), "data", "wbc.csv"))
IRIS_CSV = os.path.join(TESTDATA, "iris.csv")
OPSET = 13

torch.set_num_threads(1)


def read_csv(path, label_fn):
    with open(path) as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    x = np.array([[float(v) for v in r[:-1]] for r in body], dtype=np.float32)
    y = np.array([label_fn(r[-1]) for r in body], dtype=np.int64)
    return header[:-1], x, y


def split(n, seed, test_frac=0.2):
    perm = np.random.RandomState(seed).permutation(n)
    n_test = int(round(n * test_frac))
    return perm[n_test:], perm[:n_test]


class Standardize(torch.nn.Module):
    """(x − mean) / std with the training rows' statistics, exported as Sub and Div."""

    def __init__(self, mean, std):
        super().__init__()
        self.register_buffer("mean", torch.tensor(mean, dtype=torch.float32))
        self.register_buffer("std", torch.tensor(std, dtype=torch.float32))

    def forward(self, x):
        return (x - self.mean) / self.std


def train(net, x, y, loss_fn, epochs, lr, weight_decay=0.0):
    opt = torch.optim.Adam(net.parameters(), lr=lr, weight_decay=weight_decay)
    for _ in range(epochs):
        opt.zero_grad()
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()


def accuracy(logits, y):
    if logits.shape[1] == 1:
        pred = (logits[:, 0] > 0).long()
    else:
        pred = logits.argmax(1)
    return float((pred == y).float().mean())


def export(net, path, n_features, out_names=("logit",), in_names=("x",), feature_names=None,
           example=None):
    net.eval()
    if example is None:
        example = torch.zeros(2, n_features)
    dyn = {n: {0: "rows"} for n in list(in_names) + list(out_names)}
    torch.onnx.export(net, example, path, opset_version=OPSET, input_names=list(in_names),
                      output_names=list(out_names), dynamic_axes=dyn, do_constant_folding=True)
    m = onnx.load(path)
    if feature_names:
        m.metadata_props.append(onnx.StringStringEntryProto(key="feature_names",
                                                            value=",".join(feature_names)))
    onnx.checker.check_model(m)
    onnx.save(m, path)


def f32list(a):
    return [[float(v) for v in row] for row in np.asarray(a, dtype=np.float32)]


def write_expected(name, net, rows, units, kind):
    """Records outputs and input gradients of net (float32, as exported) on rows.

    grads[c] is the gradient with respect to the rows of the sum over rows of output c; for a
    model with one output that is the gradient of the sum of its outputs. (The sum of all
    softmax outputs is constant, so its gradient would be rounding noise: hence per output.)
    """
    net.eval()
    netd = _double_copy(net)
    x = torch.tensor(rows, dtype=torch.float32)
    out = net(x).detach()
    outd = netd(torch.tensor(rows, dtype=torch.float64)).detach()
    grads = []
    for c in range(out.shape[1]):
        xc = torch.tensor(rows, dtype=torch.float32, requires_grad=True)
        (g,) = torch.autograd.grad(net(xc)[:, c].sum(), xc)
        xd = torch.tensor(rows, dtype=torch.float64, requires_grad=True)
        (gd,) = torch.autograd.grad(netd(xd)[:, c].sum(), xd)
        grads.append(g.numpy())
        # Sanity: float32 agrees with a float64 evaluation of the same weights within the
        # Go test's tolerance |a − b| ≤ 1e-5·(|b| + max|b|), max over the array.
        for a, b in ((out.numpy(), outd.numpy()), (g.numpy(), gd.numpy())):
            assert np.all(np.abs(a - b) <= 1e-5 * (np.abs(b) + np.abs(b).max())), name
    exp = {
        "model": name + ".onnx",
        "input_units": units,
        "output_kind": kind,
        "features": int(x.shape[1]),
        "outputs": int(out.shape[1]),
        "rows": f32list(rows),
        "output_values": f32list(out.numpy()),
        "grads": [f32list(g) for g in grads],
    }
    with open(os.path.join(HERE, name + ".expected.json"), "w") as f:
        json.dump(exp, f, separators=(",", ":"))
        f.write("\n")


def _double_copy(net):
    import copy
    d = copy.deepcopy(net)
    return d.double()


def mlp(n_in, hidden, n_out):
    return torch.nn.Sequential(torch.nn.Linear(n_in, hidden), torch.nn.ReLU(),
                               torch.nn.Linear(hidden, n_out))


def wbc():
    names, x, y = read_csv(WBC_CSV, int)
    tr, te = split(len(y), seed=1)
    mean = x[tr].mean(0)
    std = x[tr].std(0)
    xtr, xte = torch.tensor(x[tr]), torch.tensor(x[te])
    ytr, yte = torch.tensor(y[tr]), torch.tensor(y[te])
    bce = lambda z, t: torch.nn.functional.binary_cross_entropy_with_logits(z[:, 0], t.float())

    # (a) raw-input model with the standardisation inside; (c) the same with a Sigmoid.
    torch.manual_seed(0)
    raw = torch.nn.Sequential(Standardize(mean, std), mlp(30, 32, 1))
    train(raw, xtr, ytr, bce, epochs=300, lr=1e-2, weight_decay=1e-2)
    raw.eval()
    acc = accuracy(raw(xte).detach(), yte)
    print("wbc_raw test accuracy %.4f" % acc)
    assert acc > 0.93, acc
    rows = x[te][:10]
    export(raw, os.path.join(HERE, "wbc_raw.onnx"), 30, feature_names=names)
    write_expected("wbc_raw", raw, rows, "raw", "logit")
    prob = torch.nn.Sequential(raw, torch.nn.Sigmoid())
    export(prob, os.path.join(HERE, "wbc_prob.onnx"), 30, out_names=("prob",),
           feature_names=names)
    write_expected("wbc_prob", prob, rows, "raw", "probability")

    # (g) a standardised-input MLP whose weights also go to JSON for a native GoMLX twin.
    torch.manual_seed(1)
    std_net = mlp(30, 16, 1)
    xs_tr = (xtr - torch.tensor(mean)) / torch.tensor(std)
    xs_te = (xte - torch.tensor(mean)) / torch.tensor(std)
    train(std_net, xs_tr, ytr, bce, epochs=300, lr=1e-2)
    std_net.eval()
    acc = accuracy(std_net(xs_te).detach(), yte)
    print("wbc_std test accuracy %.4f" % acc)
    assert acc > 0.93, acc
    export(std_net, os.path.join(HERE, "wbc_std.onnx"), 30)
    write_expected("wbc_std", std_net, xs_te[:10].numpy(), "standardized", "logit")
    h, o = std_net[0], std_net[2]
    weights = {
        "description": "W-BC MLP 30→16→ReLU→1 on standardised inputs, the network in "
                       "wbc_std.onnx; layout of GoMLX layers.Dense: weights [in, out], biases [out]",
        "hidden": {"weights": f32list(h.weight.detach().numpy().T),
                   "biases": [float(v) for v in h.bias.detach().numpy()]},
        "output": {"weights": f32list(o.weight.detach().numpy().T),
                   "biases": [float(v) for v in o.bias.detach().numpy()]},
        "mean": [float(v) for v in mean],
        "std": [float(v) for v in std],
    }
    with open(os.path.join(HERE, "wbc_mlp_weights.json"), "w") as f:
        json.dump(weights, f, separators=(",", ":"))
        f.write("\n")

    # (e) an op onnx-gomlx lacks.
    torch.manual_seed(2)
    elu = torch.nn.Sequential(torch.nn.Linear(30, 4), torch.nn.ELU(),
                              torch.nn.Linear(4, 1))
    export(elu, os.path.join(HERE, "unsupported_op.onnx"), 30)

    # (f) two outputs; an output of rank 3.
    torch.manual_seed(3)

    class TwoOut(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(30, 1)

        def forward(self, x):
            z = self.lin(x)
            return z, torch.sigmoid(z)

    export(TwoOut(), os.path.join(HERE, "two_outputs.onnx"), 30, out_names=("logit", "prob"))

    class BadShape(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(30, 4)

        def forward(self, x):
            return self.lin(x).reshape(-1, 2, 2)

    torch.manual_seed(4)
    export(BadShape(), os.path.join(HERE, "bad_shape.onnx"), 30)

    # (h) a saturating model: its tanh units sit at ±1 on most rows, so its input gradient
    # nearly vanishes far from the boundary (for the stalled-search detection).
    torch.manual_seed(2)
    core = torch.nn.Sequential(Standardize(mean, std), torch.nn.Linear(30, 16), torch.nn.Tanh(),
                               torch.nn.Linear(16, 1))
    train(core, xtr, ytr, bce, epochs=1000, lr=3e-2)
    core.eval()
    acc = accuracy(core(xte).detach(), yte)
    hidden = core[:3](xte).detach()
    saturated = float((hidden.abs() > 0.99).float().mean())
    print("wbc_tanh test accuracy %.4f, tanh units at |h| > 0.99: %.2f" % (acc, saturated))
    assert acc > 0.93 and saturated > 0.5, (acc, saturated)
    prob = torch.nn.Sequential(core, torch.nn.Sigmoid())
    export(prob, os.path.join(HERE, "wbc_tanh.onnx"), 30, out_names=("prob",),
           feature_names=names)


def iris():
    classes = {"setosa": 0, "versicolor": 1, "virginica": 2}
    names, x, y = read_csv(IRIS_CSV, lambda s: classes[s])
    tr, te = split(len(y), seed=1)
    mean, std = x[tr].mean(0), x[tr].std(0)
    xtr, xte = torch.tensor(x[tr]), torch.tensor(x[te])
    ytr, yte = torch.tensor(y[tr]), torch.tensor(y[te])
    torch.manual_seed(0)
    net = torch.nn.Sequential(Standardize(mean, std), mlp(4, 16, 3))
    train(net, xtr, ytr, torch.nn.functional.cross_entropy, epochs=300, lr=1e-2)
    net.eval()
    acc = accuracy(net(xte).detach(), yte)
    print("iris test accuracy %.4f" % acc)
    assert acc > 0.9, acc
    rows = x[te][:10]
    export(net, os.path.join(HERE, "iris.onnx"), 4, feature_names=names)
    write_expected("iris", net, rows, "raw", "logit")
    prob = torch.nn.Sequential(net, torch.nn.Softmax(dim=1))
    export(prob, os.path.join(HERE, "iris_prob.onnx"), 4, out_names=("prob",),
           feature_names=names)
    write_expected("iris_prob", prob, rows, "raw", "probability")


def helper_model(path, inputs, outputs, nodes, initializers):
    graph = helper.make_graph(nodes, os.path.basename(path)[:-5], inputs, outputs,
                              initializer=initializers)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                          producer_name="make_fixtures.py")
    m.ir_version = 7
    onnx.checker.check_model(m)
    onnx.save(m, path)


def shape_fixtures():
    f = TensorProto.FLOAT
    w = helper.make_tensor("w", f, [4, 1], [1.0, 2.0, 3.0, 4.0])
    # Two inputs: y depends on x only, z on both.
    helper_model(
        os.path.join(HERE, "two_inputs.onnx"),
        [helper.make_tensor_value_info("x", f, ["rows", 4]),
         helper.make_tensor_value_info("aux", f, ["rows", 4])],
        [helper.make_tensor_value_info("y", f, ["rows", 1]),
         helper.make_tensor_value_info("z", f, ["rows", 1])],
        [helper.make_node("MatMul", ["x", "w"], ["y"]),
         helper.make_node("ReduceSum", ["aux", "axes"], ["aux_sum"], keepdims=1),
         helper.make_node("Add", ["y", "aux_sum"], ["z"])],
        [w, helper.make_tensor("axes", TensorProto.INT64, [1], [1])])
    # Input width not static.
    helper_model(
        os.path.join(HERE, "dynamic_width.onnx"),
        [helper.make_tensor_value_info("x", f, ["rows", "features"])],
        [helper.make_tensor_value_info("y", f, ["rows", 1])],
        [helper.make_node("ReduceSum", ["x", "axes"], ["y"], keepdims=1)],
        [helper.make_tensor("axes", TensorProto.INT64, [1], [1])])
    # Input of rank 3.
    helper_model(
        os.path.join(HERE, "rank3_input.onnx"),
        [helper.make_tensor_value_info("x", f, ["rows", 2, 15])],
        [helper.make_tensor_value_info("y", f, ["rows"])],
        [helper.make_node("ReduceSum", ["x", "axes"], ["y"], keepdims=0)],
        [helper.make_tensor("axes", TensorProto.INT64, [2], [1, 2])])
    # Output of rank 1, [rows]: one binary score per row.
    helper_model(
        os.path.join(HERE, "vector_output.onnx"),
        [helper.make_tensor_value_info("x", f, ["rows", 4])],
        [helper.make_tensor_value_info("y", f, ["rows"])],
        [helper.make_node("Mul", ["x", "w_row"], ["xw"]),
         helper.make_node("ReduceSum", ["xw", "axes"], ["y"], keepdims=0)],
        [helper.make_tensor("w_row", f, [4], [1.0, 2.0, 3.0, 4.0]),
         helper.make_tensor("axes", TensorProto.INT64, [1], [1])])
    # Float64 input and output.
    d = TensorProto.DOUBLE
    helper_model(
        os.path.join(HERE, "float64_input.onnx"),
        [helper.make_tensor_value_info("x", d, ["rows", 4])],
        [helper.make_tensor_value_info("y", d, ["rows", 1])],
        [helper.make_node("MatMul", ["x", "w64"], ["y"])],
        [helper.make_tensor("w64", d, [4, 1], [1.0, 2.0, 3.0, 4.0])])
    # Exported without a dynamic row axis.
    helper_model(
        os.path.join(HERE, "fixed_batch.onnx"),
        [helper.make_tensor_value_info("x", f, [1, 4])],
        [helper.make_tensor_value_info("y", f, [1, 1])],
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        [w])


if __name__ == "__main__":
    wbc()
    iris()
    shape_fixtures()
