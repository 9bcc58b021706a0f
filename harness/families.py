"""Operator families: how the reports group ~230 operators so a reader can find one and see a family at a glance.

ONNX's schemas carry no family, so this is the project's one table of it, shared by the matrices
(matrix.md, matrix.html) and the scoreboard (reports/index.html). An operator the table does not
name (a corpus from elsewhere, a new onnx release) falls in OTHER, never out of a report.
Every operator of a non-default domain not named here is grouped by its domain.
"""

from __future__ import annotations

OTHER = "Other"

# Reading order of the reports; each operator in exactly one family (tests/test_reports.py checks it).
FAMILIES: dict[str, tuple[str, ...]] = {
    "Element-wise math": (
        "Abs", "Acos", "Acosh", "Add", "Asin", "Asinh", "Atan", "Atanh", "Ceil", "Cos", "Cosh", "Div", "Erf",
        "Exp", "Floor", "IsInf", "IsNaN", "Log", "Max", "Mean", "Min", "Mod", "Mul", "Neg", "Pow", "Reciprocal",
        "Round", "Sign", "Sin", "Sinh", "Sqrt", "Sub", "Sum", "Tan", "Tanh",
    ),
    "Activations": (
        "Celu", "Clip", "Elu", "Gelu", "HardSigmoid", "HardSwish", "LeakyRelu", "Mish", "PRelu", "Relu", "Selu",
        "Shrink", "Sigmoid", "Softplus", "Softsign", "Swish", "ThresholdedRelu",
    ),
    "Logic, comparison and bits": (
        "And", "BitShift", "BitwiseAnd", "BitwiseNot", "BitwiseOr", "BitwiseXor", "Equal", "Greater",
        "GreaterOrEqual", "Less", "LessOrEqual", "Not", "Or", "Where", "Xor",
    ),
    "Cast": ("BitCast", "Cast", "CastLike"),
    "Reduce": (
        "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean", "ReduceMin",
        "ReduceProd", "ReduceSum", "ReduceSumSquare",
    ),
    "Shape and layout": (
        "CenterCropPad", "Col2Im", "Concat", "DepthToSpace", "Expand", "Flatten", "Identity", "Pad", "Reshape",
        "ReverseSequence", "Shape", "Size", "Slice", "SpaceToDepth", "Split", "Squeeze", "Tile", "Transpose",
        "Trilu", "Unsqueeze",
    ),
    "Gather, scatter and select": (
        "Compress", "Gather", "GatherElements", "GatherND", "NonZero", "OneHot", "Scatter", "ScatterElements",
        "ScatterND", "TensorScatter", "Unique",
    ),
    "Generators": ("Constant", "ConstantOfShape", "EyeLike", "Range"),
    "Control flow, sequences and optionals": (
        "ConcatFromSequence", "If", "Loop", "Optional", "OptionalGetElement", "OptionalHasElement", "Scan",
        "SequenceAt", "SequenceConstruct", "SequenceEmpty", "SequenceErase", "SequenceInsert", "SequenceLength",
        "SequenceMap", "SplitToSequence",
    ),
    "Linear algebra": (
        "ArgMax", "ArgMin", "CumProd", "CumSum", "Det", "Einsum", "Gemm", "Hardmax", "LogSoftmax", "MatMul",
        "Softmax", "TopK",
    ),
    "Convolution": ("CausalConvWithState", "Conv", "ConvTranspose", "DeformConv"),
    "Pooling": (
        "AveragePool", "GlobalAveragePool", "GlobalLpPool", "GlobalMaxPool", "LpPool", "MaxPool", "MaxRoiPool",
        "MaxUnpool", "RoiAlign",
    ),
    "Normalization": (
        "BatchNormalization", "Dropout", "GroupNormalization", "InstanceNormalization", "LayerNormalization",
        "LpNormalization", "LRN", "MeanVarianceNormalization", "RMSNormalization", "SwiGLU",
    ),
    "Quantization": (
        "ConvInteger", "DequantizeLinear", "DynamicQuantizeLinear", "MatMulInteger", "QLinearConv",
        "QLinearMatMul", "QuantizeLinear",
    ),
    "Recurrent and attention": (
        "Attention", "FlexAttention", "GRU", "LinearAttention", "LSTM", "RNN", "RotaryEmbedding",
    ),
    "Image and resampling": ("AffineGrid", "GridSample", "ImageDecoder", "NonMaxSuppression", "Resize", "Upsample"),
    "Signal": ("BlackmanWindow", "DFT", "HammingWindow", "HannWindow", "MelWeightMatrix", "STFT"),
    "Random": (
        "Bernoulli", "Multinomial", "RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike",
    ),
    "Losses": ("NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"),
    "Strings": ("RegexFullMatch", "StringConcat", "StringNormalizer", "StringSplit", "TfIdfVectorizer"),
    "Classical ML (ai.onnx.ml)": (
        "ArrayFeatureExtractor", "Binarizer", "CastMap", "CategoryMapper", "DictVectorizer", "FeatureVectorizer",
        "Imputer", "LabelEncoder", "LinearClassifier", "LinearRegressor", "Normalizer", "OneHotEncoder",
        "SVMClassifier", "SVMRegressor", "Scaler", "TreeEnsemble", "TreeEnsembleClassifier",
        "TreeEnsembleRegressor", "ZipMap",
    ),
    "Training (ai.onnx.preview.training)": ("Adagrad", "Adam", "Gradient", "Momentum"),
}

_FAMILY_OF = {op: family for family, ops in FAMILIES.items() for op in ops}


# Cases beyond single nodes (the index's `form`: generators/graphs.py, generators/expanded.py), each
# form a family of its own after the operators', whatever operators they hold.
FORMS: dict[str, str] = {
    "expanded": "Function bodies, expanded",
    "pattern": "Optimizer patterns",
    "model": "Small models",
}


ORDER = {family: i for i, family in enumerate([*FAMILIES, *FORMS.values()])}


def family_of(op: str | None, domain: str | None = "", form: str | None = None) -> str:
    """The family a case is reported under: its form's, else its operator's; OTHER (or its domain's
    name) when the table does not know it."""
    if form:
        return FORMS.get(form, f"{OTHER} ({form})")
    if op in _FAMILY_OF:
        return _FAMILY_OF[op]
    if domain and domain not in ("", "ai.onnx"):
        return f"{OTHER} ({domain})"
    return OTHER


def family_key(family: str) -> tuple[int, str]:
    """Sort key: the table's order, then any other family by name."""
    return (ORDER.get(family, len(ORDER)), family)
