"""RotaryEmbedding: the doc's rotation of head halves (or even/odd pairs) by cached cos and sin (generators/attention_family.py)."""

from onnx_conformance.generators.attention_family import rotary_examples
from onnx_conformance.generators.case import Operator

OPERATOR = Operator("RotaryEmbedding", primary="T")
rotary_examples(OPERATOR)

OPERATOR.reference_differs(
    r"^\w+ (float16|bfloat16): .*max abs err (0\.00\d*|[\d.]+e-0\d) ",
    "the evaluator multiplies and adds in the 16-bit type itself (numpy float16 / ml_dtypes bfloat16), rounding "
    "each product and the sum; ours is the exact x1*cos - x2*sin rounded once",
)
