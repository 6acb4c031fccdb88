"""ascend_dcn: DeformableConv2dBackward for Ascend NPUs (Atlas A2/A3), with a CPU twin.

The public names are re-exported here by the lead as the parts land; submodules can always be
imported directly (ascend_dcn.reference, ascend_dcn.layouts, ascend_dcn.validation, ...).
"""
__version__ = "0.1.0"
