"""RNN: the documented one-layer recurrence, Ht = f(Xt*(Wi^T) + Ht-1*(Ri^T) + Wbi + Rbi), step by step in
mpmath (generators/recurrent_family.py)."""

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.recurrent_family import Cell, recurrence, reference_reasons, register


def step(s):
    """Ht = f(Xt*(Wi^T) + Ht-1*(Ri^T) + Wbi + Rbi)."""
    hn = [None] * s.H
    for j in range(s.H):
        xw, hr, wb, rb = s.linear(0, j, s.h)
        terms = xw + hr + [wb, rb]
        s.mag(terms)
        hn[j] = s.act(s.f[0], sum(terms))
    return hn, None


def fast_step(s):
    """step in float64 with error bounds (recurrent_family.FastStep)."""
    h, eh = s.act(0, *s.gate(0, s.h, s.eh))
    return h, eh, None, None


CELL = Cell(1, ["Tanh"], step, fast=fast_step)
OPERATOR = Operator("RNN", primary="T")


@OPERATOR.semantics
def rnn(v, attrs, inputs):
    return recurrence(CELL, v, attrs, inputs)


register(OPERATOR, CELL, hidden=dict(defaults=4, bias=5, batch=4, rev=4, bi=4, seq=5), batch_scale=0.5,
         doc_want=("Y_h",))
reference_reasons(OPERATOR)
