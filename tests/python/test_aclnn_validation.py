"""The contract's validation, Python vs C++: one battery of invalid argument sets, three judges.

For every case the same arguments go through
  (a) ascend_dcn.validation.check_backward_args (Python, outputs_given=True),
  (b) ascend_dcn._C.check_backward_args (the C++ dcn::CheckBackwardArgs used by the TilingFunc),
  (c) the aclnn entry on the CPU twin through the binding (OpApi.get_workspace_size, precheck on),
and all must agree on the status code (161001/161002) and the aclnn argument name. Where the
generated aclnn layer itself rejects an argument before the TilingFunc (null pointers, undeclared
dtypes), (d) the raw entry (precheck off) must return the same status code too.
Cases: one per rule of op-semantics §6.5 steps 1-6 (+ our empty-tensor and modulated=False rules),
plus multi-violation cases where the first failing rule (step order, then order within a step)
must win. Format rules (step 3) cannot be expressed with torch tensors (no aclFormat): they are
checked on the C side against the contract's expected argument.
"""

import inspect
import os
import types

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from ascend_dcn import validation
from ascend_dcn.errors import AclnnError

NULLPTR, INVALID = 161001, 161002
TENSOR_IN = ("input", "grad_output", "offset_out", "weight", "offset")
TENSOR_OUT = ("grad_input", "grad_weight", "grad_offset", "grad_bias")
ACLNN_NAME = {"input": "input", "grad_output": "gradOutput", "offset_out": "offsetOut", "weight": "weight",
              "offset": "offset", "grad_input": "gradInput", "grad_weight": "gradWeight",
              "grad_offset": "gradOffset", "grad_bias": "gradBias", "kernel_size": "kernelSize",
              "stride": "stride", "padding": "padding", "dilation": "dilation"}


def _ext():
    from ascend_dcn import _backend
    try:
        return _backend.load_extension()
    except _backend.BackendUnavailableError as e:
        pytest.skip(f"ascend_dcn._C not built: {e}")


def _twin():
    from ascend_dcn import _backend
    try:
        return _backend.get_twin_opapi()
    except _backend.BackendUnavailableError as e:
        pytest.skip(f"CPU twin libraries not available: {e}")


def doc_example(dtype=torch.float32, modulated=True):
    """The DOC-B call example of op-semantics §6.5 (valid), as a dict of arguments incl. outputs."""
    g = torch.Generator().manual_seed(0)
    rnd = lambda *s: torch.randn(*s, generator=g).to(dtype)  # noqa: E731
    blocks = 3 if modulated else 2
    a = dict(input=rnd(1, 6, 2, 4), grad_output=rnd(1, 4, 2, 4), offset_out=rnd(1, 6, 10, 20),
             weight=rnd(4, 3, 5, 5), offset=rnd(1, blocks * 25, 2, 4), kernel_size=[5, 5], stride=[1, 1, 1, 1],
             padding=[2, 2, 2, 2], dilation=[1, 1, 1, 1], groups=2, deformable_groups=1, modulated=modulated)
    a.update(grad_input=torch.empty_like(a["input"]), grad_weight=torch.empty_like(a["weight"]),
             grad_offset=torch.empty_like(a["offset"]), grad_bias=torch.empty(4, dtype=dtype))
    return a


def big_reduction():
    """Valid shapes except kH*kW*inC/groups = 45*45*33 = 66825 > 65535 (the last rule of step 6)."""
    a = dict(input=torch.zeros(1, 33, 45, 45), grad_output=torch.zeros(1, 1, 1, 1),
             offset_out=torch.zeros(1, 33, 45, 45), weight=torch.zeros(1, 33, 45, 45),
             offset=torch.zeros(1, 3 * 2025, 1, 1), kernel_size=[45, 45], stride=[1, 1, 1, 1], padding=[0, 0, 0, 0],
             dilation=[1, 1, 1, 1], groups=1, deformable_groups=1, modulated=True)
    a.update(grad_input=torch.empty_like(a["input"]), grad_weight=torch.empty_like(a["weight"]),
             grad_offset=torch.empty_like(a["offset"]), grad_bias=torch.empty(1))
    return a


def huge_plane():
    """inH*inW = 50000*50000 > INT32_MAX, described by a stride-0 view (no real allocation)."""
    a = doc_example()
    a["input"] = torch.zeros(1).expand(1, 6, 50000, 50000)
    a["grad_input"] = a["input"]
    return a


