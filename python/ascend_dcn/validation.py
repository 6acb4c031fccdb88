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

__all__ = ["check_backward_args", "check_forward_args", "ALLOWED_DTYPES", "INT32_MAX"]

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
                  tail_ref=None):
    if first.dtype not in ALLOWED_DTYPES:
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


def _check_attrs(ks, st, pd, dl, groups, dg, check_padding):
    if len(ks) != 2:
        _invalid("kernelSize", "size must be 2", 2, len(ks))
    for name, arr in (("stride", st), ("padding", pd), ("dilation", dl)):
        if len(arr) != 4:
            _invalid(name, "size must be 4", 4, len(arr))
    if ks[0] <= 0 or ks[1] <= 0:
        _invalid("kernelSize", "every element must be > 0", "kH > 0 and kW > 0", ks)
    if ks[0] * ks[1] > MAX_KERNEL_POINTS:
        _invalid("kernelSize", f"kH*kW must be <= {MAX_KERNEL_POINTS}", f"<= {MAX_KERNEL_POINTS}",
                 ks[0] * ks[1])
    if st[0] != 1 or st[1] != 1:
        _invalid("stride", "N and C entries (stride[0], stride[1]) must be 1", "[1, 1, ...]", st)
    if min(st) < 1:
        _invalid("stride", "every element must be >= 1", "all >= 1", st)
    if check_padding and min(pd) < 0:
        _invalid("padding", "every element must be >= 0", "all >= 0", pd)
    if dl[0] != 1 or dl[1] != 1:
        _invalid("dilation", "N and C entries (dilation[0], dilation[1]) must be 1", "[1, 1, ...]", dl)
    if min(dl) < 1:
        _invalid("dilation", "every element must be >= 1", "all >= 1", dl)
    if groups <= 0:
        _invalid("groups", "must be > 0", "> 0", groups)
    if dg <= 0:
        _invalid("deformableGroups", "must be > 0", "> 0", dg)


def _check_dims(tensors_4d, tensors_1d):
    for name, t in tensors_4d:
        if t is not None and t.dim() != 4:
            _invalid(name, "must be 4-D", "4 dimensions", f"{t.dim()} dimensions {list(t.shape)}")
    for name, t in tensors_1d:
        if t is not None and t.dim() != 1:
            _invalid(name, "must be 1-D", "1 dimension", f"{t.dim()} dimensions {list(t.shape)}")


def _check_not_empty(tensors):
    for name, t in tensors:
        if t is not None and t.numel() == 0:
            _invalid(name, "empty tensors are not supported", "every dimension > 0", list(t.shape))


def _out_hw(H, W, ks, st, pd, dl):
    Ho = (H + pd[0] + pd[1] - ((ks[0] - 1) * dl[2] + 1)) // st[2] + 1
    Wo = (W + pd[2] + pd[3] - ((ks[1] - 1) * dl[3] + 1)) // st[3] + 1
    return Ho, Wo


def _expect_shape(name, t, expected):
    if t is not None and list(t.shape) != list(expected):
        _invalid(name, "shape mismatch", list(expected), list(t.shape))


