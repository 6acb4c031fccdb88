"""Argument validation with the rules and evaluation order of the aclnn API (op-semantics §6.5/§6.6).

check_backward_args(...) runs the steps of aclnnDeformableConv2dBackward's checker in this order
and raises the first failure as an ascend_dcn.errors.AclnnError (message
``<argument>: <rule>; expected <x>, got <y>``, aclnn parameter names):

  0. (arch check DAV_3510 — intentionally skipped: this package exists to run on A2/A3)
  1. CheckNotNull (161001): gradOutput, input, weight, offsetOut, offset, [gradInput, gradWeight,
     gradBias, gradOffset — only when outputs_given=True], kernelSize, stride, padding, dilation.
  1b. Python types (161002, same argument order): tensors must be torch.Tensor, int arrays must be
     sequences of ints (bool is not an int), groups/deformableGroups ints (not bool), modulated bool.
  2. CheckDtypeValid: input dtype in {float32, float16, bfloat16}; gradInput, gradWeight, gradOffset,
     weight, offsetOut, offset, gradOutput dtype == input dtype; gradBias dtype == gradOutput dtype.
  3. CheckFormat: a torch tensor carries no aclFormat; a 4-D strided tensor is taken as NCHW and a
     1-D one as ND. The rule enforced is "dense (torch.strided) layout" — sparse/mkldnn tensors are
     rejected — in the order gradOutput, input, weight, offsetOut, offset, gradInput, gradWeight,
     gradOffset, gradBias. (Dimension counts are step 5.)
  4. CheckAttrs: kernelSize size 2; stride, padding, dilation size 4; kH > 0 and kW > 0;
     kH*kW <= 2048; stride[0] == stride[1] == 1; every stride >= 1; every padding >= 0;
     dilation[0] == dilation[1] == 1; every dilation >= 1; groups > 0; deformableGroups > 0.
     modulated == true is NOT required (our extension: modulated=False means a 2-block offset).
  5. CheckDimension: gradOutput, input, weight, offsetOut, offset, gradInput, gradWeight, gradOffset
     are 4-D; gradBias is 1-D.
  6. CheckShape: first "empty tensors are not supported" (any dimension 0; same tensor order as
     step 5) — placed first so that no divisibility/size rule is evaluated on empty shapes; then
     inC % deformableGroups == 0; inC % groups == 0; outC % groups == 0 (outC = weight.shape[0]);
     inH*inW <= 2147483647; weight == [outC, inC/groups, kH, kW];
     offset == [N, B*dg*kH*kW, outH, outW] (B = 3 if modulated else 2);
     gradOutput == [N, outC, outH, outW]; offsetOut == [N, inC, outH*kH, outW*kW];
     gradInput == input shape; gradWeight == weight shape; gradOffset == offset shape;
     gradBias == [outC]; kH*kW*inC/groups <= 65535.

Output tensors (gradInput...) are optional in Python: with outputs_given=False a None output is
fine (a non-None one is still checked); with outputs_given=True a None output is a 161001 error,
as in the C API.
"""

import numbers

import torch

from .errors import ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_PARAM_NULLPTR, error_for_status

__all__ = ["check_backward_args", "check_forward_args", "check_tv_args", "ALLOWED_DTYPES", "INT32_MAX"]

ALLOWED_DTYPES = (torch.float32, torch.float16, torch.bfloat16)
INT32_MAX = 2147483647
MAX_KERNEL_POINTS = 2048
MAX_KERNEL_REDUCTION = 65535


def _fail(status, argument, rule, expected, actual):
    raise error_for_status(status, argument, rule, expected, actual)


def _invalid(argument, rule, expected, actual):
    _fail(ACLNN_ERR_PARAM_INVALID, argument, rule, expected, actual)


def _dtype_name(dtype):
    return str(dtype).replace("torch.", "")


def _is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, (bool,)) and \
        type(v).__name__ != "bool_"


def _is_bool(v):
    return isinstance(v, bool) or type(v).__name__ == "bool_"


def _check_not_null(items):
    for name, value in items:
        if value is None:
            _fail(ACLNN_ERR_PARAM_NULLPTR, name, "must not be None (null pointer)", "a value", "None")


