"""What Gather, GatherElements and GatherND share: the documented numbers or typed data, the index-range rule and its rejection."""

from __future__ import annotations

import numpy as np

from onnx_conformance.generators.movement import data
from onnx_conformance.generators.semantics import described, sentences


def doc_or_data(t, doc, rng, doc_type: str = "float", specials: bool = True) -> np.ndarray:
    """The documentation's own numbers in the type it writes them in; typed data of the same shape elsewhere."""
    doc = np.asarray(doc)
    if t.dtype == doc_type:
        return doc.astype(t.np())
    return data(t, doc.shape, rng, specials=specials)


def index_rule(v, name: str = "indices") -> str:
    """The sentences of the indices' description that bound their values, verbatim."""
    found = [s for s in sentences(described(v, name)) if "bounds" in s]
    if not found:
        raise LookupError(f"{v.op}-{v.since_version}: no index-range sentence")
    return " ".join(found)


def allows_negative(v, name: str = "indices") -> bool:
    """Whether the version states the range [-s, s-1] (negative indices count from the back)."""
    return "[-s, s-1]" in index_rule(v, name)


def negative_na_reason(v) -> str:
    return (f"{v.op}-{v.since_version} bounds indices only as \"{index_rule(v)}\": the range [-s, s-1] "
            "(negative indices counting from the back) comes with version 11")
