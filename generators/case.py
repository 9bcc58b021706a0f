"""The case model every operator module speaks: named examples, each a function of (version, types) giving a Case.

An operator module builds an `Operator` and registers its examples; everything else (which type
bindings exist, case names, the model, the files, the index, coverage) is done once, in emit.py.
"""

from __future__ import annotations

import hashlib
import inspect
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import numpy as np
import onnx

from onnx_conformance.generators.ops import snake
from onnx_conformance.generators.semantics import Rejected, Semantics, formal_inputs, named_outputs
from onnx_conformance.generators.spec import OpVersion
# the value kinds live in kinds.py (exact.py reads them without the case model); operator modules
# import them from here, with the rest of what they speak
from onnx_conformance.generators.kinds import Declared, Map, Opt, Seq, tensor_str, type_of  # noqa: F401
from onnx_conformance.harness.dtypes import numpy_of


@dataclass(frozen=True)
class NotApplicable:
    """An example that does not exist for this (version, types), and the spec's reason why."""

    reason: str


@dataclass
class Const:
    """An input held in the model as an initializer instead of fed from test data."""

    value: Any


def slug(type_name: str) -> str:
    """A type for a case name: 'float' -> 'float', 'optional(seq(tensor(int8)))' -> 'optional_seq_int8',
    'map(int64, string)' -> 'map_int64_string'."""
    return type_name.replace("tensor(", "").replace("(", "_").replace(")", "").replace(", ", "_").replace(",", "_")


@dataclass
class Case:
    """One example, concrete: what the node gets, and what the backend must answer.

    `inputs` and `outputs` map the node's formal names to values, in the schema's order; None
    stands for an optional input or output left out. An input wrapped in Const is an initializer.
    `error` (the spec sentence the model breaks) makes the case expect-error; its outputs are
    Declared, never values.
    """

    inputs: dict[str, Any]
    outputs: dict[str, Any]
    attrs: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    tolerance: dict | None = None
    # Values of the enclosing graph that a subgraph attribute reads by name (If's branches, Loop's
    # body): graph inputs fed from test data after the node's own, not inputs of the node.
    outer: dict[str, Any] = field(default_factory=dict)
    # ai.onnx nodes placed before the operator (Gradient differentiates a graph computed in the
    # model): onnx.NodeProto's, reading graph inputs or earlier nodes' outputs. Values they compute
    # are not graph inputs. With `nodes_opset`, a model of another domain also imports ai.onnx at
    # that opset (for these nodes, or for ai.onnx nodes inside the operator's subgraph attributes).
    nodes: list = field(default_factory=list)
    nodes_opset: int | None = None
    # Expected values whose formula needs more intermediate precision than the spec guarantees
    # (a sum that overflows the type on the way to a representable mean): {"reason": why,
    # "outputs": {output position: [flat indices]}}. A backend wrong only there gets `warn`.
    quality: dict | None = None

    @property
    def kind(self) -> str:
        return "expect-error" if self.error else "expect-output"


# ---------------------------------------------------------------------------------------------
# type bindings


class Types(Mapping):
    """One binding of a version's type parameters, e.g. {"T": "float", "Tind": "int32"}.

    `dtype` is the primary parameter's type (the case's `dtype`); `suffix` the non-default
    bindings of the others, which case names append.
    """

    def __init__(self, binding: dict[str, str], primary: str, suffix: tuple[str, ...]):
        self._b = dict(binding)
        self.primary = primary
        self.suffix = suffix

    def __getitem__(self, param: str) -> str:
        return self._b[param]

    def __iter__(self) -> Iterator[str]:
        return iter(self._b)

    def __len__(self) -> int:
        return len(self._b)

    def __repr__(self) -> str:
        return f"Types({self._b})"

    @property
    def dtype(self) -> str:
        return self._b[self.primary]

    def np(self, param: str | None = None) -> np.dtype:
        return numpy_of(self._b[param or self.primary])


Example = Callable[[OpVersion, Types, np.random.Generator], "Case | NotApplicable"]