def _check_types(tensors, int_arrays, ints, bools):
    for name, t in tensors:
        if t is not None and not isinstance(t, torch.Tensor):
            _invalid(name, "must be a torch.Tensor", "torch.Tensor", type(t).__name__)
    for name, arr in int_arrays:
        if isinstance(arr, (str, bytes)) or not hasattr(arr, "__len__") or not hasattr(arr, "__iter__"):
            _invalid(name, "must be a sequence of ints", "list of int", type(arr).__name__)
        if isinstance(arr, torch.Tensor) and arr.dim() != 1:
            _invalid(name, "must be a sequence of ints", "1-D sequence", f"{arr.dim()}-D tensor")
        for v in arr:
            v = v.item() if isinstance(v, torch.Tensor) and v.dim() == 0 and not v.is_floating_point() else v
            if not _is_int(v):
                _invalid(name, "elements must be ints", "int", f"{type(v).__name__} {v!r}")
    for name, v in ints:
        if not _is_int(v):
            _invalid(name, "must be an int (bool is not accepted)", "int", f"{type(v).__name__} {v!r}")
    for name, v in bools:
        if not _is_bool(v):
            _invalid(name, "must be a bool", "bool", f"{type(v).__name__} {v!r}")


def _ints(arr):
    return [int(v) for v in arr]


def _check_dtypes(first_name, first, same_as_first, tail_name=None, tail=None, tail_ref_name=None,
                  tail_ref=None, allow_float64=False):
    if first.dtype not in ALLOWED_DTYPES and not (allow_float64 and first.dtype == torch.float64):
        if allow_float64:
            _invalid(first_name, "dtype must be float32, float16, bfloat16 or float64 (float64 on CPU only)",
                     "one of [float32, float16, bfloat16, float64]", _dtype_name(first.dtype))
        _invalid(first_name, "dtype must be float32, float16 or bfloat16",
                 "one of [float32, float16, bfloat16]", _dtype_name(first.dtype))
    for name, t in same_as_first:
        if t is not None and t.dtype != first.dtype:
            _invalid(name, f"dtype must equal the dtype of {first_name}", _dtype_name(first.dtype),
                     _dtype_name(t.dtype))
    if tail is not None and tail_ref is not None and tail.dtype != tail_ref.dtype:
        _invalid(tail_name, f"dtype must equal the dtype of {tail_ref_name}", _dtype_name(tail_ref.dtype),
                 _dtype_name(tail.dtype))


def _check_formats(tensors):
    for name, t in tensors:
        if t is not None and t.layout != torch.strided:
            _invalid(name, "format must be a dense tensor (NCHW for 4-D, ND for 1-D)",
                     "torch.strided layout", str(t.layout))


# Argument names used in messages: the aclnn parameter names (the operator's contract) ...
ACLNN_NAMES = {"input": "input", "kernel_size": "kernelSize", "deformable_groups": "deformableGroups",
               "stride": "stride", "padding": "padding", "dilation": "dilation", "groups": "groups"}
# ... and the Python argument names of the torch_npu-style function (ascend_dcn.deformable_conv2d).
PYTHON_NAMES = {"input": "input", "kernel_size": "kernel_size", "deformable_groups": "deformable_groups",
                "stride": "stride", "padding": "padding", "dilation": "dilation", "groups": "groups"}


