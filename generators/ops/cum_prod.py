"""CumProd: running products along axis, inclusive or exclusive, forward or reversed."""


from onnx_conformance.generators import values
from onnx_conformance.generators.case import Operator
from onnx_conformance.generators.linalg_family import cumulative_examples

OPERATOR = Operator("CumProd", primary="T")


def factors(t, shape, rng):
    """Signed powers of two (every product exact in every float type and far from overflow); small integers."""
    if values.is_int(t.dtype):
        lo = 0 if t.dtype.startswith("uint") else -3
        return rng.integers(lo, 4, size=shape).astype(t.np())
    return (rng.choice([-1.0, 1.0], size=shape) * 2.0 ** rng.integers(-2, 3, size=shape)).astype(t.np())


cumulative_examples(OPERATOR, product=True, random_data=factors)
