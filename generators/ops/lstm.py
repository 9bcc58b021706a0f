"""LSTM: the documented one-layer recurrence (gates i, o, f, c; peepholes; input_forget), step by step in
mpmath (generators/recurrent_family.py)."""

import numpy as np

from onnx_conformance.generators import recurrent_family as rf
from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.recurrent_family import (Cell, attribute_types, cast, ones, recurrence, recurrent,
                                                          reference_reasons, register, small)
from onnx_conformance.generators.semantics import Undefined, attr


def step(s):
    """it = f(Xt*(Wi^T) + Ht-1*(Ri^T) + Pi (.) Ct-1 + Wbi + Rbi); ft likewise with Pf (or 1 - it with
    input_forget); ct = g(...); Ct = ft (.) Ct-1 + it (.) ct; ot = f(... + Po (.) Ct + ...); Ht = ot (.) h(Ct)."""
    H, d, p, c = s.H, s.d, s.p, s.c
    hn, cn = [None] * H, [None] * H

    def gate(g, j, peep):
        xw, hr, wb, rb = s.linear(g, j, s.h)
        terms = xw + hr + [wb, rb] + ([peep] if peep is not None else [])
        s.mag(terms)
        return sum(terms)

    for j in range(H):
        i_ = s.act(s.f[0], gate(0, j, p[d, j] * c[j]))
        if attr(s.attrs, "input_forget", 0):
            f_ = 1 - i_
        else:
            f_ = s.act(s.f[0], gate(2, j, p[d, 2 * H + j] * c[j]))
        g_ = s.act(s.f[1], gate(3, j, None))
        cn[j] = f_ * c[j] + i_ * g_
        o_ = s.act(s.f[0], gate(1, j, p[d, H + j] * cn[j]))
        if s.clip is not None and abs(cn[j]) > s.clip:
            raise Undefined("the cell state passes clip: the docs do not say whether Ct itself is clipped")
        hn[j] = o_ * s.act(s.f[2], cn[j])
    return hn, cn


def fast_step(s):
    """step in float64, each value with a bound on its error (recurrent_family.FastStep)."""
    U, TINY, H = rf.U, rf.TINY, s.H
    pi, po, pf = s.p[:H], s.p[H:2 * H], s.p[2 * H:3 * H]
    ac = np.abs(s.c)

    def peephole(pv, c, ec):
        v = pv * c
        return v, np.abs(pv) * ec + np.abs(v) * U

    i, ei = s.act(0, *s.gate(0, s.h, s.eh, *peephole(pi, s.c, s.ec)))
    if attr(s.attrs, "input_forget", 0):
        f = 1 - i
        ef = ei + np.abs(f) * U
    else:
        f, ef = s.act(0, *s.gate(2, s.h, s.eh, *peephole(pf, s.c, s.ec)))
    g, eg = s.act(1, *s.gate(3, s.h, s.eh))
    t1, t2 = f * s.c, i * g
    c = t1 + t2
    ec = (np.abs(f) * s.ec + ac * ef + np.abs(i) * eg + np.abs(g) * ei + (np.abs(t1) + np.abs(t2) + np.abs(c)) * U
          + TINY)
    o, eo = s.act(0, *s.gate(1, s.h, s.eh, *peephole(po, c, ec)))
    if s.clip is not None and np.any(np.abs(c) + ec >= s.clip):
        raise rf.Undecided("the cell state may pass clip: the mpmath path says whether it does")
    hc, ehc = s.act(2, c, ec)
    h = o * hc
    eh = np.abs(o) * ehc + np.abs(hc) * eo + np.abs(h) * U + TINY
    return h, eh, c, ec


CELL = Cell(4, ["Sigmoid", "Tanh", "Tanh"], step, cell_state=True, fast=fast_step)
OPERATOR = Operator("LSTM", primary="T")


@OPERATOR.semantics
def lstm(v, attrs, inputs):
    return recurrence(CELL, v, attrs, inputs)


register(OPERATOR, CELL, hidden=dict(defaults=3, bias=4, batch=7, rev=3, bi=3, seq=5), batch_scale=0.3,
         doc_want=("Y_h", "Y_c"))


@OPERATOR.example(name="with_peepholes")
def with_peepholes(v, t, rng):
    H, I = 3, 4
    X = cast([[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]], t)
    N = X.shape[1]
    return recurrent(OPERATOR, CELL, v, t, X, ones(t, (1, 4 * H, I), 0.1), ones(t, (1, 4 * H, H), 0.1),
                     np.zeros((1, 8 * H), t.np()), np.repeat(X.shape[0], N).astype(np.int32),
                     np.zeros((1, N, H), t.np()), np.zeros((1, N, H), t.np()), ones(t, (1, 3 * H), 0.1),
                     hidden_size=H, want=("Y_h",))

@OPERATOR.example(name="input_forget")
def input_forget(v, t, rng):
    """'Couple the input and forget gates if 1': ft = 1 - it (the forget gate's own weights unused)."""
    na = attribute_types(t)
    if na:
        return na
    H, I, N, S = 3, 2, 2, 3
    return recurrent(OPERATOR, CELL, v, t, small(t, (S, N, I), rng, 1.0), small(t, (1, 4 * H, I), rng),
                     small(t, (1, 4 * H, H), rng), small(t, (1, 8 * H), rng), None,
                     small(t, (1, N, H), rng), small(t, (1, N, H), rng), small(t, (1, 3 * H), rng),
                     hidden_size=H, input_forget=1, want=("Y", "Y_h", "Y_c"))


reference_reasons(OPERATOR)
