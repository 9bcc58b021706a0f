"""The exact evaluator: any ONNX model run node by node through the operators' semantics functions.

Each node's outputs are what its operator's semantics (generators/semantics.py) says for the
version in force at the model's opset of its domain: exact or correctly rounded to the output's
type. A model-local function, or an operator whose meaning the spec gives only as a function body
and whose module states no semantics, is run through its body. Graph attributes (If, Loop, Scan,
SequenceMap) become callables that run the subgraph with the enclosing graph's values in scope; an
operator whose meaning is about the graph around it (Gradient) is handed that graph (`Enclosing`).
What it cannot compute it declines (`CannotEvaluate`), in its own words.
"""

from __future__ import annotations

from collections import ChainMap
from functools import lru_cache
from typing import Any, Callable

import numpy as np
import onnx
from onnx import helper, numpy_helper

from onnx_conformance.generators.kinds import Map, Opt, Seq, type_of
from onnx_conformance.generators.spec import OpVersion, versions
from onnx_conformance.harness.dtypes import elem_type_of, name_of, numpy_of


class CannotEvaluate(Exception):
    """The evaluator has no meaning for a node: an operator no module states, a version without
    semantics yet, a domain it does not know."""


# ---------------------------------------------------------------------------------------------
# operators and their versions


@lru_cache(maxsize=None)
def operator(domain: str, op_type: str):
    """The OPERATOR of op_type's module (generators/ops/<snake name>.py), or None. Only that module
    is imported: a model of a few operators does not import two hundred."""
    import importlib

    from onnx_conformance.generators.ops import snake

    try:
        module = importlib.import_module(f"onnx_conformance.generators.ops.{snake(op_type)}")
    except ImportError:
        module = None
    op = getattr(module, "OPERATOR", None)
    if op is None or (op.name, op.domain) != (op_type, domain):
        from onnx_conformance.generators.ops import all_operators  # a module named otherwise (IsNaN: is_nan)

        op = next((o for o in all_operators().values() if (o.name, o.domain) == (op_type, domain)), None)
    return op


def _domain(domain: str) -> str:
    return "" if domain in ("", "ai.onnx") else domain


def version_in_force(op_type: str, domain: str, opset: int) -> OpVersion:
    """The schema version of op_type in force at `opset` of its domain."""
    found = _in_force(op_type, domain, opset)
    if found is None:
        where = f"domain {domain!r}" if domain else "ai.onnx"
        raise CannotEvaluate(f"{op_type}: no operator of that name in {where} at opset {opset}")
    return found


@lru_cache(maxsize=None)
def _in_force(op_type: str, domain: str, opset: int) -> OpVersion | None:
    try:
        found = [v for v in versions(op_type, domain) if v.since_version <= opset]
    except KeyError:
        found = []
    return found[-1] if found else None


# ---------------------------------------------------------------------------------------------
# values: the harness's plain values <-> the case model's typed values


def type_name(tp: onnx.TypeProto) -> str:
    """A TypeProto in the spec's words: 'float', 'seq(tensor(int8))', 'optional(float)', 'map(int64, string)'."""
    kind = tp.WhichOneof("value")
    if kind == "tensor_type":
        return name_of(tp.tensor_type.elem_type)
    if kind == "sequence_type":
        inner = type_name(tp.sequence_type.elem_type)
        return f"seq({inner if '(' in inner else f'tensor({inner})'})"
    if kind == "optional_type":
        inner = type_name(tp.optional_type.elem_type)
        return f"optional({inner if '(' in inner else f'tensor({inner})'})"
    if kind == "map_type":
        return f"map({name_of(tp.map_type.key_type)}, {type_name(tp.map_type.value_type)})"
    raise CannotEvaluate(f"a value of type {kind or 'unset'} is beyond the evaluator")