def _check_channel_rules(inp, weight, ks, groups, dg):
    N, C, H, W = inp.shape
    Cout = weight.shape[0]
    if C % dg:
        _invalid("deformableGroups", "inC must be divisible by deformableGroups",
                 f"inC % deformableGroups == 0 (inC={C})", f"{C} % {dg} = {C % dg}")
    if C % groups:
        _invalid("groups", "inC must be divisible by groups", f"inC % groups == 0 (inC={C})",
                 f"{C} % {groups} = {C % groups}")
    if Cout % groups:
        _invalid("groups", "outC (weight.shape[0]) must be divisible by groups",
                 f"outC % groups == 0 (outC={Cout})", f"{Cout} % {groups} = {Cout % groups}")
    if H * W > INT32_MAX:
        _invalid("input", "inH*inW must be <= 2147483647", f"<= {INT32_MAX}", H * W)
    return N, C, H, W, Cout


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
                       deformable_groups=1, modulated=True, out=None, deform_out=None, outputs_given=False):
    """Validate the arguments of aclnnDeformableConv2d / npu_deformable_conv2d (op-semantics §6.6).

    Same step structure as check_backward_args, with the forward's rule set: null checks for input,
    offset, weight, [out, deformOut if outputs_given], kernelSize, stride, padding, dilation (bias is
    optional); dtypes of bias/deformOut/offset/weight/out == input; no padding >= 0 rule (the aclnn
    forward has none); 4-D input/weight/offset/out/deformOut, 1-D bias; bias == [outC],
    out == [N, outC, outH, outW], deformOut == [N, inC, outH*kH, outW*kW]. Unlike the aclnn forward
    (which returns success early for empty input/weight/offset) empty tensors are rejected, because
    the backward cannot accept them. ``input`` is reported as ``x`` (the forward's parameter name)."""
    required = [("x", input), ("offset", offset), ("weight", weight)]
    if outputs_given:
        required += [("out", out), ("deformOut", deform_out)]
    required += [("kernelSize", kernel_size), ("stride", stride), ("padding", padding),
                 ("dilation", dilation)]
    _check_not_null(required)
    tensors = [("x", input), ("weight", weight), ("offset", offset), ("bias", bias), ("out", out),
               ("deformOut", deform_out)]
    _check_types(tensors,
                 [("kernelSize", kernel_size), ("stride", stride), ("padding", padding),
                  ("dilation", dilation)],
                 [("groups", groups), ("deformableGroups", deformable_groups)],
                 [("modulated", modulated)])
    _check_dtypes("x", input, [("bias", bias), ("deformOut", deform_out), ("offset", offset),
                               ("weight", weight), ("out", out)])
    _check_formats(tensors)
    ks, st, pd, dl = _ints(kernel_size), _ints(stride), _ints(padding), _ints(dilation)
    groups, dg = int(groups), int(deformable_groups)
    _check_attrs(ks, st, pd, dl, groups, dg, check_padding=False)
    four_d = [("x", input), ("weight", weight), ("offset", offset), ("out", out), ("deformOut", deform_out)]
    _check_dims(four_d, [("bias", bias)])
    _check_not_empty(four_d + [("bias", bias)])
    N, C, H, W = input.shape
    Cout = weight.shape[0]
    if C % dg:
        _invalid("deformableGroups", "inC must be divisible by deformableGroups",
                 f"inC % deformableGroups == 0 (inC={C})", f"{C} % {dg} = {C % dg}")
    if C % groups:
        _invalid("groups", "inC must be divisible by groups", f"inC % groups == 0 (inC={C})",
                 f"{C} % {groups} = {C % groups}")
    if Cout % groups:
        _invalid("groups", "outC (weight.shape[0]) must be divisible by groups",
                 f"outC % groups == 0 (outC={Cout})", f"{Cout} % {groups} = {Cout % groups}")
    if H * W > INT32_MAX:
        _invalid("x", "inH*inW must be <= 2147483647", f"<= {INT32_MAX}", H * W)
    Ho, Wo = _out_hw(H, W, ks, st, pd, dl)
    blocks = 3 if modulated else 2
    _expect_shape("weight", weight, [Cout, C // groups, ks[0], ks[1]])
    _expect_shape("offset", offset, [N, blocks * dg * ks[0] * ks[1], Ho, Wo])
    _expect_shape("bias", bias, [Cout])
    _expect_shape("out", out, [N, Cout, Ho, Wo])
    _expect_shape("deformOut", deform_out, [N, C, Ho * ks[0], Wo * ks[1]])
    reduction = ks[0] * ks[1] * (C // groups)
    if reduction > MAX_KERNEL_REDUCTION:
        _invalid("kernelSize", f"kH*kW*inC/groups must be <= {MAX_KERNEL_REDUCTION}",
                 f"<= {MAX_KERNEL_REDUCTION}", reduction)
