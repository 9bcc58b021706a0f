"""Gradient (ai.onnx.preview.training): the derivatives of the graph value `y` with respect to the
values named in `xs`, at the values fed to the node.

Its meaning is about the graph around it: the nodes from `xs` and `zs` to `y`, placed before it in the
model (Case.nodes), which the semantics reads from the evaluator (`graph`: exact.Enclosing) and runs again
on the node's own inputs. The derivative is forward-mode and exact: a value that depends on `xs` is carried
as exact rationals with its Jacobian through the operators with a rule here (RULES, MOVES), and dY/dX is
rounded once into X's type; a value that does not is a constant of the function, computed as the graph
computes it, through any operator. Through an operator without a rule it declines. The examples keep their
derivatives worked out by hand: onnx's ReferenceEvaluator implements no Gradient, so the corpus is what
checks the rules."""

from fractions import Fraction

import numpy as np
from onnx import helper

from onnx_conformance.generators.case import Case, NotApplicable, type_of
from onnx_conformance.generators.rounding import exact, round_array, round_to
from onnx_conformance.generators.semantics import Rejected, Undefined, rule
from onnx_conformance.generators.training_family import TRAINING
from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.exact import CannotEvaluate
from onnx_conformance.generators.values import is_float
from onnx_conformance.harness.dtypes import name_of

FLOATS = ("float16", "float", "double")

OPERATOR = Operator("Gradient", domain=TRAINING, primary="T1",
                    defaults={"T2": lambda v, b: b.get("T1") if b.get("T1") in FLOATS else "float"})

NODES_OPSET = 12  # the ai.onnx opset of the differentiated graph, as onnx's own gradient tests import


def applicable(t):
    if t["T1"] not in FLOATS:
        return NotApplicable("the examples differentiate with respect to their inputs ('xs'), which share T1 with "
                             "'zs' (one variadic input list): T1 must be a float type to have a derivative")
    if t["T2"] != t["T1"]:
        return NotApplicable("a derivative dY/dX of a scalar Y takes X's type here: T2 is bound to T1")
    return None


def value(t, x):
    return round_to(exact(x), t["T1"])


@OPERATOR.example
def scalar_add(v, t, rng):
    """onnx's documented model (test_gradient_of_add): c = a + b; dc/da = dc/db = 1."""
    na = applicable(t)
    if na:
        return na
    a, b = value(t, 1.0), value(t, 2.0)
    nodes = [helper.make_node("Add", ["a", "b"], ["c"])]
    one = value(t, 1.0)
    return Case({"a": a, "b": b}, {"dc_da": one, "dc_db": one}, {"xs": ["a", "b"], "y": "c"},
                nodes=nodes, nodes_opset=NODES_OPSET, tolerance={"ulp": 0})


@OPERATOR.example
def scalar_add_and_mul(v, t, rng):
    """onnx's documented model (test_gradient_of_add_and_mul): c = a + b, d = a * c;
    dd/da = c + a = 2a + b, dd/db = a."""
    na = applicable(t)
    if na:
        return na
    a, b = 1.0, 2.0
    nodes = [helper.make_node("Add", ["a", "b"], ["c"]), helper.make_node("Mul", ["a", "c"], ["d"])]
    return Case({"a": value(t, a), "b": value(t, b)}, {"dd_da": value(t, 2 * a + b), "dd_db": value(t, a)},
                {"xs": ["a", "b"], "y": "d"}, nodes=nodes, nodes_opset=NODES_OPSET, tolerance={"ulp": 0})


ZS = {"bool": True, "string": "-2.25"}


@OPERATOR.example
def cast_zs(v, t, rng):
    """Inputs is heterogeneous: x (float, differentiated) and z of T1 in zs, used through Cast to float:
    y = x * x * Cast(z); dy/dx = 2 x z at x = 1.5."""
    if t["T1"] in FLOATS:
        return NotApplicable("for the float types, with_zs feeds z of T1 directly")
    if t["T1"].startswith("complex"):
        return size_zs(t)
    if t["T2"] != "float":
        return NotApplicable("dy/dx takes x's type (float) here")
    x = 1.5
    z = ZS.get(t["T1"], 3 if t["T1"].startswith("u") else -2)
    zval = -2.25 if t["T1"] == "string" else float(z)
    from onnx import TensorProto
    nodes = [helper.make_node("Cast", ["z"], ["zf"], to=TensorProto.FLOAT),
             helper.make_node("Mul", ["x", "x"], ["xx"]), helper.make_node("Mul", ["xx", "zf"], ["y"])]
    from onnx_conformance.harness.dtypes import numpy_of
    zarr = np.array(z, dtype=object) if t["T1"] == "string" else np.array(z, dtype=numpy_of(t["T1"]))
    return Case({"x": np.float32(x), "z": zarr}, {"dy_dx": round_to(exact(2 * x * zval), "float")},
                {"xs": ["x"], "zs": ["z"], "y": "y"}, nodes=nodes, nodes_opset=NODES_OPSET, tolerance={"ulp": 0})