def from_plain(value: Any, tp: onnx.TypeProto) -> Any:
    """A value as the harness reads it (array, list, dict, None) in the case model's form (array, Seq, Opt, Map)."""
    kind = tp.WhichOneof("value")
    if kind == "optional_type":
        inner = tp.optional_type.elem_type
        content = None if value is None else from_plain(value, inner)
        name = type_name(inner)
        return Opt(content, name[len("tensor("):-1] if name.startswith("tensor(") else name)
    if kind == "sequence_type":
        inner = tp.sequence_type.elem_type
        name = type_name(inner)
        return Seq([from_plain(x, inner) for x in value], name)
    if kind == "map_type":
        key, val = name_of(tp.map_type.key_type), type_name(tp.map_type.value_type)
        return Map({k: np.asarray(x).item() if np.ndim(x) == 0 else x for k, x in value.items()}, key, val)
    if kind == "tensor_type":
        arr = np.asarray(value)
        want = name_of(tp.tensor_type.elem_type)
        if want == "string":
            return arr.astype(object)
        return arr if arr.dtype == numpy_of(want) else arr.astype(numpy_of(want))
    return value


def to_plain(value: Any) -> Any:
    """A case-model value as the harness compares it: arrays, lists, dicts, None."""
    if isinstance(value, Opt):
        return None if value.value is None else to_plain(value.value)
    if isinstance(value, Map):
        dt = object if value.value == "string" else numpy_of(value.value)
        return {k: np.array(x, dtype=dt) for k, x in value.items.items()}
    if isinstance(value, Seq):
        return [to_plain(x) for x in value.items]
    return np.asarray(value)


def _type_proto(value: Any) -> onnx.TypeProto:
    """A value's TypeProto (what a context-dependent function body is built for)."""
    if isinstance(value, Opt):
        inner = value.value if value.value is not None else None
        if inner is None:
            name = value.type
            return helper.make_optional_type_proto(_type_of_name(name))
        return helper.make_optional_type_proto(_type_proto(inner))
    if isinstance(value, Seq):
        if value.items:
            return helper.make_sequence_type_proto(_type_proto(value.items[0]))
        return helper.make_sequence_type_proto(_type_of_name(value.elem))
    if isinstance(value, Map):
        return helper.make_map_type_proto(elem_type_of(value.key), _type_of_name(value.value))
    arr = np.asarray(value)
    return helper.make_tensor_type_proto(elem_type_of(type_of(arr)), arr.shape)


def _type_of_name(name: str) -> onnx.TypeProto:
    if name.startswith("seq("):
        return helper.make_sequence_type_proto(_type_of_name(name[4:-1]))
    if name.startswith("optional("):
        return helper.make_optional_type_proto(_type_of_name(name[9:-1]))
    if name.startswith("tensor("):
        name = name[7:-1]
    return helper.make_tensor_type_proto(elem_type_of(name), None)


# ---------------------------------------------------------------------------------------------
# attributes


def attribute_value(a: onnx.AttributeProto) -> Any:
    """An attribute as the semantics take it: as onnx.helper.make_node was given it (text as str)."""
    value = helper.get_attribute_value(a)
    if a.type == onnx.AttributeProto.STRING:
        return value.decode("utf-8")
    if a.type == onnx.AttributeProto.STRINGS:
        return [s.decode("utf-8") for s in value]
    return value


class Subgraph:
    """A graph attribute, bound to the scope of the node that holds it: calling it runs the graph
    exactly on its inputs (in the graph's input order) and returns its outputs in order."""

    def __init__(self, evaluator: "Evaluator", graph: onnx.GraphProto, scope: ChainMap):
        self.evaluator, self.graph, self.scope = evaluator, graph, scope

    @property
    def input_names(self) -> list[str]:
        return [i.name for i in self.graph.input]

    @property
    def output_names(self) -> list[str]:
        return [o.name for o in self.graph.output]

    def output_type(self, k: int) -> tuple[str, tuple | None]:
        """The k-th output's declared type ('float', 'seq(tensor(int8))') and, for a tensor whose every
        dimension is a number, its shape (else None)."""
        tp = self.graph.output[k].type
        shape = None
        if tp.WhichOneof("value") == "tensor_type" and tp.tensor_type.HasField("shape"):
            dims = tp.tensor_type.shape.dim
            if all(d.HasField("dim_value") for d in dims):
                shape = tuple(d.dim_value for d in dims)
        return type_name(tp), shape

    def __call__(self, *values) -> list:
        return self.evaluator.run_graph(self.graph, list(values), self.scope)


