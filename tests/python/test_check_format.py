"""scripts/check_format.sh (the CI formatting step) in a scratch git repository: a changed line that
breaks .clang-format fails the check, untouched badly formatted lines do not, and --fix repairs only
the changed lines."""
import os
import shutil
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
VENV_BIN = os.path.join(ROOT, ".venv", "bin")


def _git(repo, *args):
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True)


@pytest.fixture
def repo(tmp_path):
    path = os.environ.get("PATH", "")
    if shutil.which("clang-format", path=VENV_BIN + os.pathsep + path) is None:
        pytest.skip("clang-format is not installed (bash scripts/setup_env.sh installs it)")
    r = tmp_path / "repo"
    (r / "scripts").mkdir(parents=True)
    shutil.copy(os.path.join(ROOT, "scripts", "check_format.sh"), r / "scripts")
    shutil.copy(os.path.join(ROOT, ".clang-format"), r / ".clang-format")
    (r / "a.cpp").write_text("int   old_untouched( int x ){return x;}\n\nint g(int y)\n{\n    return y;\n}\n")
    _git(r, "init", "-q", "-b", "main")
    _git(r, "-c", "user.email=t@t", "-c", "user.name=t", "add", ".")
    _git(r, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "base")
    _git(r, "checkout", "-q", "-b", "work")
    return r


def _check(repo, *args):
    env = dict(os.environ, PATH=VENV_BIN + os.pathsep + os.environ.get("PATH", ""))
    env.pop("FORMAT_BASE", None)
    return subprocess.run(["bash", str(repo / "scripts" / "check_format.sh"), *args], capture_output=True,
                          text=True, env=env, timeout=120)


def test_untouched_lines_are_not_checked(repo):
    r = _check(repo)
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_badly_formatted_changed_line_fails_and_fix_repairs_only_it(repo):
    text = (repo / "a.cpp").read_text().replace("    return y;", "    return    y+1 ;")
    (repo / "a.cpp").write_text(text)
    r = _check(repo)
    assert r.returncode == 1 and "return y + 1;" in r.stdout, r.stdout + r.stderr
    assert "--fix" in r.stderr
    assert _check(repo, "--fix").returncode == 0
    fixed = (repo / "a.cpp").read_text()
    assert "return y + 1;" in fixed
    assert "int   old_untouched( int x ){return x;}" in fixed        # no mass reformat
    assert _check(repo).returncode == 0
