"""BitwiseAnd: the bitwise and of integers A and B, with broadcasting."""

from onnx_conformance.generators.logic_family import bitwise

# test_bitwise_and_i32_2d, _i16_3d, _ui64_bcast_3v1d, _ui8_bcast_4v3d
SHAPES = {"2d": ((3, 4), (3, 4)), "3d": ((3, 4, 5), (3, 4, 5)),
          "bcast_3v1d": ((3, 4, 5), (5,)), "bcast_4v3d": ((3, 4, 5, 6), (4, 5, 6))}

OPERATOR = bitwise("BitwiseAnd", lambda a, b: a & b, SHAPES)