class Operator:
    """One operator: its name, its examples, and how its type parameters are bound.

    Every allowed type of the primary parameter is bound with the others at their defaults;
    then every other allowed type of each other parameter, with the rest at their defaults.
    So every (type parameter, type) cell gets the operator's examples at least once.
    """

    def __init__(self, name: str, domain: str = "", primary: str | None = None,
                 defaults: dict[str, str | Callable[[OpVersion, dict], str]] | None = None):
        self.name = name
        self.domain = domain
        self._primary = primary
        self._defaults = defaults or {}
        self.examples: dict[str, Example] = {}
        self.reference_reasons: list[tuple[re.Pattern, str]] = []
        self.body_reasons: list[tuple[re.Pattern, str]] = []
        # The operator's meaning (generators/semantics.py): set by @OPERATOR.semantics.
        self.meaning: Semantics | None = None
        self.meaning_takes_asked = False
        self.meaning_takes_graph = False
        # Where the value is not promised at the type's precision (Case.quality): set by @OPERATOR.quality.
        self.marks: Callable | None = None

    # -- the operator's meaning ------------------------------------------------------------------

    def semantics(self, fn: Semantics) -> Semantics:
        """Decorator: fn(v, attrs, inputs) -> outputs is this operator's meaning, in every version. An
        operator whose outputs depend on which of them the node asks for (Split before 18: as many parts
        as outputs) takes a fourth parameter `asked`: one bool per node output, True where it is named. One
        whose meaning is about the graph around its node (Gradient differentiates the nodes before it) takes
        `graph`: the evaluator's exact.Enclosing, None where there is no model (Operator.run)."""
        if self.meaning is not None:
            raise ValueError(f"{self.name}: semantics stated twice")
        self.meaning = fn
        params = inspect.signature(fn).parameters
        self.meaning_takes_asked = "asked" in params
        self.meaning_takes_graph = "graph" in params
        return fn

    def quality(self, fn: Callable) -> Callable:
        """Decorator: fn(v, attrs, inputs, outputs) -> Case.quality or None marks the expected values a
        computation in the type itself cannot reach; `expect` applies it to every case it makes (an
        example's own marks, or a drawn node's in explore-cases), unless the case gives its own."""
        self.marks = fn
        return fn

    def meaning_of(self, v: OpVersion, attrs: dict, inputs: dict, asked: tuple | None, graph=None) -> dict:
        """The semantics on inputs by formal name (exact.py's and run's one way in); `asked` and `graph`
        where it wants them."""
        if self.meaning_takes_graph:
            return self.meaning(v, attrs, inputs, graph=graph, **({"asked": asked} if self.meaning_takes_asked else {}))
        if self.meaning_takes_asked:
            return self.meaning(v, attrs, inputs, asked=asked)
        return self.meaning(v, attrs, inputs)

    def run(self, v: OpVersion, inputs: dict, attrs: dict | None = None, outer: dict | None = None,
            nodes_opset: int | None = None, asked: tuple | None = None) -> dict:
        """The semantics on the case model's inputs (one key per graph value, a variadic parameter's
        values under names of their own), by formal output name. Graph attributes become callables
        that run the graph exactly, reading `outer` (the enclosing graph's values) by name."""
        if self.meaning is None:
            raise NotImplementedError(f"{self.name}: no semantics stated")
        attrs = dict(attrs or {})
        plain = {k: (x.value if isinstance(x, Const) else x) for k, x in inputs.items()}
        if any(isinstance(a, onnx.GraphProto) for a in attrs.values()):
            from onnx_conformance.generators.exact import bind_graphs

            # in the model, the node's inputs are graph values of those names: in scope for its subgraphs
            attrs = bind_graphs(attrs, v, self.domain, {**plain, **(outer or {})}, nodes_opset)
        return self.meaning_of(v, attrs, formal_inputs(v.schema, plain), asked)

    def expect(self, v: OpVersion, inputs: dict, attrs: dict | None = None, *,
               outputs: list | None = None, **fields) -> Case:
        """A Case whose expected outputs are this operator's semantics on `inputs`: the example is
        data. `outputs`: the node's output names in order (None: an optional output left out);
        default, the schema's non-variadic outputs the semantics computed. `fields`: the Case's others
        (tolerance, outer, quality, ...)."""
        asked = None if outputs is None else tuple(name is not None for name in outputs)
        computed = self.run(v, inputs, attrs, fields.get("outer"), fields.get("nodes_opset"), asked)
        if outputs is None:
            outputs = [o.name for o in v.schema.outputs if o.name in computed]
        if self.marks is not None and fields.get("quality") is None:
            fields["quality"] = self.marks(v, attrs or {}, inputs, computed)
        return Case(inputs, named_outputs(v.schema, computed, outputs), dict(attrs or {}), **fields)

    def reject(self, v: OpVersion, inputs: dict, attrs: dict | None, declared: dict, **fields) -> Case:
        """An expect-error Case: the semantics must reject these inputs, and the case's reason is the
        sentence it quotes. `declared`: the outputs the graph declares (Declared values)."""
        try:
            self.run(v, inputs, attrs, fields.get("outer"), fields.get("nodes_opset"),
                     tuple(value is not None for value in declared.values()))
        except Rejected as e:
            return Case(inputs, declared, dict(attrs or {}), error=e.sentence, **fields)
        raise AssertionError(f"{self.name}-{v.since_version}: the semantics accepts a rejection example's inputs")

    def reference_differs(self, pattern: str, reason: str) -> None:
        """Why onnx's ReferenceEvaluator disagrees with our value wherever `pattern` (a regex) is found
        in '<example> <dtype>: <the comparator's detail>'; cases/crosscheck.md lists each disagreement
        with its reason, and one with none as unexplained."""
        self.reference_reasons.append((re.compile(pattern), reason))

    def why_reference_differs(self, text: str) -> str | None:
        return next((reason for pattern, reason in self.reference_reasons if pattern.search(text)), None)

    def body_differs(self, pattern: str, reason: str) -> None:
        """Why the operator's function body, run node by node, gives another value than the operator's
        text wherever `pattern` is found in '<example> <dtype>: <the comparator's detail>' (cases/expanded.md)."""
        self.body_reasons.append((re.compile(pattern), reason))

    def why_body_differs(self, text: str) -> str | None:
        return next((reason for pattern, reason in self.body_reasons if pattern.search(text)), None)

    def example(self, fn: Example | None = None, *, name: str | None = None):
        """Decorator: register fn as the example named after it (or `name`)."""

        def register(f: Example) -> Example:
            key = name or f.__name__
            if key in self.examples:
                raise ValueError(f"{self.name}: two examples named {key}")
            self.examples[key] = f
            return f

        return register(fn) if fn is not None else register

    def rejection(self, fn: Example | None = None, *, name: str | None = None):
        """Decorator: register fn as an expect-error example, emitted in one binding per version
        (a rejection case is about a rule, not a type; see once_per_version)."""

        def register(f: Example) -> Example:
            def once(v: OpVersion, t: Types, rng: np.random.Generator):
                return once_per_version(v, t) or f(v, t, rng)

            once.__doc__ = f.__doc__
            self.example(once, name=name or f.__name__)
            return f

        return register(fn) if fn is not None else register

    def case(self, example: str, v: OpVersion, t: Types, rng: np.random.Generator) -> Case | NotApplicable:
        return self.examples[example](v, t, rng)

    def primary_param(self, v: OpVersion) -> str:
        """The stated primary parameter, else the one allowing the most types (first on a tie)."""
        params = v.type_params
        if self._primary in params:
            return self._primary
        return max(params, key=lambda p: len(params[p])) if params else ""

    def default_type(self, v: OpVersion, param: str, binding: dict[str, str]) -> str:
        allowed = v.type_params[param]
        stated = self._defaults.get(param)
        if callable(stated):
            stated = stated(v, binding)
        for candidate in (stated, "int64", "float"):
            if candidate in allowed:
                return candidate
        return allowed[0]

    def bindings(self, v: OpVersion) -> list[Types]:
        params = v.type_params
        if not params:
            return [Types({}, "", ())]
        primary = self.primary_param(v)
        others = [p for p in params if p != primary]

        def complete(binding: dict[str, str]) -> dict[str, str]:
            for p in others:
                if p not in binding:
                    binding[p] = self.default_type(v, p, binding)
            return {p: binding[p] for p in params}

        out, seen = [], set()

        def add(binding: dict[str, str]) -> None:
            key = tuple(binding.items())
            if key in seen:
                return
            seen.add(key)
            defaults = complete({primary: binding[primary]})
            suffix = tuple(_suffix(v, p, binding[p], others) for p in others if binding[p] != defaults[p])
            out.append(Types(binding, primary, suffix))

        for t in params[primary]:
            add(complete({primary: t}))
        base = "float" if "float" in params[primary] else params[primary][0]
        for p in others:
            for t in params[p]:
                add(complete({primary: base, p: t}))
        return out


