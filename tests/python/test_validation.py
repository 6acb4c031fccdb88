"""ascend_dcn.validation: one test per rule of op-semantics §6.5 (backward) / §6.6 (forward), the
status codes, the message format, and that the first failing rule wins."""
import pytest
import torch

from ascend_dcn import errors as E
from ascend_dcn import validation as V


def backward_args(dtype=torch.float32, modulated=True):
    """The DOC-B call example (op-semantics §6.5): a valid call with all outputs given."""
    blocks = 3 if modulated else 2
    z = lambda *s: torch.zeros(*s, dtype=dtype)  # noqa: E731
    return dict(input=z(1, 6, 2, 4), grad_output=z(1, 4, 2, 4), offset_out=z(1, 6, 10, 20),
                weight=z(4, 3, 5, 5), offset=z(1, blocks * 25, 2, 4), kernel_size=[5, 5],
                stride=[1, 1, 1, 1], padding=[2, 2, 2, 2], dilation=[1, 1, 1, 1], groups=2,
                deformable_groups=1, modulated=modulated, grad_input=z(1, 6, 2, 4),
                grad_weight=z(4, 3, 5, 5), grad_offset=z(1, blocks * 25, 2, 4), grad_bias=z(4),
                outputs_given=True)


KW_OF = {"gradOutput": "grad_output", "input": "input", "weight": "weight", "offsetOut": "offset_out",
         "offset": "offset", "gradInput": "grad_input", "gradWeight": "grad_weight",
         "gradOffset": "grad_offset", "gradBias": "grad_bias", "kernelSize": "kernel_size",
         "stride": "stride", "padding": "padding", "dilation": "dilation", "groups": "groups",
         "deformableGroups": "deformable_groups", "modulated": "modulated"}


def expect_error(kwargs, status, argument, rule_part, check=V.check_backward_args):
    with pytest.raises(E.AclnnError) as info:
        check(**kwargs)
    err = info.value
    assert (err.status, err.argument) == (status, argument), str(err)
    assert rule_part in err.rule, str(err)
    assert str(err) == f"{err.argument}: {err.rule}; expected {err.expected}, got {err.actual}"
    return err


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("modulated", [True, False])
def test_valid_calls_pass(dtype, modulated):
    assert V.check_backward_args(**backward_args(dtype, modulated)) is None
    kw = backward_args(dtype, modulated)
    for k in ("grad_input", "grad_weight", "grad_offset", "grad_bias"):
        kw[k] = None
    kw["outputs_given"] = False
    assert V.check_backward_args(**kw) is None


def test_error_classes_and_constants():
    assert (E.ACLNN_SUCCESS, E.ACLNN_ERR_PARAM_NULLPTR, E.ACLNN_ERR_PARAM_INVALID, E.ACLNN_ERR_INNER_NULLPTR) == \
        (0, 161001, 161002, 561103)
    e = E.AclnnNullptrError("input", "must not be None", "a", "b")
    assert isinstance(e, TypeError) and isinstance(e, E.AclnnError) and e.status == 161001
    e = E.AclnnParamInvalidError("groups", "must be > 0", "> 0", 0)
    assert isinstance(e, ValueError) and e.status == 161002
    assert str(e) == "groups: must be > 0; expected > 0, got 0"
    assert (e.argument, e.rule, e.expected, e.actual) == ("groups", "must be > 0", "> 0", 0)


# ---------------------------------------------------------------- step 1: CheckNotNull (161001)
NULLABLE = ["gradOutput", "input", "weight", "offsetOut", "offset", "gradInput", "gradWeight", "gradBias",
            "gradOffset", "kernelSize", "stride", "padding", "dilation"]


@pytest.mark.parametrize("arg", NULLABLE)
def test_null_argument(arg):
    kw = backward_args()
    kw[KW_OF[arg]] = None
    err = expect_error(kw, E.ACLNN_ERR_PARAM_NULLPTR, arg, "must not be None")
    assert isinstance(err, TypeError)


