"""Log: natural logarithm, correctly rounded; log(+-0) = -inf, log(x < 0) = NaN (invalid), log(+inf) = +inf."""

import math

import mpmath
import numpy as np

from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.rounding import PREC
from onnx_conformance.generators.unary_family import correctly_rounded, standard

OPERATOR = Operator("Log")


def exp_randn(rng, shape):
    """e^z of standard normal draws, each correctly rounded to a double: numpy's float64 exp differs by a
    unit in the last place between CPUs (its AVX-512 path), and the corpus's bytes must not."""
    z = rng.standard_normal(shape)
    with mpmath.workprec(PREC):
        return np.array([float(mpmath.exp(x)) for x in z.reshape(-1)], dtype=np.float64).reshape(np.shape(z))


standard(OPERATOR, correctly_rounded(mpmath.log, domain=lambda x: x >= 0, poles={0.0: -math.inf}), "log",
         example=[1, 10], draw=exp_randn,
         specials=[1.0, 0.0, -0.0, -1.0, -2.0**-149, math.inf, -math.inf, math.nan, math.e, 2.0**-149, 2.0])
