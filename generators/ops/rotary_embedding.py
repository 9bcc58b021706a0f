"""RotaryEmbedding: the doc's rotation of head halves (or even/odd pairs) by cached cos and sin (generators/attention_family.py)."""

import mpmath
import numpy as np

from onnx_conformance.generators.attention_family import _mp, _round, rotary_examples
from onnx_conformance.generators.case import Operator, type_of
from onnx_conformance.generators.rounding import PREC
from onnx_conformance.generators.semantics import Rejected, attr, remember

OPERATOR = Operator("RotaryEmbedding", primary="T")


@OPERATOR.semantics
def rotary_embedding(v, attrs, inputs):
    """For each token, cos and sin rows from the caches (by position_ids, or the caches' own [batch,
    sequence] rows without them); the pairs (x1, x2) are the two halves of a head's first
    rotary_embedding_dim elements (or its even and odd elements, interleaved); x1 * cos - x2 * sin and
    x1 * sin + x2 * cos replace them exactly, the rest pass through; rounded once."""
    x = np.asarray(inputs["X"])
    position_ids = inputs.get("position_ids")
    interleaved, num_heads = attr(attrs, "interleaved", 0), attrs.get("num_heads")
    three_d = x.ndim == 3
    if three_d and not num_heads:
        raise Rejected(v.sentence(r"num_heads") or "a 3D input needs num_heads")
    with mpmath.workprec(PREC):
        ex = _mp(x)
        if three_d:
            B, S, Hd = ex.shape
            ex = ex.reshape(B, S, num_heads, Hd // num_heads)
        else:
            ex = ex.transpose(0, 2, 1, 3)
        B, S, H, D = ex.shape
        R = attrs.get("rotary_embedding_dim") or D
        half = R // 2
        c, s_ = _mp(inputs["cos_cache"]), _mp(inputs["sin_cache"])
        out = ex.copy()
        mag = mpmath.mpf(0)
        for b in range(B):
            for i in range(S):
                row = (int(position_ids[b][i]),) if position_ids is not None else (b, i)
                for h in range(H):
                    for k in range(half):
                        a, z = (2 * k, 2 * k + 1) if interleaved else (k, k + half)
                        x1, x2 = ex[b, i, h, a], ex[b, i, h, z]
                        cs, sn = c[row + (k,)], s_[row + (k,)]
                        out[b, i, h, a] = x1 * cs - x2 * sn
                        out[b, i, h, z] = x1 * sn + x2 * cs
                        mag = max(mag, abs(x1 * cs) + abs(x2 * sn), abs(x1 * sn) + abs(x2 * cs))
        out = out.reshape(x.shape) if three_d else out.transpose(0, 2, 1, 3)
        y = _round(out, type_of(x))
    remember(v, attrs, inputs, float(mag))
    return {"Y": y}


rotary_examples(OPERATOR)

OPERATOR.reference_differs(
    r"^\w+ (float16|bfloat16): .*max abs err (0\.00\d*|[\d.]+e-0\d) ",
    "the evaluator multiplies and adds in the 16-bit type itself (numpy float16 / ml_dtypes bfloat16), rounding "
    "each product and the sum; ours is the exact x1*cos - x2*sin rounded once",
)
