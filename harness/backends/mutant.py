"""onnx's ReferenceEvaluator with one operator replaced by a mutant (harness/mutants/): how sharp the corpus is.

`--backend mutant --backend-option mutant=Relu.nan_to_zero` runs every case as `reference` does (the
same checker, the same classification of errors) except that one operator computes the mutant's wrong
result. A case that passes on `reference` and not here has killed the mutant (bench/mutation_score.py).
"""

from __future__ import annotations

from typing import Any

import onnx
from onnx.reference import ReferenceEvaluator

from onnx_conformance.harness.backends.reference import ReferenceAdapter


class MutantAdapter(ReferenceAdapter):
    name = "mutant"
    option_help = {
        **ReferenceAdapter.option_help,
        "mutant": "the mutant to run, <Op>.<what> (required; harness/mutants/ lists them, "
        "bench/mutation_score.py --list prints them)",
    }

    def __init__(self, options: dict[str, str] | None = None):
        super().__init__(options)
        from onnx_conformance.harness import mutants

        name = self.options.get("mutant")
        if not name:
            raise ValueError("option mutant=<Op>.<what> is required (bench/mutation_score.py --list names them)")
        self.mutant = mutants.find(name)

    @property
    def version(self) -> str:
        return f"{onnx.__version__} with mutant {self.mutant.name}"

    def prepare(self, model_path: str) -> Any:
        plain = super().prepare(model_path)  # loaded and checked exactly as `reference` does
        # the graph's value types, for an operator whose function body depends on them (Gelu)
        return ReferenceEvaluator(plain.proto_, new_ops=[mutated(self.mutant, plain.all_types_ or {})])


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
                                     defaults=_defaults(impl, schema)))
        return impl

    return type(mutant.op, (OpRun,), {"op_domain": mutant.domain, "__new__": __new__})


def _defaults(impl, schema) -> dict:
    """Each attribute's schema default as onnx's evaluator converts it (None where the schema has none)."""
    found = {}
    for name, attribute in schema.attributes.items():
        value = attribute.default_value
        undefined = value.type == 0 or (value.type == onnx.AttributeProto.TENSOR and value.t.data_type == 0)
        found[name] = None if undefined else impl._extract_attribute_value(value, attribute)
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
