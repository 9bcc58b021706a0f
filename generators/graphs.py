"""Cases beyond single nodes: the subgraphs optimizers rewrite (generators/patterns/) and small
networks (generators/models/), each a module defining one `GraphFamily` whose examples build a
`Graph` for an element type.

What every such case shares lives here:
- the model: the graph's nodes, its fed inputs, and its weights twice, once as initializers (what
  constant folding and fusions may rewrite) and once as graph inputs fed with the test data (what
  they may not), so an optimizer that only works on constants and one that only works on inputs are
  both seen;
- the types: each example is tried in every type of the family's candidates (by default every
  numeric type), and a type where onnx's type check refuses the graph is recorded as not
  applicable in its words: the operators decide which types exist, as the schemas do for single
  nodes;
- the expected values: the exact evaluator (generators/exact.py) over the graph, each node's
  result correctly rounded to its type;
- the tolerance for graphs (README, "Beyond single nodes"): the type's default tolerance around
  that node-by-node value, widened by how far the same graph lands when computed without rounding
  its intermediates (every floating intermediate kept in double; a Cast still casts, CastLike
  still takes its target's type). A backend rounding every node passes; one that fuses nodes and
  keeps intermediates wider passes; one whose rewrite changes the function (a dropped epsilon, a
  removed cast that was not an identity, a wrong axis) is further off than either and fails,
  because each family's data is chosen so that it is.
"""

from __future__ import annotations

import re
from collections import ChainMap
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import onnx
from onnx import checker, helper

from onnx_conformance.generators.case import NotApplicable, Operator, seeded_rng, slug, type_of
from onnx_conformance.generators.exact import CannotEvaluate, Evaluator, from_plain
from onnx_conformance.generators.semantics import Rejected, Undefined
from onnx_conformance.generators.protos import Built, ir_version_for, plain, value_info
from onnx_conformance.harness.compare import TOLERANCE
from onnx_conformance.harness.dtypes import element_of, numpy_of

FLOATS = ("bfloat16", "float16", "float", "double")
INTEGERS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
NUMERIC = FLOATS + INTEGERS
DEFAULT_OPSET = 21  # loaded by every released runtime the project runs (onnxruntime, OpenVINO, tract)


@dataclass
class Graph:
    """One example, concrete: nodes in order, the values fed at run time, the weights (initializers
    in one case, fed in the other), and the graph's outputs by name."""

    nodes: list[onnx.NodeProto]
    inputs: dict[str, Any]
    outputs: list[str]
    weights: dict[str, Any] = field(default_factory=dict)
    # Initializers in both cases: what the graph's structure needs constant (axes, shapes, pads, Clip's
    # bounds), which a runtime may require to be constant, so that feeding it tests that, not folding.
    constants: dict[str, Any] = field(default_factory=dict)
    opsets: dict[str, int] = field(default_factory=dict)  # other domains: {"ai.onnx.ml": 3}
    functions: list[onnx.FunctionProto] = field(default_factory=list)


Example = Callable[[str, np.random.Generator], "Graph | NotApplicable"]


class GraphFamily:
    """A pattern or a small model: its name as the reports show it, what it is for (`targets`: the
    optimizer rules a pattern aims at, or what a model is made of), and its examples."""

    def __init__(self, name: str, form: str, targets: tuple[str, ...], types: tuple[str, ...] = NUMERIC,
                 opset: int = DEFAULT_OPSET):
        if form not in FORMS:
            raise ValueError(f"{name}: form {form!r} is not one of {', '.join(FORMS)}")
        self.name, self.form, self.targets, self.types, self.opset = name, form, targets, types, opset
        self.examples: dict[str, Example] = {}
        self.reference_reasons: list = []

    # Why onnx's ReferenceEvaluator disagrees, said as an operator module says it (cases/crosscheck.md).
    reference_differs = Operator.reference_differs
    why_reference_differs = Operator.why_reference_differs

    def example(self, fn: Example) -> Example:
        if fn.__name__.endswith("_fed"):  # the suffix of the case whose weights are fed
            raise ValueError(f"{self.name}: an example's name may not end in _fed ({fn.__name__})")
        self.examples[fn.__name__] = fn
        return fn

    @property
    def slug(self) -> str:
        return re.sub(r"[^a-z0-9]+", "_", self.name.lower()).strip("_")


