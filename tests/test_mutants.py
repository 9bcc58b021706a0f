"""The mutants (harness/mutants/) are well-formed data, and the corpus still kills one of each family.

The kill test is the cheap guard of issue 31: a change that blunts the example a mutant dies on fails here;
the full score is bench/mutation_score.py.
"""

from __future__ import annotations

import functools
import re

import onnx
import onnx.defs
import pytest

from onnx_conformance.harness import mutants
from onnx_conformance.harness.backends import registry
from onnx_conformance.harness.families import FAMILIES

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

# One mutant per family and the examples of the corpus that kill it: (operator's example, dtype).
KILLS = {
    "Element-wise math": ("Round.half_away_from_zero", "round", "float"),
    "Activations": ("Relu.nan_to_zero", "dtype_range", "float"),
    "Logic, comparison and bits": ("BitShift.amount_modulo_width", "right_shift_ge_width", "int32"),
    "Reduce": ("ReduceSum.noop_with_empty_axes_ignored", "empty_axes_input_noop_example", "float"),
    "Shape and layout": ("Trilu.lower_k_one_less", "tril_neg", "float"),
    "Cast": ("BitCast.converts_value", "float32_to_int32", "float"),
    "Gather, scatter and select": ("TensorScatter.ignores_write_indices", "3d", "float"),
    "Generators": ("Range.limit_included", "doc_example_1", "float"),
    "Control flow, sequences and optionals": ("SequenceErase.erases_first_by_default", "default", "seq(tensor(float))"),
    "Linear algebra": ("Det.sign_lost", "2d", "float"),
    "Convolution": ("CausalConvWithState.ignores_past_state", "decode_step", "float"),
    "Pooling": ("GlobalAveragePool.16bit_accumulation", "default", "float16"),
    "Normalization": ("SwiGLU.ignores_alpha", "alpha_large_gate", "float"),
    "Quantization": ("DynamicQuantizeLinear.ties_away_from_zero", "ties", "float"),
    "Recurrent and attention": ("RotaryEmbedding.ignores_interleaved", "3d_input_interleaved_rotary_dim", "float"),
    "Image and resampling": ("NonMaxSuppression.iou_at_threshold_suppressed", "iou_equal_to_threshold", "float"),
    "Signal": ("HannWindow.symmetric_by_default", "periodic", "float"),
    "Random": ("Bernoulli.probability_complemented", "default", "double"),
    "Losses": ("NegativeLogLikelihoodLoss.sum_by_default", "doc_example_3", "float"),
    "Strings": ("StringConcat.unidirectional", "broadcast_both", "string"),
}


@functools.lru_cache(maxsize=None)
def _all_schemas() -> dict:
    found = {}
    for s in onnx.defs.get_all_schemas_with_history():
        found.setdefault((s.domain, s.name), []).append(s)
    return found


def _schemas(op: str, domain: str) -> list:
    return _all_schemas().get((domain, op), [])


def _words(text: str) -> str:
    return " ".join(text.split())


def _texts(schema) -> str:
    """Everything a schema says in words: its doc, and its attributes', inputs' and outputs' descriptions."""
    parts = [schema.doc or ""]
    parts += [a.description for a in schema.attributes.values()]
    parts += [p.description for p in list(schema.inputs) + list(schema.outputs)]
    return _words(" ".join(parts))


@pytest.mark.parametrize("mutant", mutants.all_mutants(), ids=lambda m: m.name)
def test_every_mutant_is_well_formed(mutant):
    m = mutant
    assert re.fullmatch(rf"{re.escape(m.op)}\.[a-z0-9_]+", m.name), m.name
    assert m.bug in mutants.CLASSES, f"{m.name}: class {m.bug!r} is not one of {mutants.CLASSES}"
    schemas = _schemas(m.op, m.domain)
    assert schemas, f"{m.name}: onnx.defs has no operator {m.op!r} in domain {m.domain!r}"
    versions = [s for s in schemas if m.applies_to(s.since_version)]
    assert versions, f"{m.name}: applies to versions {m.since}, {m.op} has {[s.since_version for s in schemas]}"
    assert m.spec.strip(), f"{m.name}: no spec sentence"
    quoted = _words(m.spec)
    assert any(quoted in _texts(s) for s in versions), (
        f"{m.name}: {m.spec!r} is not in the schema text of {m.op} at versions "
        f"{[s.since_version for s in versions]}")
    for field in (m.note, m.equivalent):
        assert field is None or field.strip(), f"{m.name}: empty note or equivalence reason"
    assert callable(m.wrong)