def once_per_version(v: OpVersion, t: Types) -> NotApplicable | None:
    """Rejection cases are about a rule, not a type: emit them in one binding per version
    (float where allowed, else the first allowed type, the other parameters at their defaults)."""
    allowed = v.type_params.get(t.primary, ())
    first = "float" if "float" in allowed else (allowed[0] if allowed else "")
    if t.dtype != first or t.suffix:
        return NotApplicable(f"rejection cases are emitted once per version, in {first}")
    return None


def _suffix(v: OpVersion, param: str, type_name: str, others: list[str]) -> str:
    """A non-default binding in a case name: its type, prefixed by the input it types when another
    parameter allows the same type (OneHot's T1 and T2: 'indices_uint8', 'depth_uint8')."""
    if any(type_name in v.type_params[p] for p in others if p != param):
        formal = next((i.name for i in (*v.schema.inputs, *v.schema.outputs) if i.type_str == param), param)
        return f"{formal}_{type_name}"
    return type_name


# ---------------------------------------------------------------------------------------------
# names and seeds


def case_name(op: str, example: str, opset: int, dtype: str, suffix: tuple[str, ...] = ()) -> str:
    tail = "".join(f"_{slug(s)}" for s in suffix)
    return f"test_{snake(op)}_{example}_opset{opset}_{slug(dtype)}{tail}"


def seeded_rng(*key) -> np.random.Generator:
    """Random data seeded by the case's identity (opset aside: both opsets see the same data)."""
    digest = hashlib.sha256("|".join(map(str, key)).encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))