FORMS = ("pattern", "model")


def model_of(family: GraphFamily, g: Graph, name: str, folded: bool) -> tuple[onnx.ModelProto, list]:
    """The model and its feeds (graph-input order): weights as initializers when `folded`, else fed."""
    fed = dict(g.inputs) if folded else {**g.inputs, **g.weights}
    inputs = [value_info(n, type_of(x), x) for n, x in fed.items()]
    held = {**g.weights, **g.constants} if folded else g.constants
    initializers = [onnx.numpy_helper.from_array(np.asarray(x), n) for n, x in held.items()]
    outputs = [helper.make_value_info(n, onnx.TypeProto()) for n in g.outputs]  # typed below
    graph = helper.make_graph(g.nodes, name, inputs, outputs, initializer=initializers)
    opsets = [helper.make_opsetid("", family.opset)] + [helper.make_opsetid(d, v) for d, v in sorted(g.opsets.items())]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="onnx-conformance",
                              functions=g.functions)
    # a model-local function's own domain is no opset onnx knows: it asks for no IR version
    model.ir_version = ir_version_for([o for o in opsets if o.domain not in {f.domain for f in g.functions}])
    return model, list(fed.items())


def built(family: GraphFamily, example: str, t: str) -> list | NotApplicable:
    """Both cases (weights folded, weights fed) of one example in type t, as Built objects,
    or why the example does not exist in t."""
    try:
        g = family.examples[example](t, seeded_rng(family.form, family.name, example, t))
    except NotRepresentable as e:
        return NotApplicable(f"the example's values are not {t} values: {e}")
    if isinstance(g, NotApplicable):
        return g
    out = []
    for folded in ((True, False) if g.weights else (True,)):
        name = f"test_{family.form}_{family.slug}_{example}_opset{family.opset}_{slug(t)}" + ("" if folded else "_fed")
        model, feeds = model_of(family, g, name, folded)
        try:  # the operators' type constraints decide which types exist, before anything runs
            inferred = onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
        except onnx.shape_inference.InferenceError as e:
            return NotApplicable(f"onnx's type check refuses the graph in {t}: {_first_line(e)}")
        try:
            values, tolerance = evaluate(model, [plain(x) for _, x in feeds])
        except Exception as e:  # a generator bug, never a case: say which
            raise RuntimeError(f"{name}: the exact evaluator cannot run it: {type(e).__name__}: {e}") from e
        # typed as inference says: a sequence or map output is a value of that type, not a tensor
        values = [from_plain(x, o.type) for x, o in zip(values, inferred.graph.output)]
        model.graph.ClearField("output")
        model.graph.output.extend(value_info(n, type_of(x), x) for n, x in zip(g.outputs, values))
        checker.check_model(model, full_check=True)  # a model with expected outputs is valid, or a generator bug
        meta = {
            "op": family.name, "domain": "", "form": family.form, "opset": family.opset, "since_version": None,
            "dtype": t, "types": {"T": t}, "example": example + ("" if folded else "_fed"),
            "kind": "expect-output", "reason": None, "tolerance": tolerance,
        }
        outputs = list(zip(g.outputs, values))
        out.append(Built(name, meta, model, feeds, outputs, [element_of(type_of(x)) for x in values]))
    return out


def _first_line(e: Exception) -> str:
    return str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__


# ---------------------------------------------------------------------------------------------
# the tolerance for graphs


def evaluate(model: onnx.ModelProto, feeds: list) -> tuple[list, dict | None]:
    """The graph's expected outputs (the exact evaluator, node by node) and the tolerance for graphs
    around them. A graph whose every value is double or not a float has nothing to keep wider: its
    tolerance is the types' default without a second reading."""
    recorder = _Recorder.for_model(model)
    values = recorder.run_model(model, feeds)
    if not set(recorder.types.values()) & set(FLOATS[:3]):
        return values, None
    return values, graph_tolerance(model, feeds, values, recorder.types)


