"""A correct backend with one operator replaced by a mutant (harness/mutants/): how sharp the corpus is.

`--backend mutant --backend-option mutant=Relu.nan_to_zero` runs every case as `reference` does (the
same checker, the same classification of errors) except that one operator computes the mutant's wrong
result. A case that passes on `reference` and not here has killed the mutant (bench/mutation_score.py).
`--backend-option base=exact` swaps the operator in this project's exact semantics instead (the `exact`
backend, its checker and its statuses), for the cases onnx's evaluator itself fails or lacks.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Sequence

import numpy as np
import onnx
from onnx.reference import ReferenceEvaluator

from onnx_conformance.harness.backends.exact import ExactAdapter
from onnx_conformance.harness.backends.reference import ReferenceAdapter


class MutantAdapter(ReferenceAdapter):
    name = "mutant"
    option_help = {
        **ReferenceAdapter.option_help,
        "mutant": "the mutant to run, <Op>.<what> (required; harness/mutants/ lists them, "
        "bench/mutation_score.py --list prints them)",
        "base": "the correct backend the mutant is swapped into: reference (default), onnx's ReferenceEvaluator; "
        "exact, this project's semantics (harness/backends/exact.py)",
    }

    def __init__(self, options: dict[str, str] | None = None):
        super().__init__(options)
        from onnx_conformance.harness import mutants

        name = self.options.get("mutant")
        if not name:
            raise ValueError("option mutant=<Op>.<what> is required (bench/mutation_score.py --list names them)")
        self.mutant = mutants.find(name)
        self.base = self.options.get("base", "reference")
        if self.base not in BASES:
            raise ValueError(f"option base must be one of {', '.join(BASES)}, got {self.base!r}")
        # on the exact base, everything but the one operator is the `exact` backend's
        self.exact = ExactAdapter({"check": "1" if self.check else "0"}) if self.base == "exact" else None

    @property
    def version(self) -> str:
        if self.exact is not None:
            return f"{self.exact.version} with mutant {self.mutant.name}"
        return f"{onnx.__version__} with mutant {self.mutant.name}"

    def prepare(self, model_path: str) -> Any:
        if self.exact is not None:
            model, _ = self.exact.prepare(model_path)  # loaded and checked exactly as `exact` does
            evaluator = _mutated_evaluator().for_model(model)
            evaluator.mutant = self.mutant
            return model, evaluator
        plain = super().prepare(model_path)  # loaded and checked exactly as `reference` does
        # the graph's value types, for an operator whose function body depends on them (Gelu)
        return ReferenceEvaluator(plain.proto_, new_ops=[mutated(self.mutant, plain.all_types_ or {})])

    def run(self, prepared: Any, inputs: Sequence[Any]) -> list[Any]:
        if self.exact is not None:
            return self.exact.run(prepared, inputs)
        return super().run(prepared, inputs)

    def classify(self, exc: BaseException, stage: str) -> str:
        if self.exact is not None:
            return self.exact.classify(exc, stage)
        return super().classify(exc, stage)


# the correct backends a mutant can be swapped into (option base=); the first is the default
BASES = ("reference", "exact")


def mutated(mutant, types: dict) -> type:
    """The class ReferenceEvaluator's `new_ops` takes for the mutant's operator.

    `new_ops` replaces an operator by (domain, name) at every version, so the class builds onnx's own
    implementation for the node's version and, where the mutant applies to that version, wraps its
    `_run`: `__new__` returns that instance, whichever onnx class (or function body) implements it.
    `types` (value name -> TypeProto) serves a function body that depends on its input types.
    """
    from onnx.reference.op_run import OpRun, RuntimeContextError
    from onnx.reference.ops import load_op

    from onnx_conformance.harness.mutants import Call

    def __new__(cls, onnx_node, run_params, *args, **kwargs):
        version = run_params["opsets"][onnx_node.domain]
        load = dict(evaluator_cls=run_params.get("evaluator_cls"))
        try:
            impl = load_op(onnx_node.domain, onnx_node.op_type, version, **load)
        except RuntimeContextError:  # as ReferenceEvaluator._init does
            impl = load_op(onnx_node.domain, onnx_node.op_type, version, node=onnx_node,
                           input_types=[types.get(name) for name in onnx_node.input], **load)
        impl = impl(onnx_node, run_params)
        schema = onnx.defs.get_schema(onnx_node.op_type, version, onnx_node.domain)
        if mutant.applies_to(schema.since_version):
            _wrap(impl, mutant, Call(run=None, node=onnx_node, since=schema.since_version,
                                     defaults=_defaults(schema, impl._extract_attribute_value)))
        return impl

    return type(mutant.op, (OpRun,), {"op_domain": mutant.domain, "__new__": __new__})


def _defaults(schema, convert) -> dict:
    """Each attribute's schema default as the base converts it, convert(value, attribute) (None where the
    schema has none)."""
    found = {}
    for name, attribute in schema.attributes.items():
        value = attribute.default_value
        undefined = value.type == 0 or (value.type == onnx.AttributeProto.TENSOR and value.t.data_type == 0)
        found[name] = None if undefined else convert(value, attribute)
    return found


def _wrap(impl, mutant, call) -> None:
    """impl._run becomes the mutant, handed a `call` whose run(*inputs, **attributes) is the correct _run.

    onnx's unary and binary operators read their attributes from the instance and the others take them
    as keywords: the mutant sees them all as keywords, and what it changes reaches the correct _run both ways.
    """
    correct = impl._run
    names = set(getattr(impl, "attributes_names_", ()))

    def _run(*inputs, **kwargs):
        keywords = set(kwargs)

        def run(*args, **attrs):
            saved = {k: getattr(impl, k) for k in attrs if k in names}
            for k in saved:
                setattr(impl, k, attrs[k])
            try:
                return correct(*args, **{k: v for k, v in attrs.items() if k in keywords})
            finally:
                for k, v in saved.items():
                    setattr(impl, k, v)

        attrs = {k: getattr(impl, k) for k in names}
        attrs.update(kwargs)
        call.run = run
        return mutant.wrong(call, *inputs, **attrs)

    impl._run = _run


# --- the exact base ---------------------------------------------------------------------------------


@lru_cache(maxsize=None)
def _mutated_evaluator() -> type:
    """generators/exact.py's Evaluator with the mutant's operator (its `mutant`) computed by the mutant.

    The mutant is written against onnx's evaluator, so it is handed what that evaluator hands an operator:
    inputs by position (None for an absent optional one; a sequence as a list, an optional as its content
    or None), every schema attribute as a keyword (the node's value, else the schema's default, else None;
    text as str, a graph as its GraphProto) and a `call` whose run(*inputs, **attributes) is this
    project's semantics of the node's version (what the `exact` backend computes), outputs as a tuple in
    the node's output order. What it returns goes back into the graph as the correct outputs' kinds.
    """
    from onnx_conformance.generators.exact import Evaluator, attribute_value, version_in_force

    from onnx_conformance.harness.mutants import Call

    class MutatedEvaluator(Evaluator):
        mutant = None

        def call_operator(self, node, domain, inputs, attributes, scope, opsets):
            m = self.mutant
            if (node.op_type, domain) != (m.op, m.domain) or domain not in opsets:
                return super().call_operator(node, domain, inputs, attributes, scope, opsets)
            v = version_in_force(node.op_type, domain, opsets[domain])
            if not m.applies_to(v.since_version):
                return super().call_operator(node, domain, inputs, attributes, scope, opsets)
            correct = super().call_operator
            given = {a.name: a for a in attributes}
            defaults = _defaults(v.schema, lambda value, _: attribute_value(value))
            handed = {**defaults, **{k: attribute_value(a) for k, a in given.items()}}
            plain = [_plain(x) for x in inputs]
            ran: list = []

            def back(k, x):  # the input handed on unchanged is the very value; another takes its kind
                if k < len(inputs) and x is plain[k]:
                    return inputs[k]
                return _typed(x, inputs[k] if k < len(inputs) else None)

            def run(*args, **attrs):
                typed = [back(k, x) for k, x in enumerate(args)]
                outs = correct(node, domain, typed, _attributes(given, handed, attrs, v.schema), scope, opsets)
                ran[:] = [outs]
                return tuple(_plain(y) for y in outs)

            got = m.wrong(Call(run=run, node=node, since=v.since_version, defaults=defaults), *plain, **handed)
            # the kinds (optional, sequence) of the node's outputs, from the correct semantics where the
            # mutant did not run it
            like = ran[0] if ran else correct(node, domain, inputs, attributes, scope, opsets)
            return [_typed(y, like[k] if k < len(like) else None) for k, y in enumerate(got)]

        @staticmethod
        def _check_declared(value, declared) -> None:
            """Not checked here: the mutated operator's output may be of another type than the graph
            declares (Multinomial.int64_by_default), and the verdict judges that as any backend's."""

    return MutatedEvaluator