def _with(base=doc_example, **changes):
    def make():
        a = base()
        for k, v in changes.items():
            a[k] = v(a) if callable(v) else v
        return a
    return make


def _drop_dim(name):
    return {name: lambda a: a[name][0]}


def _retype(name, dtype):
    return {name: lambda a: a[name].to(dtype)}


def _reshape(name, shape):
    return {name: lambda a: torch.zeros(shape, dtype=a[name].dtype)}


# (case id, argument builder, expected status, expected aclnn argument)
CASES = []
# Step 1: null pointers (every tensor and int array).
for _n in TENSOR_IN + TENSOR_OUT + ("kernel_size", "stride", "padding", "dilation"):
    CASES.append((f"null-{_n}", _with(**{_n: None}), NULLPTR, ACLNN_NAME[_n]))
# Step 2: dtypes.
CASES += [
    ("dtype-input-int32", _with(**_retype("input", torch.int32)), INVALID, "input"),
    ("dtype-input-float64", _with(**_retype("input", torch.float64)), INVALID, "input"),
]
for _n in ("grad_input", "grad_weight", "grad_offset", "weight", "offset_out", "offset", "grad_output"):
    CASES.append((f"dtype-{_n}-mismatch", _with(**_retype(_n, torch.float16)), INVALID, ACLNN_NAME[_n]))
CASES.append(("dtype-grad_bias-vs-grad_output", _with(**_retype("grad_bias", torch.bfloat16)), INVALID, "gradBias"))
# Step 4: attrs.
CASES += [
    ("attr-kernel_size-len", _with(kernel_size=[5, 5, 1]), INVALID, "kernelSize"),
    ("attr-stride-len", _with(stride=[1, 1, 1]), INVALID, "stride"),
    ("attr-padding-len", _with(padding=[2, 2, 2, 2, 0]), INVALID, "padding"),
    ("attr-dilation-len", _with(dilation=[1, 1]), INVALID, "dilation"),
    ("attr-kh-zero", _with(kernel_size=[0, 5]), INVALID, "kernelSize"),
    ("attr-kw-negative", _with(kernel_size=[5, -1]), INVALID, "kernelSize"),
    ("attr-k-points-over-2048", _with(kernel_size=[64, 33]), INVALID, "kernelSize"),
    ("attr-stride-n", _with(stride=[2, 1, 1, 1]), INVALID, "stride"),
    ("attr-stride-c", _with(stride=[1, 2, 1, 1]), INVALID, "stride"),
    ("attr-stride-h-zero", _with(stride=[1, 1, 0, 1]), INVALID, "stride"),
    ("attr-stride-w-negative", _with(stride=[1, 1, 1, -2]), INVALID, "stride"),
    ("attr-padding-negative", _with(padding=[2, -1, 2, 2]), INVALID, "padding"),
    ("attr-dilation-c", _with(dilation=[1, 2, 1, 1]), INVALID, "dilation"),
    ("attr-dilation-w-zero", _with(dilation=[1, 1, 1, 0]), INVALID, "dilation"),
    ("attr-groups-zero", _with(groups=0), INVALID, "groups"),
    ("attr-groups-negative", _with(groups=-2), INVALID, "groups"),
    ("attr-deformable_groups-zero", _with(deformable_groups=0), INVALID, "deformableGroups"),
]
# Step 5: dimensions.
for _n in ("grad_output", "input", "weight", "offset_out", "offset", "grad_input", "grad_weight", "grad_offset"):
    CASES.append((f"dim-{_n}-3d", _with(**_drop_dim(_n)), INVALID, ACLNN_NAME[_n]))