def test_null_outputs_allowed_when_not_given():
    kw = backward_args()
    kw.update(grad_input=None, outputs_given=False)
    assert V.check_backward_args(**kw) is None


# ---------------------------------------------------------------- step 1b: Python types (161002)
@pytest.mark.parametrize("arg,value,rule", [
    ("input", [[1.0]], "must be a torch.Tensor"),
    ("gradBias", (0.0,) * 4, "must be a torch.Tensor"),
    ("kernelSize", "55", "must be a sequence of ints"),
    ("kernelSize", 5, "must be a sequence of ints"),
    ("kernelSize", [5.0, 5], "elements must be ints"),
    ("stride", [1, 1, True, 1], "elements must be ints"),
    ("groups", True, "must be an int"),
    ("groups", 2.0, "must be an int"),
    ("deformableGroups", "1", "must be an int"),
    ("modulated", 1, "must be a bool"),
])
def test_python_type(arg, value, rule):
    kw = backward_args()
    kw[KW_OF[arg]] = value
    err = expect_error(kw, E.ACLNN_ERR_PARAM_INVALID, arg, rule)
    assert isinstance(err, ValueError)


def test_int_like_values_accepted():
    import numpy as np
    kw = backward_args()
    kw.update(kernel_size=torch.tensor([5, 5]), stride=(np.int64(1),) * 4, groups=np.int32(2))
    assert V.check_backward_args(**kw) is None


# ---------------------------------------------------------------- step 2: CheckDtypeValid
def test_input_dtype_must_be_supported():
    for dtype in (torch.float64, torch.int32):
        kw = {k: (v.to(dtype) if isinstance(v, torch.Tensor) else v) for k, v in backward_args().items()}
        expect_error(kw, 161002, "input", "dtype must be float32, float16 or bfloat16")


@pytest.mark.parametrize("arg", ["gradInput", "gradWeight", "gradOffset", "weight", "offsetOut", "offset",
                                 "gradOutput"])
def test_dtype_must_equal_input(arg):
    kw = backward_args()
    kw[KW_OF[arg]] = kw[KW_OF[arg]].half()
    if arg == "gradOutput":
        kw["grad_bias"] = kw["grad_bias"].half()
    expect_error(kw, 161002, arg, "dtype must equal the dtype of input")


def test_grad_bias_dtype_must_equal_grad_output():
    kw = backward_args()
    kw["grad_bias"] = kw["grad_bias"].bfloat16()
    expect_error(kw, 161002, "gradBias", "dtype must equal the dtype of gradOutput")


# ---------------------------------------------------------------- step 3: CheckFormat
@pytest.mark.parametrize("arg", ["gradOutput", "input", "weight", "offsetOut", "offset", "gradInput",
                                 "gradWeight", "gradOffset", "gradBias"])
def test_format_dense(arg):
    kw = backward_args()
    kw[KW_OF[arg]] = kw[KW_OF[arg]].to_sparse()
    expect_error(kw, 161002, arg, "format must be a dense tensor")


# ---------------------------------------------------------------- step 4: CheckAttrs
@pytest.mark.parametrize("arg,value,rule", [
    ("kernelSize", [5, 5, 1], "size must be 2"),
    ("stride", [1, 1, 1], "size must be 4"),
    ("padding", [2, 2, 2, 2, 2], "size must be 4"),
    ("dilation", [1, 1], "size must be 4"),
    ("kernelSize", [0, 5], "every element must be > 0"),
    ("kernelSize", [5, -1], "every element must be > 0"),
    ("kernelSize", [64, 33], "kH*kW must be <= 2048"),
    ("stride", [2, 1, 1, 1], "N and C entries"),
    ("stride", [1, 2, 1, 1], "N and C entries"),
    ("stride", [1, 1, 0, 1], "every element must be >= 1"),
    ("stride", [1, 1, 1, -2], "every element must be >= 1"),
    ("padding", [2, -1, 2, 2], "every element must be >= 0"),
    ("dilation", [1, 2, 1, 1], "N and C entries"),
    ("dilation", [1, 1, 0, 1], "every element must be >= 1"),
    ("groups", 0, "must be > 0"),
    ("deformableGroups", -1, "must be > 0"),
])
def test_attribute_rule(arg, value, rule):
    kw = backward_args()
    kw[KW_OF[arg]] = value
    expect_error(kw, 161002, arg, rule)