def _attributes(given: dict, handed: dict, attrs: dict, schema) -> list:
    """The AttributeProtos the semantics gets for the keywords a mutant runs it with: the node's own where
    the mutant passed on what it was handed, none where that was the schema's default or None, and the
    mutant's value, typed as the schema types the attribute, where it changed one."""
    out = []
    for name, value in attrs.items():
        if value is None:
            continue
        if value is handed.get(name):
            if name in given:
                out.append(given[name])
            continue
        kind = schema.attributes[name].type if name in schema.attributes else None
        out.append(onnx.helper.make_attribute(name, value, attr_type=kind))
    return out


def _plain(value: Any) -> Any:
    """A value of the exact evaluator as onnx's evaluator holds it: an array, a list, a dict or None."""
    from onnx_conformance.generators.exact import to_plain

    if value is None or isinstance(value, Exception):  # absent; an output the semantics leaves undefined
        return value
    return to_plain(value)


def _typed(value: Any, like: Any) -> Any:
    """A value as onnx's evaluator holds it, as the exact evaluator does, in the kind of `like` (the
    correct value in that place): an optional, a sequence or a tensor."""
    from onnx_conformance.generators.kinds import Map, Opt, Seq

    if value is None and not isinstance(like, Opt):
        return None
    if isinstance(value, (Exception, Opt, Seq, Map)):
        return value
    if isinstance(like, Opt):
        if value is None:
            return Opt(None, like.type)
        if like.value is not None:
            return Opt(_typed(value, like.value), like.type)
        if isinstance(value, list):  # an optional sequence, seq(tensor(float)): its tensors' type
            return Opt(Seq([np.asarray(x) for x in value], like.type[len("seq(tensor("):-2]), like.type)
        return Opt(np.asarray(value), like.type)
    if isinstance(like, Seq):
        return Seq([_typed(x, like.items[0] if like.items else None) for x in value], like.elem)
    if isinstance(like, Map) and isinstance(value, dict):
        return Map({k: np.asarray(x).item() if np.ndim(x) == 0 else x for k, x in value.items()}, like.key, like.value)
    return np.asarray(value)