CASES.append(("dim-grad_bias-2d", _with(**_reshape("grad_bias", (4, 1))), INVALID, "gradBias"))
# Step 6: shapes (after our empty-tensor rule).
CASES += [
    ("empty-offset", _with(**_reshape("offset", (1, 75, 2, 0))), INVALID, "offset"),
    ("empty-grad_bias", _with(**_reshape("grad_bias", (0,))), INVALID, "gradBias"),
    ("shape-inC-mod-dg", _with(deformable_groups=4), INVALID, "deformableGroups"),
    ("shape-inC-mod-groups", _with(groups=4), INVALID, "groups"),
    ("shape-outC-mod-groups", _with(groups=3), INVALID, "groups"),
    ("shape-input-plane-over-int32", huge_plane, INVALID, "input"),
    ("shape-weight", _with(**_reshape("weight", (4, 3, 5, 4))), INVALID, "weight"),
    ("shape-offset-channels", _with(**_reshape("offset", (1, 74, 2, 4))), INVALID, "offset"),
    ("shape-offset-3blocks-unmodulated", _with(modulated=False), INVALID, "offset"),
    ("shape-grad_output", _with(**_reshape("grad_output", (1, 4, 2, 5))), INVALID, "gradOutput"),
    ("shape-offset_out", _with(**_reshape("offset_out", (1, 6, 10, 21))), INVALID, "offsetOut"),
    ("shape-grad_input", _with(**_reshape("grad_input", (1, 6, 2, 5))), INVALID, "gradInput"),
    ("shape-grad_weight", _with(**_reshape("grad_weight", (4, 3, 5, 6))), INVALID, "gradWeight"),
    ("shape-grad_offset", _with(**_reshape("grad_offset", (1, 75, 3, 4))), INVALID, "gradOffset"),
    ("shape-grad_bias", _with(**_reshape("grad_bias", (5,))), INVALID, "gradBias"),
    ("shape-k-reduction-over-65535", big_reduction, INVALID, "kernelSize"),
]
# Multi-violation: the first failing rule wins (step order, then order within a step).
CASES += [
    ("multi-null-before-dtype", _with(grad_output=None, **_retype("input", torch.int32)), NULLPTR, "gradOutput"),
    ("multi-null-order-gradOutput-first", _with(input=None, grad_output=None), NULLPTR, "gradOutput"),
    ("multi-null-order-gradBias-before-gradOffset", _with(grad_offset=None, grad_bias=None), NULLPTR, "gradBias"),
    ("multi-null-tensor-before-list", _with(kernel_size=None, grad_input=None), NULLPTR, "gradInput"),
    ("multi-dtype-before-attr", _with(groups=0, **_retype("weight", torch.float16)), INVALID, "weight"),
    ("multi-dtype-order-gradInput-first",
     _with(**_retype("weight", torch.float16), **_retype("grad_input", torch.float16)), INVALID, "gradInput"),
    ("multi-attr-before-dim", _with(stride=[1, 1, 0, 1], **_drop_dim("input")), INVALID, "stride"),
    ("multi-attr-order-kernel-first", _with(kernel_size=[0, 5], padding=[-1, 0, 0, 0]), INVALID, "kernelSize"),
    ("multi-attr-groups-before-dg", _with(groups=0, deformable_groups=0), INVALID, "groups"),
    ("multi-dim-before-shape", _with(deformable_groups=4, **_drop_dim("offset")), INVALID, "offset"),
    ("multi-dim-order-gradOutput-first", _with(**_drop_dim("input"), **_drop_dim("grad_output")), INVALID,
     "gradOutput"),
    ("multi-empty-before-divisibility", _with(groups=4, **_reshape("offset", (1, 0, 2, 4))), INVALID, "offset"),
    ("multi-dg-before-groups", _with(groups=4, deformable_groups=4), INVALID, "deformableGroups"),
    ("multi-weight-before-offset",
     _with(**_reshape("weight", (4, 3, 5, 4)), **_reshape("offset", (1, 74, 2, 4))), INVALID, "weight"),
]
VALID = [("doc-example", doc_example), ("doc-example-unmodulated", lambda: doc_example(modulated=False)),
         ("doc-example-fp16", lambda: doc_example(torch.float16)),
         ("doc-example-bf16", lambda: doc_example(torch.bfloat16))]


def python_verdict(a, validator=validation):
    try:
        validator.check_backward_args(*(a[k] for k in TENSOR_IN), a["kernel_size"], a["stride"], a["padding"],
                                       a["dilation"], a["groups"], a["deformable_groups"], a["modulated"],
                                       *(a[k] for k in TENSOR_OUT), outputs_given=True)
    except AclnnError as e:
        return e.status, e.argument
    return 0, ""