def _check_attrs(ks, st, pd, dl, groups, dg, check_padding, names=ACLNN_NAMES):
    n = names
    if len(ks) != 2:
        _invalid(n["kernel_size"], "size must be 2", 2, len(ks))
    for key, arr in (("stride", st), ("padding", pd), ("dilation", dl)):
        if len(arr) != 4:
            _invalid(n[key], "size must be 4", 4, len(arr))
    if ks[0] <= 0 or ks[1] <= 0:
        _invalid(n["kernel_size"], "every element must be > 0", "kH > 0 and kW > 0", ks)
    if ks[0] * ks[1] > MAX_KERNEL_POINTS:
        _invalid(n["kernel_size"], f"kH*kW must be <= {MAX_KERNEL_POINTS}", f"<= {MAX_KERNEL_POINTS}",
                 ks[0] * ks[1])
    if st[0] != 1 or st[1] != 1:
        _invalid(n["stride"], "N and C entries (stride[0], stride[1]) must be 1", "[1, 1, ...]", st)
    if min(st) < 1:
        _invalid(n["stride"], "every element must be >= 1", "all >= 1", st)
    if check_padding and min(pd) < 0:
        _invalid(n["padding"], "every element must be >= 0", "all >= 0", pd)
    if dl[0] != 1 or dl[1] != 1:
        _invalid(n["dilation"], "N and C entries (dilation[0], dilation[1]) must be 1", "[1, 1, ...]", dl)
    if min(dl) < 1:
        _invalid(n["dilation"], "every element must be >= 1", "all >= 1", dl)
    if groups <= 0:
        _invalid(n["groups"], "must be > 0", "> 0", groups)
    if dg <= 0:
        _invalid(n["deformable_groups"], "must be > 0", "> 0", dg)


def _check_dims(tensors_4d, tensors_1d):
    for name, t in tensors_4d:
        if t is not None and t.dim() != 4:
            _invalid(name, "must be 4-D", "4 dimensions", f"{t.dim()} dimensions {list(t.shape)}")
    for name, t in tensors_1d:
        if t is not None and t.dim() != 1:
            _invalid(name, "must be 1-D", "1 dimension", f"{t.dim()} dimensions {list(t.shape)}")


def _check_not_empty(tensors, allow_empty_batch=False):
    """Every dimension > 0; with allow_empty_batch, dimension 0 (the batch N) of 4-D tensors may be 0
    (the layers return empty outputs for N = 0 without calling the operator)."""
    for name, t in tensors:
        if t is None or t.numel() != 0:
            continue
        dims = list(t.shape[1:]) if (allow_empty_batch and t.dim() == 4) else list(t.shape)
        if any(d == 0 for d in dims):
            rule = ("empty tensors are not supported (only the batch dimension may be 0)"
                    if allow_empty_batch else "empty tensors are not supported")
            _invalid(name, rule, "every dimension > 0", list(t.shape))


def _out_hw(H, W, ks, st, pd, dl):
    Ho = (H + pd[0] + pd[1] - ((ks[0] - 1) * dl[2] + 1)) // st[2] + 1
    Wo = (W + pd[2] + pd[3] - ((ks[1] - 1) * dl[3] + 1)) // st[3] + 1
    return Ho, Wo


def _expect_shape(name, t, expected):
    if t is not None and list(t.shape) != list(expected):
        _invalid(name, "shape mismatch", list(expected), list(t.shape))


def _check_channel_rules(inp, weight, ks, groups, dg, names=ACLNN_NAMES):
    n = names
    N, C, H, W = inp.shape
    Cout = weight.shape[0]
    if C % dg:
        _invalid(n["deformable_groups"], f"inC must be divisible by {n['deformable_groups']}",
                 f"inC % {n['deformable_groups']} == 0 (inC={C})", f"{C} % {dg} = {C % dg}")
    if C % groups:
        _invalid(n["groups"], "inC must be divisible by groups", f"inC % groups == 0 (inC={C})",
                 f"{C} % {groups} = {C % groups}")
    if Cout % groups:
        _invalid(n["groups"], "outC (weight.shape[0]) must be divisible by groups",
                 f"outC % groups == 0 (outC={Cout})", f"{Cout} % {groups} = {Cout % groups}")
    if H * W > INT32_MAX:
        _invalid(n["input"], "inH*inW must be <= 2147483647", f"<= {INT32_MAX}", H * W)
    return N, C, H, W, Cout


def _check_output_size(Ho, Wo, names, H, W):
    if Ho <= 0 or Wo <= 0:
        _invalid(names["input"], "the output would be empty: the padded input is smaller than the "
                 "dilated kernel", "outH > 0 and outW > 0", f"outH={Ho}, outW={Wo} (inH={H}, inW={W})")