def test_names_are_unique_and_found_by_name():
    names = [m.name for m in mutants.all_mutants()]
    assert len(names) == len(set(names))
    assert mutants.find("Relu.nan_to_zero").op == "Relu"
    with pytest.raises(ValueError, match="no mutant 'Relu.nothing'; Relu's: "):
        mutants.find("Relu.nothing")


def test_each_family_module_covers_every_operator_of_its_family():
    for module in mutants.family_modules():
        assert module.FAMILY in FAMILIES, f"{module.__name__}: FAMILY {module.FAMILY!r} is not in harness/families.py"
        ops = {m.op for m in module.MUTANTS}
        assert ops <= set(FAMILIES[module.FAMILY]), ops - set(FAMILIES[module.FAMILY])
        live = {m.op for m in module.MUTANTS if not m.equivalent}
        # the family's ai.onnx operators (FlexAttention, of ai.onnx.preview, shares a family with them)
        wanted = {op for op in FAMILIES[module.FAMILY] if ("", op) in _all_schemas()}
        assert live == wanted, f"{module.FAMILY}: no live mutant of {sorted(wanted - live)}"


def test_every_ai_onnx_operator_has_a_live_mutant():
    """Issue 31: at least 300 mutants, at least one live mutant of every operator of the default domain."""
    found = mutants.all_mutants()
    assert len(found) >= 300, f"{len(found)} mutants"
    live = {m.op for m in found if not m.equivalent and m.domain == ""}
    missing = sorted(op for domain, op in _all_schemas() if domain == "" and op not in live)
    assert not missing, f"no live mutant of {missing}"


def test_the_backend_needs_a_known_mutant():
    with pytest.raises(registry.BackendNotFound, match="option mutant=<Op>.<what> is required"):
        registry.load("mutant", {})
    with pytest.raises(registry.BackendNotFound, match="no mutant 'Relu.nothing'"):
        registry.load("mutant", {"mutant": "Relu.nothing"})
    adapter = registry.load("mutant", {"mutant": "Relu.nan_to_zero", "check": "0"})
    assert adapter.mutant.name == "Relu.nan_to_zero" and adapter.version.endswith("with mutant Relu.nan_to_zero")
    assert adapter.base == "reference"  # onnx's evaluator, independent of this project's semantics, by default
    with pytest.raises(registry.BackendNotFound, match="option base must be one of reference, exact, got 'ort'"):
        registry.load("mutant", {"mutant": "Relu.nan_to_zero", "base": "ort"})


