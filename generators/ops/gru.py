"""GRU: the documented one-layer recurrence (gates z, r, h; linear_before_reset from GRU-3), step by step in
mpmath (generators/recurrent_family.py)."""

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


CELL = Cell(3, ["Sigmoid", "Tanh"], step)
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
