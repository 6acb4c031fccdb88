"""Lint of op_kernel/: the kernel sources must be what the AscendC device compiler accepts.

Rules (checked on the sources with comments and string literals removed):
  * includes: only quoted project headers and the AscendC headers "kernel_operator.h",
    "lib/matmul_intf.h"; no <...> (C/C++ standard library) includes;
  * no standard-library names (std::), no exceptions (throw/try/catch), no dynamic allocation
    (new/delete/malloc/calloc/realloc/free), no virtual functions, no RTTI (dynamic_cast/typeid),
    no double / long double arithmetic, no printf-family I/O, no static local/global mutable state;
  * no direct recursion (a function body that calls the function's own name).
The linter itself is tested on bad snippets (each rule must fire) and on a clean snippet.
"""
import os
import re

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
KERNEL_DIR = os.path.join(ROOT, "op_kernel")
ALLOWED_SYSTEM_HEADERS = {"kernel_operator.h", "lib/matmul_intf.h"}

FORBIDDEN = [
    (r"\bstd\s*::", "C++ standard library (std::)"),
    (r"\bthrow\b", "exceptions (throw)"),
    (r"\btry\s*\{", "exceptions (try)"),
    (r"\bcatch\s*\(", "exceptions (catch)"),
    (r"\bnew\b", "dynamic allocation (new)"),
    (r"\bdelete\b", "dynamic allocation (delete)"),
    (r"\b(malloc|calloc|realloc|free)\s*\(", "dynamic allocation (malloc/free)"),
    (r"\bvirtual\b", "virtual functions"),
    (r"\b(dynamic_cast|typeid)\b", "RTTI"),
    (r"\b(long\s+)?double\b", "double precision arithmetic"),
    (r"\b(printf|fprintf|sprintf|puts)\s*\(", "host I/O"),
    (r"(^|[;{}]\s*)static\s+(?!inline\b|constexpr\b|const\b|__aicore__\b)[\w:<>]+\s+\w+\s*(=|;)",
     "static mutable state"),
]

KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "catch", "static_cast", "reinterpret_cast",
            "const_cast", "decltype", "alignof"}


def strip_comments_and_strings(src):
    """Remove // and /* */ comments and the contents of string/char literals (keeps line structure)."""
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            seg = src[i:n if j < 0 else j + 2]
            out.append("\n" * seg.count("\n"))
            i = n if j < 0 else j + 2
        elif c in "\"'":
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _include_violations(raw_src):
    problems = []
    for m in re.finditer(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', raw_src, re.M):
        kind, name = m.group(1), m.group(2)
        if kind == "<":
            problems.append(f"system include <{name}> (standard library is not available on the device)")
        elif "/" in name and name not in ALLOWED_SYSTEM_HEADERS:
            problems.append(f'include "{name}" outside op_kernel/ and not an AscendC header')
    return problems


def _function_bodies(code):
    """Yield (name, body) for function definitions found by a brace-matching scan."""
    for m in re.finditer(r"\b([A-Za-z_]\w*)\s*\(([^;{}()]|\([^()]*\))*\)\s*(const\s*)?(override\s*)?\{", code):
        name = m.group(1)
        if name in KEYWORDS:
            continue
        depth, j = 1, m.end()
        while j < len(code) and depth:
            depth += {"{": 1, "}": -1}.get(code[j], 0)
            j += 1
        yield name, code[m.end():j - 1]


def lint_source(raw_src):
    """Return a list of human-readable violations for one kernel source text."""
    problems = _include_violations(raw_src)
    code = strip_comments_and_strings(raw_src)
    for pattern, rule in FORBIDDEN:
        for m in re.finditer(pattern, code, re.M):
            line = code.count("\n", 0, m.start()) + 1
            problems.append(f"line {line}: {rule}: '{m.group(0).strip()}'")
    for name, body in _function_bodies(code):
        if re.search(r"(?<![\w.>:])" + re.escape(name) + r"\s*\(", body):
            problems.append(f"recursion: function '{name}' calls itself")
    return problems


def kernel_sources():
    files = []
    for dirpath, _, names in os.walk(KERNEL_DIR):
        files += [os.path.join(dirpath, f) for f in names if f.endswith((".h", ".hpp", ".cpp", ".cc"))]
    return sorted(files)


def test_kernel_sources_exist():
    files = kernel_sources()
    assert any(f.endswith("deformable_conv2d_backward.cpp") for f in files), files


@pytest.mark.parametrize("path", kernel_sources(), ids=lambda p: os.path.relpath(p, ROOT))
def test_kernel_source_is_device_compilable(path):
    with open(path, encoding="utf-8") as f:
        problems = lint_source(f.read())
    assert not problems, f"{os.path.relpath(path, ROOT)}:\n  " + "\n  ".join(problems)


BAD_SNIPPETS = {
    "std include": "#include <vector>\n",
    "std name": "__aicore__ inline void F() { std::vector<int> v; }\n",
    "throw": "__aicore__ inline void F() { throw 1; }\n",
    "try/catch": "__aicore__ inline void F() { try { G(); } catch (...) {} }\n",
    "new": "__aicore__ inline void F() { int *p = new int[4]; }\n",
    "delete": "__aicore__ inline void F(int *p) { delete p; }\n",
    "malloc": "__aicore__ inline void F() { void *p = malloc(16); }\n",
    "free": "__aicore__ inline void F(void *p) { free(p); }\n",
    "virtual": "class A { virtual void F(); };\n",
    "rtti": "__aicore__ inline void F(A *a) { auto b = dynamic_cast<B *>(a); }\n",
    "double": "__aicore__ inline double F(float x) { return x; }\n",
    "printf": "__aicore__ inline void F() { printf(\"x\"); }\n",
    "static state": "__aicore__ inline int F() { static int counter = 0; return counter; }\n",
    "recursion": "__aicore__ inline int Fact(int n) { return n <= 1 ? 1 : n * Fact(n - 1); }\n",
    "foreign include": '#include "torch/torch.h"\n',
}


@pytest.mark.parametrize("name", sorted(BAD_SNIPPETS))
def test_linter_flags_bad_snippet(name):
    assert lint_source(BAD_SNIPPETS[name]), f"linter missed: {name}"


def test_linter_accepts_clean_snippet():
    clean = (
        '#include "kernel_operator.h"\n#include "dcn_common.h"\n'
        "// std::vector in a comment and \"new\" in a string are fine\n"
        "constexpr int64_t kCap = 16;\n"
        "__aicore__ inline int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }\n"
        "__aicore__ inline void Run(AscendC::LocalTensor<float> &t) { if (CeilDiv(3, 2) > 1) { t.SetValue(0, 1.0f); } }\n"
        "class K { public: __aicore__ inline void Free() { que_.FreeTensor(t_); } };\n"
    )
    assert lint_source(clean) == []