def _call_lists(a):
    from ascend_dcn.ops import tensor_spec
    inputs = [tensor_spec(a[k], "NCHW") for k in TENSOR_IN]
    attrs = [a["kernel_size"], a["stride"], a["padding"], a["dilation"], a["groups"], a["deformable_groups"],
             a["modulated"]]
    outputs = [tensor_spec(a[k], "NCHW" if k != "grad_bias" else "ND") for k in TENSOR_OUT]
    return inputs, attrs, outputs


def cpp_verdict(a):
    status, argument, _ = _ext().check_backward_args(*_call_lists(a))
    return status, argument


def entry_verdict(a, precheck=True):
    from ascend_dcn import ops
    try:
        ops.get_workspace_size(*(a[k] for k in TENSOR_IN), a["kernel_size"], a["stride"], a["padding"],
                               a["dilation"], a["groups"], a["deformable_groups"], a["modulated"],
                               *(a[k] for k in TENSOR_OUT), opapi=_twin(), precheck=precheck)
    except AclnnError as e:
        return e.status, e.argument
    return 0, ""


@pytest.mark.parametrize("case_id,build,status,argument", CASES, ids=[c[0] for c in CASES])
def test_python_rule(case_id, build, status, argument):
    assert python_verdict(build()) == (status, argument)


@pytest.mark.parametrize("case_id,build,status,argument", CASES, ids=[c[0] for c in CASES])
def test_cpp_rule_matches_python(case_id, build, status, argument):
    a = build()
    assert cpp_verdict(a) == python_verdict(a) == (status, argument)


@pytest.mark.parametrize("case_id,build,status,argument", CASES, ids=[c[0] for c in CASES])
def test_aclnn_entry_matches_python(case_id, build, status, argument):
    a = build()
    assert entry_verdict(a, precheck=True) == python_verdict(a) == (status, argument)


@pytest.mark.parametrize("case_id,build", VALID, ids=[v[0] for v in VALID])
def test_valid_arguments_pass_everywhere(case_id, build):
    a = build()
    assert python_verdict(a) == (0, "")
    assert cpp_verdict(a) == (0, "")


FORMAT_CASES = [  # (tensor index in inputs+outputs, format, expected argument) — contract step 3 order
    ("gradOutput-NHWC", ("in", 1), "NHWC", "gradOutput"),
    ("input-ND", ("in", 0), "ND", "input"),
    ("weight-ND", ("in", 3), "ND", "weight"),
    ("offsetOut-NHWC", ("in", 2), "NHWC", "offsetOut"),
    ("offset-ND", ("in", 4), "ND", "offset"),
    ("gradInput-ND", ("out", 0), "ND", "gradInput"),
    ("gradWeight-ND", ("out", 1), "ND", "gradWeight"),
    ("gradOffset-ND", ("out", 2), "ND", "gradOffset"),
    ("gradBias-NCHW", ("out", 3), "NCHW", "gradBias"),
]


@pytest.mark.parametrize("case_id,where,fmt,argument", FORMAT_CASES, ids=[c[0] for c in FORMAT_CASES])
def test_cpp_format_rules(case_id, where, fmt, argument):
    inputs, attrs, outputs = _call_lists(doc_example())
    group = inputs if where[0] == "in" else outputs
    spec = list(group[where[1]])
    spec[4] = fmt
    group[where[1]] = tuple(spec)
    status, arg, message = _ext().check_backward_args(inputs, attrs, outputs)
    assert (status, arg) == (INVALID, argument)
    assert message.startswith(f"{argument}: ") and "; expected " in message and ", got " in message


def test_cpp_message_format():
    a = _with(groups=0)()
    status, argument, message = _ext().check_backward_args(*_call_lists(a))
    assert (status, argument) == (INVALID, "groups")
    assert message == "groups: must be greater than 0; expected > 0, got 0"


def test_cpp_absurd_attrs_do_not_overflow():
    a = _with(padding=[2**62, 2**62, 2, 2], kernel_size=[5, 5])()
    status, argument, _ = _ext().check_backward_args(*_call_lists(a))
    assert (status, argument) == (INVALID, "offset")


# Which rejections the generated aclnn layer makes itself, before the TilingFunc runs: null
# tensors/int arrays (161001) and dtypes outside the OpDef's declared list (161002).
# (dilation is a REQUIRED attr of the OpDef, like kernel_size/stride/padding: null -> 161001 there too.)
RAW_CASES = [c for c in CASES if c[0].startswith("null-")
             or c[0] in ("dtype-input-int32", "dtype-input-float64")]