@pytest.mark.parametrize("family", sorted(KILLS))
def test_the_corpus_kills_one_mutant_of_each_family(family, tmp_path):
    from onnx_conformance.generators.emit import generate_corpus
    from onnx_conformance.harness.corpus import read_corpus
    from onnx_conformance.harness.statuses import ACCEPTED_AGAINST_A_BASELINE, PASS
    from onnx_conformance.harness.verdict import run_case

    name, example, dtype = KILLS[family]
    mutant = mutants.find(name)
    # the operator generated afresh (no cross-check): its examples as the generators write them now
    generate_corpus(tmp_path, [mutant.op], jobs=1, crosscheck=False)
    # the operator's own node cases: an expanded twin has no node of the operator for the mutant to change
    cases = [c.as_message() for c in read_corpus(tmp_path).cases if c.op == mutant.op and not c.form
             and c.example == example and c.dtype == dtype and mutant.applies_to(c.since_version)]
    assert cases, f"{name}: the corpus has no {mutant.op} example {example!r} in {dtype} any more"
    plain = registry.load("reference", {})
    wrong = registry.load("mutant", {"mutant": name})
    for case in cases:  # the mutant's wrongness must be what fails, not the case
        got = run_case(plain, case)
        assert got["status"] == PASS, f"{case['name']} on the plain evaluator: {got['status']}: {got['detail']}"
    verdicts = {c["name"]: run_case(wrong, c) for c in cases}
    assert any(v["status"] not in ACCEPTED_AGAINST_A_BASELINE for v in verdicts.values()), (
        f"{name} survives {sorted(verdicts)}: the examples no longer tell it from {mutant.op}: {mutant.spec!r}")


# Evaluator gaps: mutants the plain evaluator cannot kill, since it fails or lacks every case that tells (README
# "Sharpness: mutation score"), killed on the exact base: (operator's example, dtype) as in KILLS.
EXACT_KILLS = {
    "LRN.even_window_shifted": ("size_even", "float"),  # the evaluator's LRN fails every case
    "Optional.empty_tensor_as_no_element": ("zero_elements", "float"),  # ... and Optional: an output of kind optional
    "Multinomial.int64_by_default": ("one_class", "float"),  # no Multinomial kernel; one class makes a value
    # the evaluator drops a float 8 zero point too (cases/crosscheck.md): no case that tells passes on it
    "QuantizeLinear.float8_zero_point_dropped": ("float8_zero_point", "float8e4m3fn"),
}


@pytest.mark.parametrize("name", sorted(EXACT_KILLS))
def test_the_exact_base_kills_what_the_evaluator_cannot(name, tmp_path):
    from onnx_conformance.generators.emit import generate_corpus
    from onnx_conformance.harness.corpus import read_corpus
    from onnx_conformance.harness.statuses import FAIL, PASS
    from onnx_conformance.harness.verdict import run_case

    example, dtype = EXACT_KILLS[name]
    mutant = mutants.find(name)
    generate_corpus(tmp_path, [mutant.op], jobs=1, crosscheck=False)
    every = [c.as_message() for c in read_corpus(tmp_path).cases if c.op == mutant.op and not c.form]
    cases = [c for c in every
             if c["example"] == example and c["dtype"] == dtype and mutant.applies_to(c["since_version"])]
    assert cases, f"{name}: the corpus has no {mutant.op} example {example!r} in {dtype} any more"
    plain = registry.load("exact", {})
    # the operator swapped for itself through the adapter, every attribute handed back explicitly (a copy of
    # the schema's default where the node gives none): every case of the operator gets plain exact's verdict,
    # so what kills a mutant is the mutant, not the adapter's calling convention
    itself = registry.load("mutant", {"mutant": name, "base": "exact"})
    itself.mutant = mutants.Mutant(f"{mutant.op}.itself", mutant.op, "wrong defaults", mutant.spec, _itself)
    for case in every:
        assert run_case(itself, case)["status"] == run_case(plain, case)["status"], case["name"]
    wrong = registry.load("mutant", {"mutant": name, "base": "exact"})
    for case in cases:
        got = run_case(plain, case)
        assert got["status"] == PASS, f"{case['name']} on the exact backend: {got['status']}: {got['detail']}"
    verdicts = {c["name"]: run_case(wrong, c) for c in cases}
    # killed by its wrong value (`fail`), not by an error of the adapter's
    assert any(v["status"] == FAIL for v in verdicts.values()), (
        f"{name} survives {sorted(verdicts)} on the exact base: the examples no longer tell it from {mutant.op}: "
        f"{sorted({v['status'] for v in verdicts.values()})}")


def _itself(call, *inputs, **attrs):
    import copy

    return call.run(*inputs, **{k: copy.deepcopy(v) for k, v in attrs.items()})