class Enclosing:
    """The graph around a node, for an operator whose meaning is about that graph (Gradient differentiates
    the nodes before it): those nodes, and any of them run exactly on values of the caller's choosing."""

    def __init__(self, evaluator: "Evaluator", node: onnx.NodeProto, scope: ChainMap, opsets: dict[str, int]):
        self.evaluator, self.node, self.scope, self.opsets = evaluator, node, scope, opsets
        nodes = list(evaluator.nodes)
        at = next((k for k, n in enumerate(nodes) if n is node), None)
        self.before = nodes[:at if at is not None else nodes.index(node)]

    def version(self, node: onnx.NodeProto) -> OpVersion:
        """The version of node's operator in force here."""
        domain = _domain(node.domain)
        if domain not in self.opsets:
            raise CannotEvaluate(f"{node.op_type}: the model imports no opset of domain {domain!r}")
        return version_in_force(node.op_type, domain, self.opsets[domain])

    def run(self, node: onnx.NodeProto, values: dict) -> list:
        """node's outputs, its inputs read from `values`, else from the graph's values."""
        scope = self.scope.new_child(dict(values))
        self.evaluator.run_node(node, scope, self.opsets)
        return [scope.maps[0].get(name) if name else None for name in node.output]


# ---------------------------------------------------------------------------------------------
# the evaluator


