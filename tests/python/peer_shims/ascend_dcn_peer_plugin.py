"""pytest plugin (``-p ascend_dcn_peer_plugin``) that runs the peers' own deform-conv test files
against ascend_dcn: before their modules are imported it installs, in sys.modules, the names those
files import, bound to ours. Used only by tests/python/test_peer_suites.py, in a subprocess.

  torchvision.ops.{deform_conv2d, DeformConv2d}     -> ascend_dcn.{deform_conv2d, DeformConv2d}
  torchvision.models.feature_extraction.get_graph_node_names
                                                     -> an FX tracer whose leaf modules are those of
                                                        the shimmed torchvision.ops (torchvision's
                                                        rule), returning (train, eval) node names
  mmcv.ops.*                                         -> ascend_dcn.mmcv.*
  mmcv.utils.IS_{CUDA,MLU,MUSA}_AVAILABLE            -> False unless the device really exists
  mmengine.utils.{digit_version}, mmengine.utils.dl_utils.TORCH_VERSION (only if mmengine is absent)
  PIL.Image (only if Pillow is absent; the deform-conv tests do not use it)
  optests.generate_opcheck_tests(namespaces=["torchvision"]) also checks the "ascend_dcn" namespace,
  i.e. the opcheck utilities run on our custom ops where torchvision's suite runs them on its own.
Their references, expected values and assertions are not touched.
"""
import importlib.util
import re
import sys
import types

import torch
import torch.fx

import ascend_dcn
import ascend_dcn.mmcv as dcn_mmcv


def _module(name, **attrs):
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    sys.modules[name] = m
    return m


def _get_graph_node_names(model):
    """(train node names, eval node names) of an FX trace in which torch.nn modules and the modules
    of the shimmed torchvision.ops are leaves; placeholders and calls, not the output node."""
    leaf_types = tuple(v for v in vars(sys.modules["torchvision.ops"]).values()
                       if isinstance(v, type) and issubclass(v, torch.nn.Module))

    class _Tracer(torch.fx.Tracer):
        def is_leaf_module(self, m, qualname):
            return isinstance(m, leaf_types) or super().is_leaf_module(m, qualname)

    names = []
    for mode in (True, False):
        model.train(mode)
        graph = _Tracer().trace(model)
        names.append([n.name for n in graph.nodes if n.op != "output"])
    return names[0], names[1]


def _install_torchvision():
    tv = _module("torchvision", __version__="0.0.0+ascend_dcn_shim")
    tv.ops = _module("torchvision.ops", deform_conv2d=ascend_dcn.deform_conv2d,
                     DeformConv2d=ascend_dcn.DeformConv2d)
    tv.models = _module("torchvision.models")
    tv.models.feature_extraction = _module("torchvision.models.feature_extraction",
                                           get_graph_node_names=_get_graph_node_names)


def _install_mmcv():
    mmcv = _module("mmcv", __version__="0.0.0+ascend_dcn_shim")
    mmcv.ops = _module("mmcv.ops", **{n: getattr(dcn_mmcv, n) for n in dcn_mmcv.__all__})
    musa = hasattr(torch, "musa") and torch.musa.is_available()
    mmcv.utils = _module("mmcv.utils", IS_CUDA_AVAILABLE=torch.cuda.is_available(),
                         IS_MLU_AVAILABLE=False, IS_MUSA_AVAILABLE=bool(musa))


def _digit_version(version_str):
    return tuple(int(p) for p in re.findall(r"\d+", version_str.split("+")[0])[:3])


def _install_mmengine_if_absent():
    if importlib.util.find_spec("mmengine") is not None:
        return
    me = _module("mmengine")
    me.utils = _module("mmengine.utils", digit_version=_digit_version)
    me.utils.dl_utils = _module("mmengine.utils.dl_utils", TORCH_VERSION=torch.__version__)


def _install_pil_if_absent():
    if importlib.util.find_spec("PIL") is not None:
        return
    pil = _module("PIL")
    pil.Image = _module("PIL.Image")


def _widen_opcheck_namespaces():
    import torch.testing._internal.optests as optests
    original = optests.generate_opcheck_tests

    def generate_opcheck_tests(testcase, namespaces, *args, **kwargs):
        if "torchvision" in namespaces:
            namespaces = list(namespaces) + ["ascend_dcn"]
        return original(testcase, namespaces, *args, **kwargs)

    optests.generate_opcheck_tests = generate_opcheck_tests


_install_torchvision()
_install_mmcv()
_install_mmengine_if_absent()
_install_pil_if_absent()
_widen_opcheck_namespaces()
