"""The separate virtual environment for the torchvision peer of the benchmark (``.venv-tv``).

torchvision's PyPI build does not install beside the project's torch 2.13.0, so the benchmark runs the
torchvision side in its own venv with a matching pair: torch==2.14.1, torchvision==0.29.1 (multi-GB;
created only when ``bench.py --with-torchvision`` is given, reused afterwards). Only the torchvision
worker runs there; our operator and the other peers run in the project venv, in the same bench run.
"""
import os
import shutil
import subprocess
import sys
import time

TV_PACKAGES = ["torch==2.14.1", "torchvision==0.29.1"]
MIN_FREE_GIB = 12  # the CUDA-enabled torch wheel and its dependencies unpack to several GiB


def tv_python(venv_dir):
    return os.path.join(venv_dir, "bin", "python")


def torchvision_works(python):
    if not os.path.exists(python):
        return False
    probe = "import torch, torchvision; from torchvision.ops import deform_conv2d; print(torchvision.__version__)"
    res = subprocess.run([python, "-c", probe], capture_output=True, text=True)
    return res.returncode == 0


def ensure_tv_venv(venv_dir, log=print):
    """Return the python of a venv in which torchvision.ops.deform_conv2d imports; create it if needed.

    Raises RuntimeError with the reason (disk space, pip failure) when it cannot be made."""
    python = tv_python(venv_dir)
    if torchvision_works(python):
        return python
    parent = os.path.dirname(os.path.abspath(venv_dir))
    free_gib = shutil.disk_usage(parent).free / 2 ** 30
    if free_gib < MIN_FREE_GIB:
        raise RuntimeError(f"--with-torchvision: {venv_dir} needs about {MIN_FREE_GIB} GiB free; "
                           f"only {free_gib:.1f} GiB free on {parent}")
    log(f"creating {venv_dir} with {' '.join(TV_PACKAGES)} (several GiB; minutes)...")
    t0 = time.time()
    if not os.path.exists(python):
        base = getattr(sys, "_base_executable", None) or sys.executable
        subprocess.run([base, "-m", "venv", venv_dir], check=True)
    res = subprocess.run([python, "-m", "pip", "install", "--disable-pip-version-check", *TV_PACKAGES],
                         capture_output=True, text=True)
    if res.returncode != 0 or not torchvision_works(python):
        tail = "\n".join((res.stdout + res.stderr).strip().splitlines()[-15:])
        raise RuntimeError(f"--with-torchvision: pip install {' '.join(TV_PACKAGES)} into {venv_dir} failed:\n{tail}")
    log(f"{venv_dir} ready in {time.time() - t0:.0f} s")
    return python