@pytest.mark.parametrize("case_id,build,status,argument", RAW_CASES, ids=[c[0] for c in RAW_CASES])
def test_raw_generated_layer_status(case_id, build, status, argument):
    got_status, _ = entry_verdict(build(), precheck=False)
    assert got_status == status


def test_raw_generated_layer_null_dilation_is_nullptr():
    """dilation is REQUIRED in the OpDef, so a direct C caller gets the built-in's 161001 for a null
    dilation, with or without the binding's precheck."""
    a = doc_example()
    a["dilation"] = None
    assert entry_verdict(a, precheck=False)[0] == NULLPTR
    assert entry_verdict(a, precheck=True) == (NULLPTR, "dilation")


def _raw_expected_status(case_id, status):
    """What the generated layer returns without the binding's precheck: its own checks give 161001
    (null pointers) and 161002 (dtype columns not declared in the OpDef); every other contract rule
    is found by the TilingFunc (dcn::ArgsFromTilingContext + dcn::CheckBackwardArgs) -> 561002."""
    if status == NULLPTR:
        return NULLPTR
    if case_id.startswith(("dtype-", "multi-dtype-")):
        return INVALID
    return 561002


# The stride-0 "huge plane" view would be made contiguous (2.5e9 elements) by the generated layer.
TILING_CASES = [c for c in CASES if c[0] not in ("null-dilation", "shape-input-plane-over-int32")]


@pytest.mark.parametrize("case_id,build,status,argument", TILING_CASES, ids=[c[0] for c in TILING_CASES])
def test_raw_entry_rejects_every_violation(case_id, build, status, argument):
    got_status, _ = entry_verdict(build(), precheck=False)
    assert got_status == _raw_expected_status(case_id, status)


@pytest.mark.parametrize("case_id,build", VALID, ids=[v[0] for v in VALID])
def test_raw_entry_accepts_valid_arguments(case_id, build):
    assert entry_verdict(build(), precheck=False) == (0, "")


# Property-based argument sets (Hypothesis). Profile "ci" (the default) is derandomized and bounded,
# so CI runs are reproducible and take the same time; "wide" (ASCEND_DCN_HYPOTHESIS_PROFILE=wide)
# draws many more sets with a random seed for local runs. A failure is shrunk to a minimal argument
# set (fewest mutations, smallest shapes/choices) and printed as the falsifying example.
settings.register_profile("ci", derandomize=True, max_examples=400, deadline=None, database=None,
                          print_blob=True)
settings.register_profile("wide", max_examples=5000, deadline=None)
PROFILE = settings.get_profile(os.environ.get("ASCEND_DCN_HYPOTHESIS_PROFILE", "ci"))


class _Draws:
    """The subset of random.Random that the generators below use, drawn from Hypothesis so that
    every choice shrinks (sampled_from towards the first option, integers towards the lower bound)."""

    def __init__(self, draw):
        self._draw = draw

    def choice(self, seq):
        return self._draw(st.sampled_from(list(seq)))

    def randint(self, lo, hi):
        return self._draw(st.integers(lo, hi))

    def randrange(self, n):
        return self._draw(st.integers(0, n - 1))

    def chance(self, p):
        """True with probability about p; shrinks to True. (An integer draw, not a float one:
        Hypothesis draws floats near 0.0 far more often than uniformly, which made p meaningless.)"""
        return self._draw(st.integers(0, 999)) < p * 1000


