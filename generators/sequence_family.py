"""What the Sequence* operators share: the seq(tensor(T)) <-> T pairing of their type parameters, test sequences, positions."""

from __future__ import annotations

import re

import numpy as np

from onnx_conformance.generators.case import NotApplicable, Seq
from onnx_conformance.generators.semantics import Rejected, rule
from onnx_conformance.generators.values import value
from onnx_conformance.harness.dtypes import numpy_of


def elem(seq_type: str) -> str:
    """'seq(tensor(int8))' -> 'int8'."""
    return re.fullmatch(r"seq\(tensor\((.*)\)\)", seq_type).group(1)


def seq_of(elem_type: str) -> str:
    return f"seq(tensor({elem_type}))"


def paired(seq_param: str, tensor_param: str) -> dict:
    """Operator defaults binding the other of the two parameters to match the one bound."""
    def seq_default(v, b):
        return seq_of(b[tensor_param]) if tensor_param in b else None

    def tensor_default(v, b):
        return elem(b[seq_param]) if seq_param in b else None

    return {seq_param: seq_default, tensor_param: tensor_default}


def unpaired(t, seq_param: str = "S", tensor_param: str = "T") -> NotApplicable | None:
    """A binding whose sequence and tensor types disagree: no model has one."""
    if elem(t[seq_param]) != t[tensor_param]:
        return NotApplicable(f"{seq_param} is the sequence of {tensor_param}'s tensors: the operator's tensor and the "
                             f"sequence's elements share one element type")
    return None


def sequence(elem_type: str, rng, shapes=((2, 3), (1, 3), (4, 3))) -> Seq:
    """A sequence of tensors of one element type, of the given shapes (they may differ)."""
    return Seq([value(elem_type, s, rng) for s in shapes], elem_type)


def documented(elem_type: str, arrays: list, rng) -> list:
    """The documented tensors where the element type holds them exactly, else the type's own data of their shapes."""
    out = []
    for a in arrays:
        a = np.asarray(a)
        if elem_type not in ("bool", "string"):
            cast = a.astype(numpy_of(elem_type))
            if np.array_equal(cast.astype(np.complex128), a):
                out.append(cast)
                continue
        out.append(value(elem_type, a.shape, rng))
    return out


# ---------------------------------------------------------------------------------------------
# what the semantics share: a position in a sequence


def position_in(v, position, n: int, end: bool = False) -> int:
    """A position of a sequence of n tensors in [0, n - 1] (or [0, n] where `end`: SequenceInsert's
    "[-n, n]"); negative positions count from the back. Outside the accepted range, or not a scalar,
    the input breaks the version's rule, quoted."""
    p = np.asarray(position)
    if p.shape != ():
        raise Rejected(rule(v, r"must be a scalar", "position"))
    k = int(p)
    if not -n <= k <= (n if end else n - 1):
        raise Rejected(v.sentence(r"Accepted range for 'position'"))
    return k + n if k < 0 else k
