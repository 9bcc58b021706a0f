"""GRU: the documented one-layer recurrence (gates z, r, h; linear_before_reset from GRU-3), step by step in
mpmath (generators/recurrent_family.py)."""

import numpy as np

from onnx_conformance.generators import recurrent_family as rf
from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.recurrent_family import Cell, recurrence, recurrent, reference_reasons, register, small
from onnx_conformance.generators.semantics import attr


def step(s):
    """zt = f(Xt*(Wz^T) + Ht-1*(Rz^T) + Wbz + Rbz); rt likewise; ht = g(Xt*(Wh^T) + (rt (.) Ht-1)*(Rh^T) + Rbh
    + Wbh), or with linear_before_reset g(Xt*(Wh^T) + (rt (.) (Ht-1*(Rh^T) + Rbh)) + Wbh);
    Ht = (1 - zt) (.) ht + zt (.) Ht-1."""
    H, h = s.H, s.h
    z, rr, hn = [None] * H, [None] * H, [None] * H
    for j in range(H):
        xw, hr, wb, rb = s.linear(0, j, h)
        s.mag(xw + hr + [wb, rb])
        z[j] = s.act(s.f[0], sum(xw) + sum(hr) + wb + rb)
        xw, hr, wb, rb = s.linear(1, j, h)
        s.mag(xw + hr + [wb, rb])
        rr[j] = s.act(s.f[0], sum(xw) + sum(hr) + wb + rb)
    rh = [rr[i] * h[i] for i in range(H)]
    for j in range(H):
        if attr(s.attrs, "linear_before_reset", 0):
            xw, hr, wb, rb = s.linear(2, j, h)
            terms = xw + [rr[j] * e for e in hr] + [rr[j] * rb, wb]
            pre = sum(xw) + rr[j] * (sum(hr) + rb) + wb
        else:
            xw, hr, wb, rb = s.linear(2, j, rh)
            terms = xw + hr + [wb, rb]
            pre = sum(terms)
        s.mag(terms)
        hh = s.act(s.f[1], pre)
        hn[j] = (1 - z[j]) * hh + z[j] * h[j]
    return hn, None


def fast_step(s):
    """step in float64, each value with a bound on its error (recurrent_family.FastStep)."""
    U, TINY = rf.U, rf.TINY
    z, ez = s.act(0, *s.gate(0, s.h, s.eh))
    r, er = s.act(0, *s.gate(1, s.h, s.eh))
    if attr(s.attrs, "linear_before_reset", 0):
        xw, exw, axw = s.xw(2)
        hr, ehr, ahr = s.hr(2, s.h, s.eh)
        wb, rb = s.wb(2), s.rb(2)
        inner = hr + rb
        einner = ehr + (ahr + np.abs(rb)) * U
        prod = r * inner
        eprod = np.abs(r) * einner + np.abs(inner) * er + np.abs(prod) * U
        pre = xw + prod + wb
        epre = exw + eprod + (axw + np.abs(prod) + np.abs(wb)) * (2 * U) + TINY
    else:
        rh = r * s.h
        erh = np.abs(r) * s.eh + np.abs(s.h) * er + np.abs(rh) * U
        pre, epre = s.gate(2, rh, erh)
    hh, ehh = s.act(1, pre, epre)
    one_z = 1 - z
    t1, t2 = one_z * hh, z * s.h
    h = t1 + t2
    eh = (np.abs(one_z) * ehh + np.abs(hh) * (ez + np.abs(one_z) * U) + np.abs(z) * s.eh + np.abs(s.h) * ez
          + (np.abs(t1) + np.abs(t2) + np.abs(h)) * U + TINY)
    return h, eh, None, None


CELL = Cell(3, ["Sigmoid", "Tanh"], step, fast=fast_step)
OPERATOR = Operator("GRU", primary="T")


@OPERATOR.semantics
def gru(v, attrs, inputs):
    return recurrence(CELL, v, attrs, inputs)


register(OPERATOR, CELL, hidden=dict(defaults=5, bias=3, batch=6, rev=5, bi=5, seq=5), batch_scale=0.2,
         doc_want=("Y", "Y_h"))


@OPERATOR.example(name="linear_before_reset")
def linear_before_reset(v, t, rng):
    """ht = g(Xt*(Wh^T) + (rt (.) (Ht-1*(Rh^T) + Rbh)) + Wbh): the reset gate after the linear map."""
    H, I, N, S = 3, 2, 2, 3
    X = small(t, (S, N, I), rng, 1.0)
    return recurrent(OPERATOR, CELL, v, t, X, small(t, (2, 3 * H, I), rng), small(t, (2, 3 * H, H), rng),
                     small(t, (2, 6 * H), rng), None, small(t, (2, N, H), rng), hidden_size=H,
                     direction="bidirectional", linear_before_reset=1, want=("Y", "Y_h"))


reference_reasons(OPERATOR)