def test_kernel_points_limit_is_inclusive():
    # 2048 points pass the attribute step (then fail later on shapes, not on the 2048 rule)
    kw = backward_args()
    kw["kernel_size"] = [64, 32]
    err = expect_error(kw, 161002, "weight", "shape mismatch")
    assert "2048" not in err.rule


def test_modulated_false_is_our_extension():
    kw = backward_args(modulated=False)
    assert V.check_backward_args(**kw) is None
    kw = backward_args(modulated=True)
    kw["modulated"] = False          # 3-block offset with modulated=False
    expect_error(kw, 161002, "offset", "shape mismatch")


# ---------------------------------------------------------------- step 5: CheckDimension
@pytest.mark.parametrize("arg", ["gradOutput", "input", "weight", "offsetOut", "offset", "gradInput",
                                 "gradWeight", "gradOffset"])
def test_four_dimensional(arg):
    kw = backward_args()
    t = kw[KW_OF[arg]]
    kw[KW_OF[arg]] = t.reshape(t.shape[0] * t.shape[1], *t.shape[2:])
    expect_error(kw, 161002, arg, "must be 4-D")


def test_grad_bias_one_dimensional():
    kw = backward_args()
    kw["grad_bias"] = kw["grad_bias"].reshape(2, 2)
    expect_error(kw, 161002, "gradBias", "must be 1-D")


# ---------------------------------------------------------------- step 6: CheckShape
@pytest.mark.parametrize("arg,shape", [("input", (1, 0, 2, 4)), ("gradOutput", (0, 4, 2, 4)),
                                       ("gradBias", (0,)), ("offset", (1, 75, 0, 4))])
def test_empty_tensors_rejected(arg, shape):
    kw = backward_args()
    kw[KW_OF[arg]] = torch.zeros(shape)
    expect_error(kw, 161002, arg, "empty tensors are not supported")


def test_in_channels_divisible_by_deformable_groups():
    kw = backward_args()
    kw["deformable_groups"] = 4
    expect_error(kw, 161002, "deformableGroups", "inC must be divisible by deformableGroups")


def test_in_channels_divisible_by_groups():
    kw = backward_args()
    kw["groups"] = 4
    expect_error(kw, 161002, "groups", "inC must be divisible by groups")


def test_out_channels_divisible_by_groups():
    kw = backward_args()
    kw["groups"] = 3
    expect_error(kw, 161002, "groups", "outC (weight.shape[0]) must be divisible by groups")


def test_input_plane_size_limit():
    kw = backward_args()
    kw["input"] = torch.zeros(1).expand(1, 6, 50000, 50000)   # stride-0 view, no allocation
    expect_error(kw, 161002, "input", "inH*inW must be <= 2147483647")


@pytest.mark.parametrize("arg,shape", [
    ("weight", (4, 3, 5, 4)), ("weight", (4, 2, 5, 5)),
    ("offset", (1, 50, 2, 4)), ("offset", (1, 75, 2, 3)),
    ("gradOutput", (1, 5, 2, 4)), ("gradOutput", (1, 4, 1, 4)),
    ("offsetOut", (1, 6, 10, 19)),
    ("gradInput", (1, 6, 2, 5)), ("gradWeight", (4, 3, 5, 6)), ("gradOffset", (1, 75, 3, 4)),
    ("gradBias", (5,)),
])
def test_shape_rule(arg, shape):
    kw = backward_args()
    kw[KW_OF[arg]] = torch.zeros(shape)
    if arg == "gradOutput":
        kw["grad_bias"] = torch.zeros(shape[1]) if shape[1] != 4 else kw["grad_bias"]
    err = expect_error(kw, 161002, arg, "shape mismatch")
    assert err.actual == list(shape)