def size_zs(t):
    """A complex z reaches a real y only through its shape (Cast takes no complex input):
    y = x * x * Cast(Size(z)); dy/dx = 2 x Size(z) = 2 * 1.5 * 3."""
    if t["T2"] != "float":
        return NotApplicable("dy/dx takes x's type (float) here")
    from onnx import TensorProto
    from onnx_conformance.harness.dtypes import numpy_of
    nodes = [helper.make_node("Size", ["z"], ["n"]), helper.make_node("Cast", ["n"], ["zf"], to=TensorProto.FLOAT),
             helper.make_node("Mul", ["x", "x"], ["xx"]), helper.make_node("Mul", ["xx", "zf"], ["y"])]
    z = np.array([1 + 2j, -0.5j, 3], dtype=numpy_of(t["T1"]))
    return Case({"x": np.float32(1.5), "z": z}, {"dy_dx": np.float32(9.0)}, {"xs": ["x"], "zs": ["z"], "y": "y"},
                nodes=nodes, nodes_opset=NODES_OPSET, tolerance={"ulp": 0})


@OPERATOR.example
def with_zs(v, t, rng):
    """y = x * x * z with z in zs (not differentiated): dy/dx = 2 x z, at x = 1.5, z = -2.25."""
    na = applicable(t)
    if na:
        return na
    x, z = 1.5, -2.25
    nodes = [helper.make_node("Mul", ["x", "x"], ["xx"]), helper.make_node("Mul", ["xx", "z"], ["y"])]
    return Case({"x": value(t, x), "z": value(t, z)}, {"dy_dx": value(t, 2 * x * z)},
                {"xs": ["x"], "zs": ["z"], "y": "y"}, nodes=nodes, nodes_opset=NODES_OPSET, tolerance={"ulp": 0})


# ---------------------------------------------------------------------------------------------
# the meaning: forward-mode differentiation of the graph before the node, over exact rationals


class Dual:
    """A value that depends on `xs`: its exact elements (an object array of Fractions) and its Jacobian
    d value / d xs, of the value's shape + (n,), n the count of the elements of every x together."""

    def __init__(self, value: np.ndarray, jac: np.ndarray):
        self.value, self.jac = value, jac


@OPERATOR.semantics
def gradient(v, attrs, inputs, graph=None):
    if graph is None:
        raise CannotEvaluate("Gradient differentiates the graph around its node: it has a meaning only in a model")
    xs, zs, y = list(attrs["xs"]), list(attrs.get("zs") or []), attrs["y"]
    fed = list(inputs["Inputs"])
    if len(fed) != len(xs) + len(zs):
        raise Rejected(rule(v, r"^The i-th input is the value", "Inputs"))
    n = sum(np.size(x) for x in fed[:len(xs)])
    values, at = dict(zip(zs, fed[len(xs):])), 0
    for name, x in zip(xs, fed):
        if not is_float(type_of(x)):
            raise Undefined(f"x {name!r} is {type_of(x)}: a derivative is of a float value")
        seed = np.zeros((x.size, n), dtype=object)
        seed[np.arange(x.size), at + np.arange(x.size)] = 1
        values[name], at = Dual(_exact(x), seed.reshape(x.shape + (n,))), at + x.size
    for node in _between(graph.before, set(values), y):
        operands = [values[name] if name in values else graph.scope[name] if name else None for name in node.input]
        if any(isinstance(x, Dual) for x in operands):
            outputs = _differentiate(graph, node, operands, n)
        else:
            outputs = graph.run(node, {name: x for name, x in zip(node.input, operands) if name})
        values.update((name, x) for name, x in zip(node.output, outputs) if name)
    dy = values[y] if y in values else graph.scope[y]
    if np.size(dy.value if isinstance(dy, Dual) else dy) != 1:
        raise Undefined(f"y {y!r} has shape {np.shape(dy.value if isinstance(dy, Dual) else dy)}: the spec gives "
                        "dY/dX, of X's shape, for a y of one element, and no Jacobian or sum beyond")
    flat = dy.jac.reshape(n) if isinstance(dy, Dual) else np.zeros(n, dtype=object)
    out, at = [], 0
    for x in fed[:len(xs)]:
        out.append(round_array(flat[at:at + x.size].tolist(), type_of(x), x.shape))
        at += x.size
    return {"Outputs": out}