def graph_tolerance(model: onnx.ModelProto, feeds: list, values: list, types: dict[str, str]) -> dict | None:
    """None (the types' default tolerance) where computing the graph without rounding its
    intermediates lands within it; else the widest default atol of the floating outputs, widened by
    the largest distance between the two readings. An output of a type without a tolerance (an
    integer, an index, a bool) must be the same in both readings: a case whose data makes it depend
    on rounding the intermediates would fail a backend that keeps them wider, which is right."""
    wide = WideEvaluator.for_model(model)
    wide.narrow = types
    wide = wide.run_model(model, feeds)
    spread, atol = 0.0, None
    for name, narrow, w in zip((o.name for o in model.graph.output), values, wide):
        kind = element_of(type_of(narrow)) if isinstance(narrow, np.ndarray) else None
        n = np.asarray(narrow) if kind else None
        if kind not in FLOATS:  # sequences and maps too: compared whole
            if not _same(narrow, w):
                raise DependsOnRounding(f"{model.graph.name}: output {name!r} ({kind}) depends on rounding the "
                                        "intermediates: choose data where both readings agree on it")
            continue
        atol = max(atol or 0.0, TOLERANCE[kind][0])
        a, b = n.astype(np.float64), np.asarray(w, dtype=np.float64).astype(n.dtype).astype(np.float64)
        both = np.isfinite(a) & np.isfinite(b)
        if (np.isnan(a) != np.isnan(b)).any() or (~np.isnan(a) & ~both & (a != b)).any():
            raise DependsOnRounding(f"{model.graph.name}: rounding the intermediates changes a NaN or an "
                                    "infinity: choose data where both readings agree on them")
        if both.any():
            spread = max(spread, float(np.max(np.abs(a[both] - b[both]))))
    if atol is None or spread == 0.0:
        return None
    return {"atol": float(np.float32(atol + spread))}


class DependsOnRounding(ValueError):
    """An output that rounding the intermediates or not changes beyond what a tolerance can say:
    a correct runtime that keeps them wider would fail the case."""


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, dict) or isinstance(b, dict):
        return type(a) is type(b) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.shape == b.shape and bool(np.all((a == b) | ((a != a) & (b != b))))
    return type(a) is type(b) and (a == b if not isinstance(a, (list, tuple)) else
                                   len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b)))


class WideEvaluator(Evaluator):
    """The exact evaluator with every floating intermediate kept in double: each node's float16,
    bfloat16 and float inputs are widened before its semantics runs, so its result is the double
    one. What changes a value's type on purpose still does: Cast and the operators whose output type
    an attribute fixes keep their result's type (and its rounding), CastLike casts to its target's
    original type. A node whose semantics refuses double inputs runs in its own types."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.narrow: dict[str, str] = {}  # value name -> its type in the node-by-node reading

    def run_model(self, model: onnx.ModelProto, feeds: list) -> list:
        """Set `narrow` (the node-by-node reading's types, _Recorder's) first."""
        return [_round(x, self.narrow.get(o.name)) for x, o in zip(super().run_model(model, feeds), model.graph.output)]

    def call_operator(self, node, domain: str, inputs: list, attributes: list, scope: ChainMap,
                      opsets: dict[str, int]) -> list:
        if node.op_type == "CastLike" and domain == "":
            target = self.narrow.get(node.input[1])
            return [_widen(_round(inputs[0], target) if target else inputs[0])]
        if node.op_type == "Cast" and domain == "":
            return [_widen(x) for x in super().call_operator(node, domain, inputs, attributes, scope, opsets)]
        try:
            return super().call_operator(node, domain, [_widen(x) for x in inputs], attributes, scope, opsets)
        except (Rejected, Undefined, CannotEvaluate, TypeError, ValueError, KeyError):
            narrow = [_round(x, self.narrow.get(n)) for x, n in zip(inputs, node.input)]
            return [_widen(x) for x in super().call_operator(node, domain, narrow, attributes, scope, opsets)]

    def _check_declared(self, value, declared) -> None:  # outputs are double until rounded at the end
        return None


class _Recorder(Evaluator):
    """The node-by-node reading, remembering each value's type by name."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.types: dict[str, str] = {}

    def run_node(self, node, scope, opsets, caller=None) -> None:
        super().run_node(node, scope, opsets, caller)
        for name in node.output:
            if name and isinstance(scope.get(name), np.ndarray):
                self.types[name] = type_of(scope[name])

    def run_graph(self, graph, values, outer, top=False):
        for i, x in zip(graph.input, values):
            if isinstance(x, np.ndarray):
                self.types[i.name] = type_of(x)
        for init in graph.initializer:
            self.types[init.name] = type_of(onnx.numpy_helper.to_array(init))
        return super().run_graph(graph, values, outer, top)