def test_kernel_reduction_limit():
    # kH*kW = 2025 <= 2048 but kH*kW*inC/groups = 2025*33 = 66825 > 65535; every shape is consistent
    z = torch.zeros
    kw = dict(input=z(1, 33, 1, 1), grad_output=z(1, 1, 1, 1), offset_out=z(1, 33, 45, 45),
              weight=z(1, 33, 45, 45), offset=z(1, 3 * 2025, 1, 1), kernel_size=[45, 45],
              stride=[1, 1, 1, 1], padding=[22, 22, 22, 22], dilation=[1, 1, 1, 1], groups=1,
              deformable_groups=1, modulated=True)
    expect_error(kw, 161002, "kernelSize", "kH*kW*inC/groups must be <= 65535")
    kw.update(input=z(1, 32, 1, 1), offset_out=z(1, 32, 45, 45), weight=z(1, 32, 45, 45))   # 64800: OK
    assert V.check_backward_args(**kw) is None


# ---------------------------------------------------------------- order: the first failing rule wins
@pytest.mark.parametrize("changes,status,argument,rule", [
    # null beats every later step, and nulls go in the documented argument order
    ({"grad_output": None, "input": torch.zeros(1, 6, 2, 4, dtype=torch.float64)}, 161001, "gradOutput", "None"),
    ({"input": None, "kernel_size": None}, 161001, "input", "None"),
    ({"grad_offset": None, "grad_bias": None}, 161001, "gradBias", "None"),
    ({"dilation": None, "groups": 0}, 161001, "dilation", "None"),
    # python types before dtypes
    ({"modulated": "yes", "weight": torch.zeros(4, 3, 5, 5, dtype=torch.float16)}, 161002, "modulated", "bool"),
    # dtype before format, attrs, dims, shapes
    ({"offset": torch.zeros(1, 75, 2, 4).half(), "grad_input": torch.zeros(1, 6, 2, 4).half()},
     161002, "gradInput", "dtype"),
    ({"weight": torch.zeros(4, 3, 5, 5).half(), "grad_output": torch.zeros(1, 4, 2, 4).to_sparse()},
     161002, "weight", "dtype"),
    ({"offset": torch.zeros(2, 2).half(), "groups": -1}, 161002, "offset", "dtype"),
    # format before attrs
    ({"input": torch.zeros(1, 6, 2, 4).to_sparse(), "stride": [1]}, 161002, "input", "format"),
    # attrs before dims and shapes, in attribute order
    ({"padding": [-1, 0, 0, 0], "stride": [1, 1, 0, 0]}, 161002, "stride", ">= 1"),
    ({"kernel_size": [3], "stride": [1]}, 161002, "kernelSize", "size must be 2"),
    ({"groups": 0, "deformable_groups": 0}, 161002, "groups", "> 0"),
    ({"deformable_groups": 0, "offset": torch.zeros(75, 2, 4)}, 161002, "deformableGroups", "> 0"),
    # dims before shapes
    ({"grad_bias": torch.zeros(4, 1), "weight": torch.zeros(4, 3, 5, 4)}, 161002, "gradBias", "1-D"),
    # empty before divisibility; divisibility before shape equality
    ({"input": torch.zeros(1, 0, 2, 4), "groups": 4}, 161002, "input", "empty"),
    ({"deformable_groups": 4, "groups": 4}, 161002, "deformableGroups", "divisible"),
    ({"groups": 3, "weight": torch.zeros(4, 2, 5, 5)}, 161002, "groups", "outC"),
    ({"weight": torch.zeros(4, 3, 5, 4), "offset": torch.zeros(1, 74, 2, 4)}, 161002, "weight", "shape"),
    ({"offset": torch.zeros(1, 74, 2, 4), "grad_output": torch.zeros(1, 4, 2, 5)}, 161002, "offset", "shape"),
    ({"grad_input": torch.zeros(1, 6, 2, 5), "grad_bias": torch.zeros(3)}, 161002, "gradInput", "shape"),
])
def test_first_failing_rule_wins(changes, status, argument, rule):
    kw = backward_args()
    kw.update(changes)
    expect_error(kw, status, argument, rule)


