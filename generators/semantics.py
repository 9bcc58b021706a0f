"""What an operator's semantics function is: its signature, and the typed ways it says no.

Every operator module states its meaning once, as a function of (operator version, attributes,
inputs) returning the outputs, exact or correctly rounded in the output's type:

    @OPERATOR.semantics
    def gather(v: OpVersion, attrs: dict, inputs: dict) -> dict: ...

- `attrs`: the node's attributes as the example or the model gives them (Python values as
  `onnx.helper.make_node` takes them: int, float, str, lists of those, TensorProto), absent ones
  left out: the function applies the spec's defaults. A graph attribute (If's branches, Loop's
  body) arrives as a `Subgraph`-like callable: `body(*values) -> list of values`.
- `inputs`: formal input name -> value, in the schema's order; a variadic formal parameter (always
  the last) holds the list of its values; an optional input left out is None or absent. Values are
  numpy arrays of the element's type, or the case model's Seq, Opt and Map (generators/case.py).
- The result: formal output name -> value, every output the function computes (the caller keeps
  the outputs the node asks for); a variadic output holds the list of its values. An output whose
  value the spec leaves open for these inputs may be an `Undefined` instance, raised only where asked.

It raises `Rejected` (quoting the spec sentence the inputs break, as `rule` and `described` find
it: what the expect-error cases test), `Undefined` (the spec gives no value for these inputs: an
integer overflow, a NaN cast to an integer) or `NotDeterministic` (a random operator: its outputs
are a distribution).
"""

from __future__ import annotations

import re
from typing import Any, Callable

import numpy as np


class Rejected(Exception):
    """The inputs or attributes break a rule of the spec; `sentence` is that rule, quoted."""

    def __init__(self, sentence: str):
        super().__init__(sentence)
        self.sentence = sentence


class Undefined(Exception):
    """The spec defines no result for these inputs; `reason` quotes or names the sentence."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class NotDeterministic(Exception):
    """The operator's outputs are random: what the spec fixes is their distribution, not a value."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


Semantics = Callable[[Any, dict, dict], dict]


# ---------------------------------------------------------------------------------------------
# the spec's own words, for a Rejected (or an Undefined) to quote


def sentences(text: str | None) -> list[str]:
    """text's sentences, white space folded, each with its period: one ends at a period followed by white
    space, a capital or another period (the schemas do not always leave a space: 'Values should be >= 0.Sum
    of the values must be equal to the dim value at 'axis' specified.')."""
    return re.split(r"(?<=\.)\s+|(?<=\.)(?=[A-Z.])", " ".join((text or "").split()))


def described(v, name: str) -> str:
    """The description of this version's input, attribute or output `name` (in that order), white space
    folded: the rule where the whole description states it."""
    formal = next((f for f in (*v.schema.inputs, *v.schema.attributes.values(), *v.schema.outputs)
                   if f.name == name), None)
    if formal is None:
        raise LookupError(f"{v.op}-{v.since_version} has no input, attribute or output named {name!r}")
    return " ".join(formal.description.split())


def rule(v, pattern: str, *names: str) -> str | None:
    """The sentence of the spec that a `Rejected` quotes: the first matching `pattern` (a regex) in the
    descriptions of the inputs or attributes `names`, in that order; with no names, in this version's doc,
    then in every input's and attribute's description. None where no sentence matches."""
    texts = [described(v, name) for name in names] if names else \
        [v.doc] + [f.description for f in v.schema.inputs] + [a.description for a in v.schema.attributes.values()]
    return next((s for text in texts for s in sentences(text) if re.search(pattern, s)), None)


def attr(attrs: dict, name: str, default: Any = None) -> Any:
    """An attribute's value, or the spec's default where the node leaves it out."""
    value = attrs.get(name)
    return default if value is None else value


def formal_inputs(schema, named: dict) -> dict:
    """The case model's inputs as semantics takes them: each formal parameter by its name (None where
    the example leaves it out), the variadic last one (whose values have names of their own: 'inputs_0',
    'data_1', 'v_initial_1') as the list of every value no other formal parameter's name claims, in order."""
    formals = list(schema.inputs)
    variadic = formals[-1] if formals and _is_variadic(formals[-1]) else None
    fixed = [f.name for f in formals if f is not variadic]
    out = {name: named.get(name) for name in fixed}
    rest = [x for k, x in named.items() if k not in out]
    if variadic is not None:
        out[variadic.name] = rest
    elif rest:
        unknown = [k for k in named if k not in out]
        raise ValueError(f"{schema.name}: no input named {unknown[0]!r} (formal inputs: {', '.join(fixed)})")
    return out


def named_outputs(schema, computed: dict, names: list) -> dict:
    """The semantics' outputs under the case model's names: `names` are the node's outputs in order
    (None: an optional output left out), a variadic output's values taking the names left over. An
    output the semantics gives as an exception (Undefined: the spec says nothing of it for these
    inputs) is raised if asked for."""
    out = {}
    for k, formal in enumerate(schema.outputs):
        value = computed.get(formal.name)
        if isinstance(value, Exception) and k < len(names) and names[k] is not None:
            raise value
    for k, formal in enumerate(schema.outputs):
        if _is_variadic(formal):
            rest = [n for n in names[k:]]
            for n, x in zip(rest, computed[formal.name]):
                out[n] = x
            return out
        if k < len(names):
            name = names[k]
            if name is None:
                out[formal.name] = None
            else:
                out[name] = computed[formal.name]
    return out


def _is_variadic(formal) -> bool:
    return formal.option.name == "Variadic"


# ---------------------------------------------------------------------------------------------
# side facts: what an example's tolerance needs from the very run that gave its expected outputs


_SIDE: dict = {}


def _key(v, attrs: dict, inputs: dict) -> tuple:
    def value(x):
        if x is None:
            return None
        if isinstance(x, list):
            return tuple(value(e) for e in x)
        a = np.asarray(x)
        return (a.dtype.str, a.shape, a.tobytes() if a.dtype != object else repr(a.tolist()))

    given = sorted((k, value(x)) for k, x in inputs.items() if x is not None)
    return (v.op, v.since_version, repr(sorted(attrs.items())), tuple(given))


def remember(v, attrs: dict, inputs: dict, facts) -> None:
    """A semantics function keeps facts of its last run (the magnitudes an accumulation's tolerance is
    computed from), so the example that asked for the outputs need not run it again."""
    _SIDE.clear()
    _SIDE[_key(v, attrs, inputs)] = facts


def recall(v, attrs: dict, inputs: dict):
    """The facts the last run on exactly these (version, attributes, inputs) kept, or None."""
    return _SIDE.get(_key(v, attrs, inputs))