class Evaluator:
    """Runs one model (or, for examples, one operator's subgraphs) exactly.

    `opsets`: domain -> opset version; `functions`: the model's local functions by (domain, name);
    `progress`: called with (node index, node count, node) before each top-level node."""

    def __init__(self, opsets: dict[str, int], functions: dict | None = None,
                 progress: Callable[[int, int, onnx.NodeProto], None] | None = None):
        self.opsets = {_domain(d): v for d, v in opsets.items()}
        self.functions = functions or {}
        self.progress = progress
        self.nodes: Any = ()  # the nodes of the graph (or function body) being run: what Enclosing sees

    @classmethod
    def for_model(cls, model: onnx.ModelProto, progress=None) -> "Evaluator":
        opsets = {o.domain: o.version for o in model.opset_import}
        functions = {(_domain(f.domain), f.name): f for f in model.functions}
        return cls(opsets, functions, progress)

    # -- graphs -----------------------------------------------------------------------------------

    def run_model(self, model: onnx.ModelProto, feeds: list) -> list:
        """The model's outputs (plain values) for `feeds`, one per graph input in order (an input
        left unfed takes its initializer)."""
        graph = model.graph
        if len(feeds) > len(graph.input):
            raise ValueError(f"got {len(feeds)} inputs, the model declares {len(graph.input)}")
        typed = [from_plain(x, i.type) for x, i in zip(feeds, graph.input)]
        outputs = self.run_graph(graph, typed, ChainMap(), top=True)
        for value, declared in zip(outputs, graph.output):
            self._check_declared(value, declared)
        return [to_plain(x) for x in outputs]

    def run_graph(self, graph: onnx.GraphProto, values: list, outer: ChainMap, top: bool = False) -> list:
        scope = outer.new_child()
        for init in graph.initializer:
            scope[init.name] = _array(numpy_helper.to_array(init))
        for sparse in graph.sparse_initializer:
            scope[sparse.values.name] = _array(_dense(sparse))
        for formal, value in zip(graph.input, values):
            scope[formal.name] = _as_declared(value, formal.type)
        missing = [i.name for i in graph.input[len(values):] if i.name not in scope]
        if missing:
            raise ValueError(f"graph {graph.name!r}: no value for input {missing[0]!r}")
        count = len(graph.node)
        enclosing, self.nodes = self.nodes, graph.node
        for k, node in enumerate(graph.node):
            if top and self.progress:
                self.progress(k, count, node)
            self.run_node(node, scope, self.opsets)
        self.nodes = enclosing
        return [_as_declared(scope[o.name], o.type) for o in graph.output]

    # -- nodes -----------------------------------------------------------------------------------

    def run_node(self, node: onnx.NodeProto, scope: ChainMap, opsets: dict[str, int],
                 caller: dict[str, onnx.AttributeProto] | None = None) -> None:
        """Computes one node's outputs into scope. `caller`: inside a function body, the calling
        node's attributes, which the body's attribute references read."""
        attributes = _resolve(node.attribute, caller)
        domain = _domain(node.domain)
        inputs = [scope[name] if name else None for name in node.input]
        local = self.functions.get((domain, node.op_type))
        if local is not None:
            outputs = self.call_function(local, inputs, attributes)
        else:
            outputs = self.call_operator(node, domain, inputs, attributes, scope, opsets)
        for name, value in zip(node.output, outputs):
            if name:
                if isinstance(value, Exception):  # an output the semantics leaves undefined, asked for
                    raise value
                if value is None:
                    raise CannotEvaluate(f"{node.op_type}: its semantics gives no value for output {name!r}")
                scope[name] = value

    def call_operator(self, node, domain: str, inputs: list, attributes: list, scope: ChainMap,
                      opsets: dict[str, int]) -> list:
        if domain not in opsets:
            raise CannotEvaluate(f"{node.op_type}: the model imports no opset of domain {domain!r}")
        v = version_in_force(node.op_type, domain, opsets[domain])
        op = operator(domain, node.op_type)
        if op is not None and op.meaning is not None:
            attrs = {}
            for a in attributes:
                attrs[a.name] = (Subgraph(self, a.g, scope) if a.type == onnx.AttributeProto.GRAPH
                                 else attribute_value(a))
            graph = Enclosing(self, node, scope, opsets) if op.meaning_takes_graph else None
            computed = op.meaning_of(v, attrs, _formal(v.schema, inputs), tuple(bool(n) for n in node.output), graph)
            return _positional(v, computed, len(node.output))
        body = _schema_body(v, node, inputs, opsets[domain])
        if body is not None:
            return self.call_function(body, inputs, attributes)
        why = "no generator module states it" if op is None else "its module states no semantics yet"
        raise CannotEvaluate(f"{node.op_type}-{v.since_version}: {why}")

    def call_function(self, function: onnx.FunctionProto, inputs: list, attributes: list) -> list:
        """A function body run with the node's inputs; its attribute references read the node's
        attributes, else the function's defaults."""
        given = {a.name: a for a in attributes}
        for default in function.attribute_proto:
            given.setdefault(default.name, default)
        opsets = dict(self.opsets)
        opsets.update({_domain(o.domain): o.version for o in function.opset_import})
        scope: ChainMap = ChainMap()
        for k, name in enumerate(function.input):  # a formal input the call leaves out is absent
            if name:
                scope[name] = inputs[k] if k < len(inputs) else None
        enclosing, self.nodes = self.nodes, function.node
        for node in function.node:
            self.run_node(node, scope, opsets, given)
        self.nodes = enclosing
        return [scope.get(name) for name in function.output]

    @staticmethod
    def _check_declared(value: Any, declared: onnx.ValueInfoProto) -> None:
        """An output whose element type is not the declared one is a bug in a semantics function."""
        tp = declared.type
        if tp.WhichOneof("value") == "tensor_type" and tp.tensor_type.elem_type:
            want = name_of(tp.tensor_type.elem_type)
            got = type_of(value)
            if got != want:
                raise TypeError(f"output {declared.name!r}: computed {got}, the model declares {want}")


# ---------------------------------------------------------------------------------------------
# helpers


def _as_declared(value: Any, tp: onnx.TypeProto) -> Any:
    """A value where the graph declares an optional of its type: that optional, holding it (a Loop body's
    optional(seq) input carrying the sequence its previous iteration made)."""
    if tp.WhichOneof("value") == "optional_type" and value is not None and not isinstance(value, Opt):
        inner = type_name(tp.optional_type.elem_type)
        return Opt(value, inner[len("tensor("):-1] if inner.startswith("tensor(") else inner)
    return value