_NARROW = {np.dtype(np.float16), np.dtype(np.float32), np.dtype(numpy_of("bfloat16"))}


def _widen(x: Any) -> Any:
    return x.astype(np.float64) if isinstance(x, np.ndarray) and x.dtype in _NARROW else x


def _round(x: Any, type_name: str | None) -> Any:
    if type_name is None or not isinstance(x, np.ndarray) or x.dtype != np.float64 or type_name == "double":
        return x
    return x.astype(numpy_of(type_name))


# ---------------------------------------------------------------------------------------------
# the families


def all_families() -> dict[str, GraphFamily]:
    """name -> family, for every module of generators/patterns and generators/models."""
    import importlib
    import pkgutil

    from onnx_conformance.generators.ops import all_operators

    operators = set(all_operators())  # `generate-cases --op NAME` names either: never both
    found = {}
    for package in ("patterns", "models"):
        pkg = importlib.import_module(f"onnx_conformance.generators.{package}")
        for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
            if not info.name.startswith("_"):
                family = importlib.import_module(f"{pkg.__name__}.{info.name}").FAMILY
                clash = next((f for f in found.values() if family.name == f.name or family.slug == f.slug), None)
                if clash:
                    raise ValueError(f"graph families {family.name!r} and {clash.name!r} share a name or a slug")
                if family.name in operators:
                    raise ValueError(f"graph family {family.name!r} has an operator's name: --op could not tell them apart")
                found[family.name] = family
    return found


def build_family(name: str) -> tuple[list, list[dict]]:
    """Every case of one family, and each (example, type) that does not exist with why."""
    family = all_families()[name]
    cases, not_applicable = [], []
    for example in family.examples:
        refused = []
        for t in family.types:
            got = built(family, example, t)
            if isinstance(got, NotApplicable):
                refused.append({"op": family.name, "since_version": None, "dtype": t, "types": {"T": t},
                                "example": example, "reason": got.reason})
            else:
                cases.extend(got)
        if len(refused) == len(family.types):  # in no type at all: a mistake in the example, not a fact
            raise ValueError(f"{family.name}: example {example} exists in no type: {refused[0]['reason']}")
        not_applicable.extend(refused)
    return cases, not_applicable


def cast_to(x, t: str) -> np.ndarray:
    """x (numbers or an array) as an array of the ONNX type t; for an integer type, x must hold
    integers in its range (a fraction or a value that wraps is an example's mistake, said here)."""
    if t in FLOATS:
        return np.asarray(x, dtype=np.float64).astype(numpy_of(t))
    wanted = np.asarray(x)
    got = wanted.astype(numpy_of(t))
    if not np.array_equal(got.astype(np.float64), wanted.astype(np.float64)):
        raise NotRepresentable(f"{t} cannot hold {wanted.ravel()[:4]} exactly")
    return got


class NotRepresentable(ValueError):
    """An example's data in a type that cannot hold it: that example does not exist in that type."""
