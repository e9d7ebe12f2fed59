"""The command line, run as documented from the repository root:

    PYTHONPATH=ports/python/src python3 -m empiric_proof verify FILE --key-file K
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

from _support import CASES, INVALID, KEYS, REPO, SRC, VALID, invalid_input

RECORDS = "fixtures/records"  # relative to REPO, as a user would type it


def run(args: List[str], stdin: Optional[bytes] = None) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.relpath(SRC, REPO)
    env.pop("PYTHONSTARTUP", None)
    return subprocess.run(
        [sys.executable, "-m", "empiric_proof", *args],
        cwd=REPO, env=env, input=stdin, capture_output=True, timeout=120,
    )


def no_traceback(proc: subprocess.CompletedProcess[bytes]) -> None:
    assert b"Traceback" not in proc.stderr and b"Traceback" not in proc.stdout


@pytest.fixture(scope="module")
def key_files(tmp_path_factory: pytest.TempPathFactory) -> Dict[str, Path]:
    d = tmp_path_factory.mktemp("keys")
    files = {}
    for name, key in KEYS.items():
        p = d / f"{name}.key"
        p.write_bytes(key)
        files[name] = p
    nl = d / "test-newline.key"
    nl.write_bytes(KEYS["test"] + b"\n")
    files["test-newline"] = nl
    return files


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['file']}-{c['key']}")
def test_verify_cases(case: Dict[str, Any], key_files: Dict[str, Path]) -> None:
    path = f"{RECORDS}/{case['file']}"
    args = ["verify", path]
    if case["key"] is not None:
        args += ["--key-file", str(key_files[case["key"]])]
    proc = run(args)
    no_traceback(proc)
    out = proc.stdout.decode("utf-8")
    if case["expect"] == "valid":
        record = json.loads((REPO / path).read_text(encoding="utf-8"))
        assert proc.returncode == 0, out
        assert out == f"OK {path} {record['identity']['proof_id']}\n"
    else:
        assert proc.returncode == 2, out
        assert out.startswith(f"FAIL {path}: {case['expect']}: "), out
        assert out.count("\n") == 1
    if case["key"] is None:
        assert b"signature was NOT verified" in proc.stderr


def test_verify_with_key_text() -> None:
    path = f"{RECORDS}/valid.json"
    proc = run(["verify", path, "--key", KEYS["test"].decode()])
    assert proc.returncode == 0 and proc.stdout.startswith(f"OK {path} ".encode())
    proc = run(["verify", path, "--key", KEYS["other"].decode()])
    assert proc.returncode == 2
    assert proc.stdout.startswith(f"FAIL {path}: signature_mismatch: ".encode())
    no_traceback(proc)


def test_verify_several_files(key_files: Dict[str, Path]) -> None:
    good, bad = f"{RECORDS}/valid.json", f"{RECORDS}/tampered-truncated.json"
    proc = run(["verify", good, bad, "--key-file", str(key_files["test"])])
    lines = proc.stdout.decode().splitlines()
    assert proc.returncode == 2
    assert lines[0].startswith(f"OK {good} ") and lines[1].startswith(f"FAIL {bad}: syntax_error: ")
    proc = run(["verify", good, f"{RECORDS}/valid-compact.json", "--key-file", str(key_files["test"])])
    assert proc.returncode == 0 and len(proc.stdout.splitlines()) == 2


def test_key_file_trailing_newline_is_not_part_of_the_key(key_files: Dict[str, Path], tmp_path: Path) -> None:
    # the rule shared by every empiric CLI: one trailing LF or CRLF is dropped
    proc = run(["verify", f"{RECORDS}/valid.json", "--key-file", str(key_files["test-newline"])])
    assert proc.returncode == 0, proc.stdout
    crlf = tmp_path / "crlf.key"
    crlf.write_bytes(key_files["test"].read_bytes() + b"\r\n")
    assert run(["verify", f"{RECORDS}/valid.json", "--key-file", str(crlf)]).returncode == 0
    two = tmp_path / "two.key"
    two.write_bytes(key_files["test"].read_bytes() + b"\n\n")
    assert run(["verify", f"{RECORDS}/valid.json", "--key-file", str(two)]).returncode == 2
    empty = tmp_path / "empty.key"
    empty.write_bytes(b"\n")
    proc = run(["verify", f"{RECORDS}/valid.json", "--key-file", str(empty)])
    assert proc.returncode == 2
    no_traceback(proc)


def test_unreadable_files(key_files: Dict[str, Path], tmp_path: Path) -> None:
    proc = run(["verify", "does/not/exist.json", "--key-file", str(key_files["test"])])
    assert proc.returncode == 2
    assert proc.stdout.startswith(b"FAIL does/not/exist.json: io_error: ")
    no_traceback(proc)
    proc = run(["verify", f"{RECORDS}/valid.json", "--key-file", str(tmp_path / "missing.key")])
    assert proc.returncode == 2
    assert proc.stdout.startswith(f"FAIL {RECORDS}/valid.json: io_error: ".encode())
    no_traceback(proc)
    proc = run(["verify", str(tmp_path)])  # a directory
    assert proc.returncode == 2 and b": io_error: " in proc.stdout
    no_traceback(proc)


def test_bad_input_files(tmp_path: Path) -> None:
    for name, data, code in [
        ("binary.json", b"\x00\xff\xfe garbage", "invalid_utf8"),
        ("empty.json", b"", "syntax_error"),
        ("deep.json", b"[" * 50000, "depth_exceeded"),
        ("array.json", b"[1, 2]", "record_structure"),
    ]:
        p = tmp_path / name
        p.write_bytes(data)
        proc = run(["verify", str(p)])
        assert proc.returncode == 2
        assert proc.stdout.decode().startswith(f"FAIL {p}: {code}: ")
        no_traceback(proc)


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["frobnicate"],
        ["verify"],
        ["verify", "x.json", "--key", "a", "--key-file", "b"],
        ["verify", "x.json", "--unknown"],
        ["bench"],
        ["bench", "x.json", "--seconds", "-1"],
        ["bench", "x.json", "--seconds", "soon"],
        ["canon-lines", "extra"],
        ["--nope"],
    ],
)
def test_usage_errors_exit_64(args: List[str]) -> None:
    proc = run(args)
    assert proc.returncode == 64, proc.stderr
    assert b"usage:" in proc.stderr
    assert proc.stdout == b""
    no_traceback(proc)


def test_help_and_version() -> None:
    for args in (["--help"], ["verify", "--help"], ["bench", "-h"], ["--version"]):
        proc = run(args)
        assert proc.returncode == 0 and proc.stdout
    assert b"signature is NOT checked" in run(["verify", "--help"]).stdout


def test_canon_lines() -> None:
    lines: List[bytes] = []
    expected: List[bytes] = []
    for v in VALID:
        data = v["input"].encode("utf-8")
        if b"\n" not in data:
            lines.append(data)
            expected.append(v["canonical"].encode("ascii"))
    for v in INVALID:
        data = invalid_input(v)
        if isinstance(data, str):
            data = data.encode("utf-8")
        if b"\n" not in data:
            lines.append(data)
            expected.append(b"!" + v["error"].encode("ascii"))
    lines += [b'{"b":1.0,"a":1}\r', b"", b"[" * 20000, b'"\xff"']
    expected += [b'{"a":1,"b":1.0}', b"!syntax_error", b"!depth_exceeded", b"!invalid_utf8"]
    assert len(lines) > 100
    proc = run(["canon-lines"], stdin=b"\n".join(lines))  # the last line has no newline
    no_traceback(proc)
    assert proc.returncode == 0
    assert proc.stdout.split(b"\n") == expected + [b""]


def test_canon_lines_empty_stdin() -> None:
    proc = run(["canon-lines"], stdin=b"")
    assert proc.returncode == 0 and proc.stdout == b""


def test_bench(key_files: Dict[str, Path]) -> None:
    path = f"{RECORDS}/valid.json"
    proc = run(["bench", path, "--key-file", str(key_files["test"]), "--seconds", "0.2"])
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.decode().splitlines()
    assert len(lines) == 1
    figures = json.loads(lines[0])
    assert list(figures) == ["port", "file", "bytes", "records_per_s", "mb_per_s"]
    assert figures["port"] == "python" and figures["file"] == path
    assert figures["bytes"] == (REPO / path).stat().st_size
    assert figures["records_per_s"] > 0 and figures["mb_per_s"] > 0


def test_bench_refuses_a_failing_file(key_files: Dict[str, Path]) -> None:
    path = f"{RECORDS}/tampered-signature.json"
    proc = run(["bench", path, "--key-file", str(key_files["test"]), "--seconds", "0.1"])
    assert proc.returncode == 2
    assert proc.stdout.startswith(f"FAIL {path}: signature_mismatch: ".encode())