def bind_graphs(attrs: dict, v: OpVersion, domain: str, outer: dict, nodes_opset: int | None = None) -> dict:
    """An example's attributes with each GraphProto bound as a Subgraph reading `outer` (the enclosing
    graph's values, Case.outer), run at the version's first opset."""
    opsets = {_domain(domain): v.first_opset}
    if _domain(domain):
        opsets[""] = nodes_opset or onnx.defs.onnx_opset_version()
    evaluator = Evaluator(opsets)
    scope = ChainMap(dict(outer))
    return {k: Subgraph(evaluator, a, scope) if isinstance(a, onnx.GraphProto) else a for k, a in attrs.items()}


def _resolve(attributes, caller: dict | None) -> list[onnx.AttributeProto]:
    """A node's attributes with references to the calling function's attributes replaced by them
    (a reference with no value given and no default is left out, as the spec says)."""
    out = []
    for a in attributes:
        if a.ref_attr_name:
            if caller is None or a.ref_attr_name not in caller:
                continue
            resolved = onnx.AttributeProto()
            resolved.CopyFrom(caller[a.ref_attr_name])
            resolved.name = a.name
            out.append(resolved)
        else:
            out.append(a)
    return out


def _formal(schema, inputs: list) -> dict:
    """A node's inputs by position as semantics takes them: by formal name, the variadic last one a list."""
    out = {}
    for k, (name, variadic) in enumerate(_signature(schema)[0]):
        if variadic:
            out[name] = list(inputs[k:])
            return out
        out[name] = inputs[k] if k < len(inputs) else None
    return out


def _positional(v: OpVersion, computed: dict, count: int) -> list:
    """The semantics' outputs, by formal name, as the node's outputs by position."""
    out = []
    for name, variadic in _signature(v.schema)[1]:
        if variadic:
            out.extend(computed.get(name, []))
            break
        out.append(computed.get(name))
    return out[:count]


_SIGNATURES: dict = {}


def _signature(schema) -> tuple:
    """((name, variadic) of each formal input, the same of each output): read from the schema once (its
    pybind accessors cost more than the rest of a small node), kept with the schema so its id stays its own."""
    got = _SIGNATURES.get(id(schema))
    if got is None or got[0] is not schema:
        sides = tuple(tuple((f.name, f.option.name == "Variadic") for f in formals)
                      for formals in (schema.inputs, schema.outputs))
        got = _SIGNATURES[id(schema)] = (schema, sides)
    return got[1]


def _schema_body(v: OpVersion, node: onnx.NodeProto, inputs: list, opset: int) -> onnx.FunctionProto | None:
    """The function body the spec gives this operator version at `opset` for these input values, if any."""
    return schema_body(v.schema, node, [_type_proto(x) if x is not None else onnx.TypeProto() for x in inputs], opset)


def schema_body(schema, node: onnx.NodeProto, types: list, opset: int) -> onnx.FunctionProto | None:
    """The function body `schema` gives at `opset` (a context-dependent one: for this node and its
    inputs' TypeProtos), or None where it gives none."""
    raw = None
    if schema.has_function:
        raw = schema.get_function_with_opset_version(opset)  # serialized; b"" where there is none
    elif schema.has_context_dependent_function:
        raw = schema.get_context_dependent_function_with_opset_version(
            opset, node.SerializeToString(), [t.SerializeToString() for t in types])
    if not raw:
        return None
    body = onnx.FunctionProto()
    body.ParseFromString(raw)
    return body if len(body.node) else None


def _array(x: np.ndarray) -> np.ndarray:
    return x.astype(object) if x.dtype.kind in "OUS" else x


def _dense(sparse: onnx.SparseTensorProto) -> np.ndarray:
    """A sparse initializer as its dense value: indices are flat positions ([NNZ]) or coordinates ([NNZ, rank])."""
    values = numpy_helper.to_array(sparse.values)
    indices = numpy_helper.to_array(sparse.indices).astype(np.int64)
    out = np.zeros(tuple(sparse.dims), dtype=values.dtype)
    if indices.ndim == 1:
        flat = out.reshape(-1)
        flat[indices] = values
        return flat.reshape(out.shape)
    out[tuple(indices.T)] = values
    return out