def _between(before: list, leaves: set, y: str) -> list:
    """The nodes (in the graph's order) that compute y from the leaves (`xs` and `zs`, where the
    differentiated function starts even if a node before computes them)."""
    producer = {name: k for k, node in enumerate(before) for name in node.output if name}
    needed, todo = set(), [y]
    while todo:
        name = todo.pop()
        k = producer.get(name)
        if name in leaves or k is None or k in needed:
            continue
        needed.add(k)
        todo.extend(i for i in before[k].input if i)
    return [before[k] for k in sorted(needed)]


def _differentiate(graph, node, operands: list, n: int) -> list:
    """node's outputs where an input depends on `xs`: exact values with their Jacobians."""
    op = node.op_type
    if node.domain not in ("", "ai.onnx") or (op not in RULES and op not in MOVES):
        raise CannotEvaluate(f"Gradient through {op} is not implemented")
    since = graph.version(node).since_version
    if op in LEGACY_BROADCAST and since < 7:
        raise CannotEvaluate(f"Gradient through {op}-{since} is not implemented (its broadcast attribute)")
    if op in MOVES:
        return _moved(graph, node, operands, n)
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    try:
        return [RULES[op](attrs, [_pair(x, n) for x in operands], n)]
    except ZeroDivisionError:
        raise Undefined(f"{op}: its derivative divides by 0 here") from None


def _exact(x) -> np.ndarray:
    """An array's elements as exact rationals (an object array of its shape)."""
    a = np.asarray(x)
    out = np.empty(a.shape, dtype=object)
    out.reshape(-1)[:] = [exact(e) for e in a.reshape(-1).tolist()]
    return out


def _pair(x, n: int):
    """(exact value, Jacobian or None for a constant)."""
    if isinstance(x, Dual):
        return x.value, x.jac
    return (None, None) if x is None else (_exact(x), None)


def _dual(value, jac, n: int) -> Dual:
    value = np.asarray(value, dtype=object)
    shape = value.shape + (n,)
    jac = np.zeros(shape, dtype=object) if jac is None else np.asarray(jac, dtype=object)
    return Dual(value, jac if jac.shape == shape else np.broadcast_to(jac, shape))


def _col(x):
    """A value lined up with a Jacobian: a trailing axis of 1."""
    return np.asarray(x, dtype=object)[..., None]


def _plus(*jacs):
    """The sum of Jacobians, None standing for 0."""
    given = [j for j in jacs if j is not None]
    return None if not given else sum(given[1:], given[0])


def _sum(attrs, xs, n, scale=1):
    value = sum((u for u, _ in xs[1:]), xs[0][0]) * scale
    return _dual(value, _times(_plus(*(du for _, du in xs)), scale), n)


def _times(j, c):
    return None if j is None else j * c


def _mul(attrs, xs, n):
    (u, du), (v, dv) = xs
    return _dual(u * v, _plus(_times(du, _col(v)), _times(dv, _col(u))), n)


def _div(attrs, xs, n):
    (u, du), (v, dv) = xs
    return _dual(u / v, _plus(_times(du, _col(1 / v)), _times(dv, _col(-u / (v * v)))), n)


def _pow(attrs, xs, n):
    """x^k for an integer k, constant: k x^(k-1) (a value of an irrational power is beyond exact rationals)."""
    (u, du), (k, dk) = xs
    if dk is not None or any(not isinstance(e, Fraction) or e.denominator != 1 for e in np.ravel(k)):
        raise CannotEvaluate("Gradient through Pow is not implemented but for a constant integer exponent")
    power = np.vectorize(lambda b, e: b ** int(e), otypes=[object])
    slope = np.vectorize(lambda b, e: e * b ** int(e - 1) if e else 0, otypes=[object])
    return _dual(power(u, k), _times(du, _col(slope(u, k))), n)


