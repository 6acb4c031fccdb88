"""Exception types and status codes of the aclnn contract (docs/aclnnDeformableConv2dBackward.md).

Every validation failure raised by this package is an :class:`AclnnError` carrying the aclnn
status code that the C API would return, the aclnn parameter name (``input``, ``gradOutput``,
``kernelSize``, ...), the rule that failed, and the expected vs actual value. The message format is
fixed (docs/architecture.md, Conventions)::

    <argument>: <rule>; expected <expected>, got <actual>

Exception types: every AclnnError is a RuntimeError, the type torch_npu and torchvision raise for the
same mistakes (a wrong offset or mask shape, a bad attribute), so code written against them catches
ours. AclnnParamInvalidError is also a ValueError and AclnnNullptrError also a TypeError; the classes
keep their names and ``status`` codes.
"""

ACLNN_SUCCESS = 0
ACLNN_ERR_PARAM_NULLPTR = 161001
ACLNN_ERR_PARAM_INVALID = 161002
ACLNN_ERR_INNER_NULLPTR = 561103


class AclnnError(RuntimeError):
    """Base class: a call that the aclnn API would reject with ``status``."""

    status = ACLNN_ERR_PARAM_INVALID

    def __init__(self, argument, rule, expected, actual, status=None):
        if status is not None:
            self.status = int(status)
        self.argument = str(argument)
        self.rule = str(rule)
        self.expected = expected
        self.actual = actual
        super().__init__(f"{self.argument}: {self.rule}; expected {expected}, got {actual}")


class AclnnNullptrError(AclnnError, TypeError):
    """A required tensor or int-array argument is missing (None) — ACLNN_ERR_PARAM_NULLPTR."""

    status = ACLNN_ERR_PARAM_NULLPTR


class AclnnParamInvalidError(AclnnError, ValueError):
    """An argument violates a dtype/format/attribute/dimension/shape rule — ACLNN_ERR_PARAM_INVALID."""

    status = ACLNN_ERR_PARAM_INVALID


def error_for_status(status, argument, rule, expected, actual):
    """Build the most specific exception class for ``status``."""
    if status == ACLNN_ERR_PARAM_NULLPTR:
        return AclnnNullptrError(argument, rule, expected, actual)
    if status == ACLNN_ERR_PARAM_INVALID:
        return AclnnParamInvalidError(argument, rule, expected, actual)
    return AclnnError(argument, rule, expected, actual, status=status)
