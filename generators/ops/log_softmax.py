"""LogSoftmax: x - max - log(sum(exp(x - max))) over each row the version's axis defines."""

from onnx_conformance.generators.accuracy import budget
from onnx_conformance.generators.softmax_family import SoftmaxOp, log_softmax_row

# The defining formula cancels at a row's maximum (x - max - log(sum), sum near 1): an absolute
# error of a few epsilon is what it gives there.
OPERATOR = SoftmaxOp("LogSoftmax", log_softmax_row, lambda type_name: budget("composite", type_name, cancels=True))