def _random_valid(rng):
    """A random valid argument set (small shapes; groups, deformable groups, strides, asymmetric pads)."""
    groups, dg = rng.choice([1, 2, 3]), rng.choice([1, 2])
    cin = groups * dg * rng.randint(1, 2)
    cout = groups * rng.randint(1, 2)
    kh, kw = rng.randint(1, 3), rng.randint(1, 3)
    st = [1, 1, rng.randint(1, 2), rng.randint(1, 2)]
    pd = [rng.randint(0, 1) for _ in range(4)]
    dl = [1, 1, rng.randint(1, 2), rng.randint(1, 2)]
    h, w = rng.randint(5, 7), rng.randint(5, 7)
    ho = (h + pd[0] + pd[1] - ((kh - 1) * dl[2] + 1)) // st[2] + 1
    wo = (w + pd[2] + pd[3] - ((kw - 1) * dl[3] + 1)) // st[3] + 1
    n = rng.randint(1, 2)
    modulated = rng.chance(0.7)
    dtype = rng.choice([torch.float32, torch.float16, torch.bfloat16])
    z = lambda *s: torch.zeros(s, dtype=dtype)  # noqa: E731
    a = dict(input=z(n, cin, h, w), grad_output=z(n, cout, ho, wo), offset_out=z(n, cin, ho * kh, wo * kw),
             weight=z(cout, cin // groups, kh, kw), offset=z(n, (3 if modulated else 2) * dg * kh * kw, ho, wo),
             kernel_size=[kh, kw], stride=st, padding=pd, dilation=dl, groups=groups, deformable_groups=dg,
             modulated=modulated)
    a.update(grad_input=torch.zeros_like(a["input"]), grad_weight=torch.zeros_like(a["weight"]),
             grad_offset=torch.zeros_like(a["offset"]), grad_bias=z(cout))
    return a


ATTR_LISTS = ("kernel_size", "stride", "padding", "dilation")


def _random_mutation(rng, a):
    tensors = tuple(k for k in TENSOR_IN + TENSOR_OUT if a[k] is not None)
    lists = tuple(k for k in ATTR_LISTS if a[k] is not None)
    if not tensors or not lists:
        return
    kind = rng.randrange(12)
    if kind == 0:
        a[rng.choice(tensors + lists)] = None
    elif kind == 1:
        name = rng.choice(tensors)
        a[name] = a[name].to(rng.choice([torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int32]))
    elif kind == 2:  # an int array of the wrong length
        name = rng.choice(lists)
        a[name] = list(a[name]) + [1] if rng.chance(0.5) else list(a[name])[:-1]
    elif kind in (3, 4, 5, 6):  # one element of one int array near its bounds; one kind per array so
        name = ATTR_LISTS[kind - 3]  # that every array's bound rules are reached about equally often
        if not a[name]:
            return
        v = list(a[name])
        v[rng.randrange(len(v))] = rng.choice([-1, 0, 1, 2, 3, 50])
        a[name] = v
    elif kind == 7:
        a[rng.choice(["groups", "deformable_groups"])] = rng.choice([-1, 0, 1, 2, 3, 4])
    elif kind == 8:
        a["modulated"] = not a["modulated"]
    elif kind == 9:
        name = rng.choice(tensors)
        shape = list(a[name].shape)
        if shape and rng.chance(0.5):
            shape.pop(rng.randrange(len(shape)))
        else:
            shape.append(1)
        a[name] = torch.zeros(shape, dtype=a[name].dtype)
    else:  # change one dimension (possibly to 0 = empty)
        name = rng.choice(tensors)
        shape = list(a[name].shape)
        if not shape:
            return
        i = rng.randrange(len(shape))
        shape[i] = rng.choice([0, max(shape[i] - 1, 1), shape[i] + 1])
        a[name] = torch.zeros(shape, dtype=a[name].dtype)


@st.composite
def argument_sets(draw, max_mutations):
    """A valid argument set with 0..max_mutations random mutations of any kind."""
    rng = _Draws(draw)
    a = _random_valid(rng)
    for _ in range(draw(st.integers(0, max_mutations))):
        _random_mutation(rng, a)
    return a


def cpp_python_differential(python_judge, verdicts, mismatches):
    """The differential property: every argument set (valid, or with 1-3 random mutations of any
    kind) gets the same verdict (status, argument) from python_judge and the C++ validation. Collects
    the Python verdicts, and every set on which the two disagree (the last one is the set Hypothesis
    replays at the end: the shrunk, minimal falsifying example)."""

    @given(argument_sets(max_mutations=3))
    def check(a):
        py, cpp = python_judge(a), cpp_verdict(a)
        verdicts.add(py)
        if cpp != py:
            mismatches.append(a)
        assert cpp == py, f"C++ {cpp} != Python {py} for {a}"

    return check


def test_cpp_matches_python_on_random_argument_sets():
    """The differential property on the production Python validation."""
    _ext()
    verdicts, mismatches = set(), []
    PROFILE(cpp_python_differential(python_verdict, verdicts, mismatches))()
    assert not mismatches
    # The generator must reach every step: success, nulls, and invalid dtypes/attrs/dims/shapes.
    statuses = {s for s, _ in verdicts}
    assert statuses == {0, NULLPTR, INVALID}
    invalid_arguments = {arg for s, arg in verdicts if s == INVALID}
    assert len(invalid_arguments) >= 12
    assert {"kernelSize", "stride", "padding", "dilation", "groups", "deformableGroups"} <= invalid_arguments


class _MinimalDraws:
    """The draws Hypothesis shrinks towards: first option, lower bound, index 0, chance -> True."""

    def choice(self, seq):
        return list(seq)[0]

    def randint(self, lo, hi):
        return lo

    def randrange(self, n):
        return 0

    def chance(self, p):
        return True


def _planted_validator(rule, planted):
    """A private copy of ascend_dcn.validation (from its source) with one rule replaced; the production
    module is untouched."""
    source = inspect.getsource(validation)
    assert source.count(rule) == 1, f"rule {rule!r} not found once in ascend_dcn.validation"
    module = types.ModuleType("ascend_dcn._planted_validation")
    module.__package__ = "ascend_dcn"
    exec(compile(source.replace(rule, planted), "<planted ascend_dcn.validation>", "exec"), module.__dict__)
    return module


def _summary(a):
    """Tensors by shape and dtype, everything else by value (comparable with ==)."""
    return {k: (tuple(v.shape), v.dtype) if isinstance(v, torch.Tensor) else v for k, v in a.items()}


def _padding_top_minus_one(a):
    a["padding"] = [-1, 0, 0, 0]
    return a


# (rule as written in validation.py, its planted off-by-one copy, the minimal falsifying argument set)
PLANTED = [
    # padding >= -1 instead of >= 0: needs one mutation that sets a padding element to -1; minimal =
    # the smallest valid set (N 1, Cin = Cout = 1, 1x1 kernel, 5x5 image, fp32, modulated) with
    # padding [-1, 0, 0, 0].
    ("check_padding and min(pd) < 0:", "check_padding and min(pd) < -1:", _padding_top_minus_one),
    # stride >= 2 instead of >= 1: every stride-1 valid set is rejected; minimal = the smallest valid
    # set itself, without any mutation.
    ("if min(st) < 1:", "if min(st) < 2:", lambda a: a),
]


@pytest.mark.parametrize("rule,planted,minimal", PLANTED, ids=["padding-ge-minus1", "stride-ge-2"])
def test_differential_property_shrinks_a_planted_broken_rule(rule, planted, minimal):
    """A Python validator with one bound off by one must fail the differential property above, and
    Hypothesis must report the minimal argument set that violates the planted rule. Always run with
    the ci profile's settings (derandomized, no example database): deterministic."""
    _ext()
    broken = _planted_validator(rule, planted)
    verdicts, mismatches = set(), []
    prop = cpp_python_differential(lambda a: python_verdict(a, broken), verdicts, mismatches)
    with pytest.raises(AssertionError) as failure:
        settings.get_profile("ci")(prop)()
    expected = _summary(minimal(_random_valid(_MinimalDraws())))
    assert _summary(mismatches[-1]) == expected
    # Hypothesis attached its report of the shrunk example (a call of the property) to the failure.
    assert "check(" in "\n".join(getattr(failure.value, "__notes__", []))
    # The production validator agrees with C++ on that minimal set: the planted rule is the cause.
    assert python_verdict(mismatches[-1]) == cpp_verdict(mismatches[-1])


def test_raw_entry_agrees_with_python_on_random_argument_sets():
    """Same random sets through the generated layer + TilingFunc without the precheck: every valid set
    is accepted (phase 1) and every invalid one rejected — 161001 for null pointers, 161002 (generated
    layer) or 561002 (TilingFunc) for the rest."""
    _twin()

    @settings(PROFILE, max_examples=max(PROFILE.max_examples // 2, 1))
    @given(argument_sets(max_mutations=2))
    def check(a):
        py_status, py_arg = python_verdict(a)
        raw_status, _ = entry_verdict(a, precheck=False)
        if py_status == 0:
            assert raw_status == 0, f"valid arguments rejected with {raw_status}: {a}"
        elif py_status == NULLPTR and py_arg != "dilation":
            assert raw_status == NULLPTR, f"{a}"
        elif py_status == INVALID:
            assert raw_status in (INVALID, 561002), f"{a}"

    check()
