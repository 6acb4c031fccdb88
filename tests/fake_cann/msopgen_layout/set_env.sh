# Fake toolkit environment (tests only): what CANN's set_env.sh sets, for the toolkit beside it.
# (CANN writes its install path here literally; this fake finds itself so the repository can move.)
_fake_cann_here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export ASCEND_TOOLKIT_HOME="${_fake_cann_here}/toolkit"
export ASCEND_HOME_PATH="${ASCEND_TOOLKIT_HOME}"
export ASCEND_OPP_PATH="${ASCEND_TOOLKIT_HOME}/opp"
export ASCEND_AICPU_PATH="${ASCEND_TOOLKIT_HOME}"
export PATH="${ASCEND_TOOLKIT_HOME}/bin:${PATH}"
export PYTHONPATH="${ASCEND_TOOLKIT_HOME}/python/site-packages${PYTHONPATH:+:${PYTHONPATH}}"
unset _fake_cann_here