def _matmul(attrs, xs, n):
    (a, da), (b, db) = xs
    cols = [_plus(None if da is None else np.matmul(da[..., j], b), None if db is None else np.matmul(a, db[..., j]))
            for j in range(n)]
    value = np.asarray(np.matmul(a, b), dtype=object)
    return _dual(value, np.stack([np.asarray(c, dtype=object) for c in cols], axis=-1) if n else None, n)


def _reduce(attrs, xs, n, mean=False):
    """ReduceSum, ReduceMean: `axes` an attribute (before 13, 18) or a constant input; none: every axis,
    or none at all with noop_with_empty_axes."""
    (u, du), given = xs[0], (xs[1] if len(xs) > 1 else (None, None))
    axes = attrs.get("axes") or ([int(a) for a in np.ravel(given[0])] if given[0] is not None else [])
    if not axes and attrs.get("noop_with_empty_axes", 0):
        return _dual(u, du, n)
    axes = tuple(a % u.ndim for a in axes) if axes else tuple(range(u.ndim))
    keep = bool(attrs.get("keepdims", 1))
    scale = Fraction(1, int(np.prod([u.shape[a] for a in axes]))) if mean else 1
    value = np.asarray(np.sum(u, axis=axes, keepdims=keep), dtype=object) * scale
    return _dual(value, _times(np.sum(_dual(u, du, n).jac, axis=axes, keepdims=keep), scale), n)


def _cast(attrs, xs, n):
    to = name_of(attrs["to"])
    if not is_float(to):
        raise CannotEvaluate(f"Gradient through Cast to {to} is not implemented")
    return _dual(*xs[0], n)  # the real function is the identity; its one rounding is dY/dX's


RULES = {
    "Identity": lambda attrs, xs, n: _dual(*xs[0], n),
    "Add": _sum, "Sum": _sum,
    "Mean": lambda attrs, xs, n: _sum(attrs, xs, n, Fraction(1, len(xs))),
    "Sub": lambda attrs, xs, n: _sum(attrs, [xs[0], (-xs[1][0], _times(xs[1][1], -1))], n),
    "Neg": lambda attrs, xs, n: _dual(-xs[0][0], _times(xs[0][1], -1), n),
    "Mul": _mul, "Div": _div,
    "Reciprocal": lambda attrs, xs, n: _div(attrs, [(np.asarray(Fraction(1), dtype=object), None), xs[0]], n),
    "Pow": _pow, "MatMul": _matmul, "Cast": _cast,
    "ReduceSum": _reduce, "ReduceMean": lambda attrs, xs, n: _reduce(attrs, xs, n, mean=True),
}
LEGACY_BROADCAST = ("Add", "Sub", "Mul", "Div", "Pow")  # before 7: a `broadcast` attribute, not numpy's rule

# Operators whose outputs are elements of their data input(s) (the first; every input of Concat), the
# others constant: each output element's value and derivative are those of the element it copies, found
# by running the operator's own semantics on the elements' positions.
MOVES = ("Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose", "Expand", "Slice", "Gather",
         "GatherElements", "GatherND", "Tile", "DepthToSpace", "SpaceToDepth", "Split", "Concat")


def _moved(graph, node, operands: list, n: int) -> list:
    data = range(len(operands)) if node.op_type == "Concat" else (0,)
    values, jacs, feeds, at = [], [], {}, 0
    for k, (name, x) in enumerate(zip(node.input, operands)):
        if k not in data:
            if isinstance(x, Dual):
                raise CannotEvaluate(f"Gradient through {node.op_type}'s input {k} is not implemented")
            if name:
                feeds[name] = x
        elif name not in feeds:  # one value twice (Concat(a, a)): the same elements
            d = _dual(*_pair(x, n), n)
            feeds[name] = np.arange(at, at + d.value.size, dtype=np.int64).reshape(d.value.shape)
            values.append(d.value.reshape(-1))
            jacs.append(d.jac.reshape(d.value.size, n))
            at += d.value.size
    value, jac = np.concatenate(values), np.concatenate(jacs)
    return [None if idx is None else Dual(value[np.asarray(idx)], jac[np.asarray(idx)])
            for idx in graph.run(node, feeds)]


OPERATOR.reference_differs(r"No registered implementation for operator 'Gradient'",
                           "onnx's ReferenceEvaluator (1.23) implements no Gradient")