def check_backward_args(input, grad_output, offset_out, weight, offset, kernel_size, stride, padding,
                        dilation, groups, deformable_groups, modulated, grad_input=None, grad_weight=None,
                        grad_offset=None, grad_bias=None, outputs_given=False):
    """Validate the arguments of aclnnDeformableConv2dBackward / npu_deformable_conv2dbk.

    Raises AclnnNullptrError (161001) or AclnnParamInvalidError (161002); returns None if valid."""
    # Step 1: CheckNotNull.
    required = [("gradOutput", grad_output), ("input", input), ("weight", weight),
                ("offsetOut", offset_out), ("offset", offset)]
    if outputs_given:
        required += [("gradInput", grad_input), ("gradWeight", grad_weight), ("gradBias", grad_bias),
                     ("gradOffset", grad_offset)]
    required += [("kernelSize", kernel_size), ("stride", stride), ("padding", padding),
                 ("dilation", dilation)]
    _check_not_null(required)
    # Step 1b: Python types.
    tensors = [("gradOutput", grad_output), ("input", input), ("weight", weight), ("offsetOut", offset_out),
               ("offset", offset), ("gradInput", grad_input), ("gradWeight", grad_weight),
               ("gradBias", grad_bias), ("gradOffset", grad_offset)]
    _check_types(tensors,
                 [("kernelSize", kernel_size), ("stride", stride), ("padding", padding),
                  ("dilation", dilation)],
                 [("groups", groups), ("deformableGroups", deformable_groups)],
                 [("modulated", modulated)])
    # Step 2: CheckDtypeValid.
    _check_dtypes("input", input,
                  [("gradInput", grad_input), ("gradWeight", grad_weight), ("gradOffset", grad_offset),
                   ("weight", weight), ("offsetOut", offset_out), ("offset", offset),
                   ("gradOutput", grad_output)],
                  "gradBias", grad_bias, "gradOutput", grad_output)
    # Step 3: CheckFormat.
    _check_formats([("gradOutput", grad_output), ("input", input), ("weight", weight),
                    ("offsetOut", offset_out), ("offset", offset), ("gradInput", grad_input),
                    ("gradWeight", grad_weight), ("gradOffset", grad_offset), ("gradBias", grad_bias)])
    # Step 4: CheckAttrs.
    ks, st, pd, dl = _ints(kernel_size), _ints(stride), _ints(padding), _ints(dilation)
    groups, dg = int(groups), int(deformable_groups)
    _check_attrs(ks, st, pd, dl, groups, dg, check_padding=True)
    # Step 5: CheckDimension.
    four_d = [("gradOutput", grad_output), ("input", input), ("weight", weight), ("offsetOut", offset_out),
              ("offset", offset), ("gradInput", grad_input), ("gradWeight", grad_weight),
              ("gradOffset", grad_offset)]
    _check_dims(four_d, [("gradBias", grad_bias)])
    # Step 6: CheckShape.
    _check_not_empty(four_d + [("gradBias", grad_bias)])
    N, C, H, W, Cout = _check_channel_rules(input, weight, ks, groups, dg)
    Ho, Wo = _out_hw(H, W, ks, st, pd, dl)
    blocks = 3 if modulated else 2
    _expect_shape("weight", weight, [Cout, C // groups, ks[0], ks[1]])
    _expect_shape("offset", offset, [N, blocks * dg * ks[0] * ks[1], Ho, Wo])
    _expect_shape("gradOutput", grad_output, [N, Cout, Ho, Wo])
    _expect_shape("offsetOut", offset_out, [N, C, Ho * ks[0], Wo * ks[1]])
    _expect_shape("gradInput", grad_input, list(input.shape))
    _expect_shape("gradWeight", grad_weight, list(weight.shape))
    _expect_shape("gradOffset", grad_offset, list(offset.shape))
    _expect_shape("gradBias", grad_bias, [Cout])
    reduction = ks[0] * ks[1] * (C // groups)
    if reduction > MAX_KERNEL_REDUCTION:
        _invalid("kernelSize", f"kH*kW*inC/groups must be <= {MAX_KERNEL_REDUCTION}",
                 f"<= {MAX_KERNEL_REDUCTION}", reduction)


def check_forward_args(input, weight, offset, bias, kernel_size, stride, padding, dilation, groups=1,
                       deformable_groups=1, modulated=True, out=None, deform_out=None, outputs_given=False,
                       allow_empty_batch=False, allow_float64=False, names=PYTHON_NAMES):
    """Validate the arguments of the forward (npu_deformable_conv2d's argument list; op-semantics §6.6).

    Same step structure as check_backward_args: null checks for input, offset, weight, [out, deformOut
    if outputs_given], kernel_size, stride, padding, dilation (bias is optional); dtypes of
    bias/deformOut/offset/weight/out == input; 4-D input/weight/offset/out/deformOut, 1-D bias;
    bias == [outC], out == [N, outC, outH, outW], deformOut == [N, inC, outH*kH, outW*kW].
    The forward also enforces the backward's rules (every padding >= 0, kH*kW*inC/groups <= 65535,
    non-empty output), so that a call that would fail in the backward fails here, before any work.
    Empty tensors are rejected (the operator cannot accept them), except, with allow_empty_batch,
    a batch of N = 0. float64 is accepted with allow_float64 (CPU: computed by the float64 path).
    Messages name the arguments by ``names`` (default: the Python argument names)."""
    n = names
    required = [(n["input"], input), ("offset", offset), ("weight", weight)]
    if outputs_given:
        required += [("out", out), ("deformOut", deform_out)]
    required += [(n["kernel_size"], kernel_size), (n["stride"], stride), (n["padding"], padding),
                 (n["dilation"], dilation)]
    _check_not_null(required)
    tensors = [(n["input"], input), ("weight", weight), ("offset", offset), ("bias", bias), ("out", out),
               ("deformOut", deform_out)]
    _check_types(tensors,
                 [(n["kernel_size"], kernel_size), (n["stride"], stride), (n["padding"], padding),
                  (n["dilation"], dilation)],
                 [(n["groups"], groups), (n["deformable_groups"], deformable_groups)],
                 [("modulated", modulated)])
    _check_dtypes(n["input"], input, [("bias", bias), ("deformOut", deform_out), ("offset", offset),
                                      ("weight", weight), ("out", out)], allow_float64=allow_float64)
    _check_formats(tensors)
    ks, st, pd, dl = _ints(kernel_size), _ints(stride), _ints(padding), _ints(dilation)
    groups, dg = int(groups), int(deformable_groups)
    _check_attrs(ks, st, pd, dl, groups, dg, check_padding=True, names=n)
    four_d = [(n["input"], input), ("weight", weight), ("offset", offset), ("out", out),
              ("deformOut", deform_out)]
    _check_dims(four_d, [("bias", bias)])
    _check_not_empty(four_d + [("bias", bias)], allow_empty_batch=allow_empty_batch)
    N, C, H, W, Cout = _check_channel_rules(input, weight, ks, groups, dg, names=n)
    Ho, Wo = _out_hw(H, W, ks, st, pd, dl)
    _check_output_size(Ho, Wo, n, H, W)
    blocks = 3 if modulated else 2
    _expect_shape("weight", weight, [Cout, C // groups, ks[0], ks[1]])
    _expect_shape("offset", offset, [N, blocks * dg * ks[0] * ks[1], Ho, Wo])
    _expect_shape("bias", bias, [Cout])
    _expect_shape("out", out, [N, Cout, Ho, Wo])
    _expect_shape("deformOut", deform_out, [N, C, Ho * ks[0], Wo * ks[1]])
    _check_reduction(ks, C, groups, n)


def _check_reduction(ks, C, groups, names):
    reduction = ks[0] * ks[1] * (C // groups)
    if reduction > MAX_KERNEL_REDUCTION:
        _invalid(names["kernel_size"], f"kH*kW*inC/groups must be <= {MAX_KERNEL_REDUCTION}",
                 f"<= {MAX_KERNEL_REDUCTION}", reduction)


TV_NAMES = {"input": "input", "kernel_size": "weight", "deformable_groups": "offset",
            "stride": "stride", "padding": "padding", "dilation": "dilation", "groups": "weight"}


def check_tv_args(input, offset, weight, bias, stride, padding, dilation, mask,
                  allow_float64=True, offset_channel_blocks=2, same_dtype=True):
    """Validate torchvision.ops.deform_conv2d's arguments in its own terms, before any conversion.

    stride, dilation: (sH, sW), (dH, dW); padding: [top, bottom, left, right]. offset
    [N, 2*dg*KH*KW, Ho, Wo] (dg = offset.shape[1] // (2*KH*KW)), mask [N, dg*KH*KW, Ho, Wo] or None,
    groups = inC / weight.shape[1]. Step order: None, types, dimensions, then (torchvision checks
    them first) the offset and mask channel counts, then dtypes, format, attributes, empties (a batch
    N = 0 is allowed), channel rules, shapes. Every
    failure is an AclnnError (a RuntimeError, as torchvision raises for these mistakes)."""
    _check_not_null([("input", input), ("offset", offset), ("weight", weight)])
    tensors = [("input", input), ("offset", offset), ("weight", weight), ("bias", bias), ("mask", mask)]
    _check_types(tensors, [("stride", stride), ("padding", padding), ("dilation", dilation)], [], [])
    four_d = [("input", input), ("offset", offset), ("weight", weight), ("mask", mask)]
    _check_dims(four_d, [("bias", bias)])
    # torchvision checks the offset and mask channel counts first: so do we (same failure first)
    Cout, Cg, KH, KW = weight.shape
    K = KH * KW
    per_group = offset_channel_blocks * K
    if per_group == 0 or offset.shape[1] % per_group or offset.shape[1] == 0:
        _invalid("offset", "the shape of the offset tensor at dimension 1 is not valid: offset.shape[1] "
                 f"must be a positive multiple of {offset_channel_blocks}*kH*kW",
                 f"a multiple of {per_group}", offset.shape[1])
    if mask is not None and mask.shape[1] * offset_channel_blocks != offset.shape[1]:
        _invalid("mask", "mask.shape[1] is not valid: it must be offset.shape[1] / "
                 f"{offset_channel_blocks}", offset.shape[1] // offset_channel_blocks, mask.shape[1])
    # same_dtype=False under autocast: the op casts every floating tensor to the autocast dtype
    _check_dtypes("input", input, [("offset", offset), ("weight", weight), ("bias", bias), ("mask", mask)]
                  if same_dtype else [], allow_float64=allow_float64)
    _check_formats(tensors)
    st, pd, dl = _ints(stride), _ints(padding), _ints(dilation)
    if len(st) != 2 or min(st) < 1:
        _invalid("stride", "must be two ints >= 1 (sH, sW)", "(sH >= 1, sW >= 1)", st)
    if len(pd) != 4 or min(pd) < 0:
        _invalid("padding", "every element must be >= 0", "all >= 0", pd)
    if len(dl) != 2 or min(dl) < 1:
        _invalid("dilation", "must be two ints >= 1 (dH, dW)", "(dH >= 1, dW >= 1)", dl)
    _check_not_empty(four_d + [("bias", bias)], allow_empty_batch=True)
    N, C, H, W = input.shape
    if KH * KW > MAX_KERNEL_POINTS:
        _invalid("weight", f"kH*kW must be <= {MAX_KERNEL_POINTS}", f"<= {MAX_KERNEL_POINTS}", KH * KW)
    dg = offset.shape[1] // per_group
    if C % Cg:
        _invalid("weight", "inC must be a multiple of weight.shape[1] (inC / groups)",
                 f"inC % weight.shape[1] == 0 (inC={C})", f"{C} % {Cg} = {C % Cg}")
    groups = C // Cg
    _check_channel_rules(input, weight, [KH, KW], groups, dg, names=TV_NAMES)
    Ho, Wo = _out_hw(H, W, [KH, KW], [1, 1, st[0], st[1]], pd, [1, 1, dl[0], dl[1]])
    _check_output_size(Ho, Wo, TV_NAMES, H, W)
    _expect_shape("offset", offset, [N, offset_channel_blocks * dg * K, Ho, Wo])
    _expect_shape("mask", mask, [N, dg * K, Ho, Wo])
    _expect_shape("bias", bias, [Cout])
    _check_reduction([KH, KW], C, groups, {"kernel_size": "weight"})
    return groups, dg