# ---------------------------------------------------------------- forward (op-semantics §6.6)
def forward_args(modulated=True):
    blocks = 3 if modulated else 2
    z = torch.zeros
    return dict(input=z(1, 6, 2, 4), weight=z(4, 3, 5, 5), offset=z(1, blocks * 25, 2, 4), bias=z(4),
                kernel_size=[5, 5], stride=[1, 1, 1, 1], padding=[2, 2, 2, 2], dilation=[1, 1, 1, 1],
                groups=2, deformable_groups=1, modulated=modulated, out=z(1, 4, 2, 4),
                deform_out=z(1, 6, 10, 20), outputs_given=True)


@pytest.mark.parametrize("modulated", [True, False])
def test_forward_valid(modulated):
    assert V.check_forward_args(**forward_args(modulated)) is None
    kw = forward_args(modulated)
    kw.update(bias=None, out=None, deform_out=None, outputs_given=False)
    assert V.check_forward_args(**kw) is None


@pytest.mark.parametrize("changes,status,argument,rule", [
    ({"input": None}, 161001, "input", "None"),
    ({"offset": None, "input": None}, 161001, "input", "None"),
    ({"out": None}, 161001, "out", "None"),
    ({"deform_out": None}, 161001, "deformOut", "None"),
    ({"kernel_size": None}, 161001, "kernel_size", "None"),
    ({"input": torch.zeros(1, 6, 2, 4, dtype=torch.float64)}, 161002, "input", "float32, float16 or bfloat16"),
    ({"bias": torch.zeros(4).half()}, 161002, "bias", "dtype must equal the dtype of input"),
    ({"deform_out": torch.zeros(1, 6, 10, 20).half()}, 161002, "deformOut", "dtype"),
    ({"bias": torch.zeros(4).to_sparse()}, 161002, "bias", "format"),
    ({"kernel_size": [50, 50]}, 161002, "kernel_size", "2048"),
    ({"stride": [1, 1, 0, 1]}, 161002, "stride", ">= 1"),
    ({"dilation": [2, 1, 1, 1]}, 161002, "dilation", "N and C"),
    ({"groups": 0}, 161002, "groups", "> 0"),
    ({"bias": torch.zeros(1, 4)}, 161002, "bias", "1-D"),
    ({"out": torch.zeros(4, 2, 4)}, 161002, "out", "4-D"),
    ({"input": torch.zeros(1, 6, 0, 4)}, 161002, "input", "empty"),
    ({"deformable_groups": 4}, 161002, "deformable_groups", "divisible"),
    ({"bias": torch.zeros(5)}, 161002, "bias", "shape"),
    ({"out": torch.zeros(1, 4, 2, 5)}, 161002, "out", "shape"),
    ({"deform_out": torch.zeros(1, 6, 10, 21)}, 161002, "deformOut", "shape"),
    ({"offset": torch.zeros(1, 50, 2, 4)}, 161002, "offset", "shape"),
])
def test_forward_rules(changes, status, argument, rule):
    kw = forward_args()
    kw.update(changes)
    expect_error(kw, status, argument, rule, check=V.check_forward_args)


def test_forward_enforces_the_backwards_padding_rule():
    # aclnnDeformableConv2d alone has no padding >= 0 check (§6.6), but the layer's backward (the
    # operator) has: the forward checks it too, so the mistake fails before any work is done
    kw = forward_args()
    kw.update(padding=[3, 1, 2, 2])
    assert V.check_forward_args(**kw) is None
    kw.update(padding=[-1, 5, 2, 2])
    expect_error(kw, 161002, "padding", ">= 0", check=V.check_forward_args)
    bk = backward_args()
    bk.update(padding=[-1, 5, 2, 2])
    expect_error(bk, 161002, "padding", ">= 0")
