"""ascend_dcn: DeformableConv2dBackward for Ascend NPUs (Atlas A2/A3), with a CPU twin.

Public surface:
  * ``deformable_conv2d_backward`` — the operator (aclnnDeformableConv2dBackward), drop-in for
    ``torch_npu.npu_deformable_conv2dbk``; CPU tensors run on the twin, NPU tensors on the
    installed vendor package.
  * ``deformable_conv2d`` (torch_npu's signature, Ascend layout, returns (output, offset_out)) and
    ``deform_conv2d`` (torchvision's signature and layout): autograd-capable layers whose backward
    is the operator; N = 0 and (CPU) float64 work; TorchScript-scriptable.
  * nn.Modules ``DeformConv2d`` (torchvision), ``DeformConv2dPack`` / ``ModulatedDeformConv2dPack`` (mmcv).
  * ``ascend_dcn.mmcv``: mmcv.ops's deform-conv API (names, argument order, defaults, exceptions).
  * Errors are ``errors.AclnnError`` — RuntimeErrors, as torchvision's and torch_npu's.
  * Border convention: CANN's (a sample exactly at y = -1 or x = -1 gets zero offset gradient;
    torchvision differs there only) — docs/border-convention.md.
  * ``reference`` (float64 oracle), ``layouts`` (torchvision/mmcv <-> Ascend), ``validation`` and
    ``errors`` (the contract's rules and status codes), ``precision`` (CANN's standard),
    ``npu`` (Ascend host discovery, ``backend_info``).
Importing the package registers the ``ascend_dcn::`` torch.library ops; the compiled extension
is loaded lazily, on the first operator call.
"""
__version__ = "0.1.0"

from . import errors, layouts, precision, reference, validation  # noqa: F401
from .errors import AclnnError, AclnnNullptrError, AclnnParamInvalidError  # noqa: F401
from .functional import deform_conv2d, deformable_conv2d  # noqa: F401
from .modules import DeformConv2d, DeformConv2dPack, ModulatedDeformConv2dPack  # noqa: F401
from .ops import deformable_conv2d_backward  # noqa: F401


from . import mmcv  # noqa: F401,E402  (ascend_dcn.mmcv: mmcv.ops's API)
from .npu import backend_info, set_opp_path  # noqa: F401
