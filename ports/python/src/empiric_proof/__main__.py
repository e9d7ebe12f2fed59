"""Command line: ``python -m empiric_proof {verify,verify-dsse,audit,analyze,canon-lines,bench}``.

Exit status: 0 when every file verifies, 2 when one does not (or cannot be read), 64 for a
usage error. Output lines are ``OK <path> <proof_id>`` or ``FAIL <path>: <code>: <message>``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import IO, List, NoReturn, Optional, Sequence

from ._canonical import _dumps
from ._record import _verify
from .errors import WireError
from ._parse import parse

EXIT_OK = 0
EXIT_FAIL = 2
EXIT_USAGE = 64  # EX_USAGE from sysexits.h
IO_ERROR = "io_error"

PROG = "python -m empiric_proof"


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors exit with 64 instead of 2."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value < 1e9:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds: {text!r}")
    return value


def _add_key_options(p: argparse.ArgumentParser) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("--key-file", metavar="K", help="file holding the HMAC key (one trailing newline ignored)")
    g.add_argument("--key", metavar="TEXT", help="the HMAC key as text (its UTF-8 bytes)")


def _build_parser() -> _Parser:
    parser = _Parser(
        prog=PROG,
        description="empiric proof records: strict parsing, canonical form, verification.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    v = sub.add_parser(
        "verify",
        help="verify proof record files",
        description="Verify proof record files: strict parse, structure, proof_id and, with a "
        "key, the signature. Without --key/--key-file the signature is NOT checked.",
    )
    v.add_argument("files", nargs="+", metavar="FILE")
    _add_key_options(v)

    sub.add_parser(
        "canon-lines",
        help="canonicalize one JSON text per stdin line",
        description="Read stdin line by line, each line one JSON text; write one line each: the "
        "canonical text, or !<error_code> if the line is not valid.",
    )

    d = sub.add_parser(
        "verify-dsse",
        help="verify Ed25519 / ECDSA P-256 DSSE envelopes (needs cryptography)",
        description="Verify DSSE envelopes of in-toto Statements signed with Ed25519 or ECDSA "
        "P-256 keys: the signatures under the public keys, then the Statement layer. Needs the "
        "optional cryptography package (" + "pip install empiric-proof[attest]" + "); without it, "
        "exits 69 and says so.",
    )
    d.add_argument("files", nargs="+", metavar="FILE")
    d.add_argument("--public-key", action="append", required=True, metavar="PUB",
                   help="SubjectPublicKeyInfo PEM public key; repeatable")

    a = sub.add_parser(
        "audit",
        help="recompute a record's evidence and verdict from its observations",
        description="Check that RECORD's hashes seal its observations and scenario (by default "
        "R.observations.jsonl and R.scenario.json beside R.json), then recompute every evidence "
        "number, pillar entity and the verdict from the observations under the pre-registered "
        "plan, independently of the TypeScript core; numbers must agree to 1e-12 relative. "
        "Exit 0 when everything agrees, 2 otherwise. A comparative record (a candidate against "
        "a baseline) also needs the baseline's observations (by default "
        "R.baseline.observations.jsonl): both sides are recomputed, paired as the record says.",
    )
    a.add_argument("record", metavar="RECORD")
    a.add_argument("--observations", metavar="F", help="the observations file")
    a.add_argument("--scenario", metavar="F", help="the scenario file")
    a.add_argument("--baseline-observations", metavar="F",
                   help="a comparative record's baseline observations file")
    a.add_argument("--json", action="store_true", help="print the result as JSON")
    _add_key_options(a)

    n = sub.add_parser(
        "analyze",
        help="recompute the evidence of observations under a scenario (JSON)",
        description="Print, as JSON, the evidence entries, pillar entity numbers and verdict "
        "that the observations give under the normalized scenario.",
    )
    n.add_argument("--scenario", metavar="F", required=True)
    n.add_argument("--observations", metavar="F", required=True)
    n.add_argument("--baseline-observations", metavar="F",
                   help="a comparative scenario's baseline observations (analysis.comparison)")
    pg = n.add_mutually_exclusive_group()
    pg.add_argument("--paired", dest="paired", action="store_true", default=None,
                    help="the sides measured the same items in the same order (default: when "
                    "their item ids are the same, in order)")
    pg.add_argument("--unpaired", dest="paired", action="store_false",
                    help="the sides are independent samples")

    b = sub.add_parser(
        "bench",
        help="measure verification throughput",
        description="Verify FILE repeatedly for S seconds and print one JSON line of figures.",
    )
    b.add_argument("file", metavar="FILE")
    _add_key_options(b)
    b.add_argument("--seconds", type=_positive_float, default=3.0, metavar="S",
                   help="how long to run (default 3)")
    return parser


def _version() -> str:
    from . import __version__

    return __version__


class _KeyError(Exception):
    pass


def _load_key(args: argparse.Namespace) -> Optional[bytes]:
    if args.key is not None:
        return str(args.key).encode("utf-8", "surrogateescape")
    if args.key_file is not None:
        try:
            with open(args.key_file, "rb") as f:
                data = f.read()
        except OSError as exc:
            reason = exc.strerror or exc
            raise _KeyError(f"cannot read key file {args.key_file!r}: {reason}") from None
        # Same rule as every empiric CLI: one trailing LF or CRLF is not part of the key.
        if data.endswith(b"\n"):
            data = data[:-1]
            if data.endswith(b"\r"):
                data = data[:-1]
        if not data:
            raise _KeyError(f"key file {args.key_file!r} is empty")
        return data
    return None


def _fail_line(out: IO[str], path: str, code: str, message: str) -> None:
    out.write(f"FAIL {path}: {code}: {message}\n")


def _cmd_verify(args: argparse.Namespace) -> int:
    out, err = sys.stdout, sys.stderr
    files: List[str] = args.files
    try:
        key = _load_key(args)
    except _KeyError as exc:
        for path in files:
            _fail_line(out, path, IO_ERROR, str(exc))
        return EXIT_FAIL
    if key is None:
        err.write("note: no key given (--key-file/--key): checked structure and proof_id only; "
                  "the signature was NOT verified\n")
    status = EXIT_OK
    for path in files:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as exc:
            _fail_line(out, path, IO_ERROR, f"cannot read file: {exc.strerror or exc}")
            status = EXIT_FAIL
            continue
        try:
            record = _verify(data, key)
        except WireError as exc:
            _fail_line(out, path, exc.code, _message(exc))
            status = EXIT_FAIL
            continue
        out.write(f"OK {path} {record['identity']['proof_id']}\n")
    return status


def _message(exc: WireError) -> str:
    # "FAIL <path>: <code>: <message>" -- str(exc) already starts with "<code>: ".
    text = str(exc)
    prefix = exc.code + ": "
    return text[len(prefix):] if text.startswith(prefix) else text


def _cmd_canon_lines(args: argparse.Namespace) -> int:
    inp = sys.stdin.buffer
    out = sys.stdout.buffer
    for line in inp:
        if line.endswith(b"\n"):
            line = line[:-1]
        try:
            result = _dumps(parse(line))
        except WireError as exc:
            result = b"!" + exc.code.encode("ascii")
        out.write(result + b"\n")
        out.flush()
    return EXIT_OK


def _cmd_bench(args: argparse.Namespace) -> int:
    out = sys.stdout
    path: str = args.file
    try:
        key = _load_key(args)
    except _KeyError as exc:
        _fail_line(out, path, IO_ERROR, str(exc))
        return EXIT_FAIL
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        _fail_line(out, path, IO_ERROR, f"cannot read file: {exc.strerror or exc}")
        return EXIT_FAIL
    try:
        _verify(data, key)  # also a warm-up
    except WireError as exc:
        _fail_line(out, path, exc.code, _message(exc))
        return EXIT_FAIL
    seconds: float = args.seconds
    clock = time.perf_counter
    count = 0
    start = clock()
    deadline = start + seconds
    while True:
        _verify(data, key)
        count += 1
        now = clock()
        if now >= deadline:
            break
    elapsed = now - start
    rate = count / elapsed
    result = {
        "port": "python",
        "file": path,
        "bytes": len(data),
        "records_per_s": round(rate, 1),
        "mb_per_s": round(rate * len(data) / 1e6, 3),
    }
    out.write(json.dumps(result) + "\n")
    return EXIT_OK


def _beside(record: str, suffix: str) -> str:
    stem = record[:-5] if record.endswith(".json") else record
    return stem + suffix


def _read_bytes(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def _cmd_audit(args: argparse.Namespace) -> int:
    from ._audit import AuditError, audit

    out = sys.stdout
    path: str = args.record
    try:
        key = _load_key(args)
    except _KeyError as exc:
        _fail_line(out, path, IO_ERROR, str(exc))
        return EXIT_FAIL
    files = {
        "record": path,
        "observations": args.observations or _beside(path, ".observations.jsonl"),
        "scenario": args.scenario or _beside(path, ".scenario.json"),
    }
    data = {}
    for what, p in files.items():
        try:
            data[what] = _read_bytes(p)
        except OSError as exc:
            _fail_line(out, path, IO_ERROR, f"cannot read the {what} file {p}: "
                       f"{exc.strerror or exc}")
            return EXIT_FAIL
    # The baseline part is looked for beside a record that lists a baseline dataset.
    given = args.baseline_observations
    baseline_path = given or (_beside(path, ".baseline.observations.jsonl")
                              if _lists_baseline(data["record"]) else None)
    baseline = None
    if baseline_path is not None:
        try:
            baseline = _read_bytes(baseline_path)
        except OSError as exc:
            hint = "" if given else "; give it with --baseline-observations"
            _fail_line(out, path, IO_ERROR, f"cannot read the baseline observations file "
                       f"{baseline_path}: {exc.strerror or exc}{hint}")
            return EXIT_FAIL
    try:
        r = audit(data["record"], data["observations"], data["scenario"], key, baseline)
    except (WireError, AuditError) as exc:
        _fail_line(out, path, exc.code, str(exc))
        return EXIT_FAIL
    if args.json:
        out.write(json.dumps(r) + "\n")
    else:
        rc = r["recomputed"]
        head = "AGREES " if r["agrees"] else "DIFFERS"
        tail = f" recomputed {rc['outcome']} from {rc['measured']} observations" if rc else ""
        out.write(f"{head} {path}{tail}\n")
        for p in r["problems"]:
            out.write(f"  {p['code']}: {p['message']}\n")
        for d in r["differences"]:
            out.write(f"  {d['pointer']}: {d['code']}: recorded {d['recorded']!r}, "
                      f"recomputed {d['recomputed']!r}\n")
    return EXIT_OK if r["agrees"] else EXIT_FAIL


def _lists_baseline(record: bytes) -> bool:
    """True when a record's data lists a baseline dataset (a comparative claim)."""
    try:
        value = parse(record)
        datasets = value["data"]["datasets"]
        return any(type(d) is dict and d.get("kind") == "baseline" for d in datasets)
    except (WireError, KeyError, TypeError):
        return False


def _cmd_analyze(args: argparse.Namespace) -> int:
    from ._audit import analyze, read_observations

    scenario = parse(_read_bytes(args.scenario))
    obs = read_observations(_read_bytes(args.observations))
    baseline = None
    if args.baseline_observations is not None:
        base = read_observations(_read_bytes(args.baseline_observations))
        paired = args.paired
        if paired is None:
            paired = len(obs) == len(base) and all(
                o.get("id") == b.get("id") for o, b in zip(obs, base))
        baseline = (base, paired)
    elif args.paired is not None:
        sys.stderr.write(f"{PROG} analyze: error: --paired/--unpaired need "
                         "--baseline-observations\n")
        return EXIT_USAGE
    comparative = type(scenario) is dict and type(scenario.get("analysis")) is dict and \
        scenario["analysis"].get("comparison") is not None
    if comparative != (baseline is not None):
        sys.stderr.write(f"{PROG} analyze: error: " + (
            "the scenario makes a comparative claim (analysis.comparison): give the baseline's "
            "observations with --baseline-observations" if comparative else
            "--baseline-observations was given, but the scenario declares no "
            "analysis.comparison") + "\n")
        return EXIT_USAGE
    a = analyze(scenario, obs, baseline)
    sys.stdout.write(json.dumps({
        "outcome": a["outcome"],
        "observed_value": a["observed_value"],
        "pillars": [{"evidence": p["evidence"], "attrs": p["attrs"]} for p in a["pillars"]],
    }) + "\n")
    return EXIT_OK


EXIT_UNAVAILABLE = 69  # EX_UNAVAILABLE: a needed component is missing


def _cmd_verify_dsse(args: argparse.Namespace) -> int:
    from .dsse import DsseUnavailable, load_public_key, verify_dsse

    out, err = sys.stdout, sys.stderr
    try:
        keys = []
        for path in args.public_key:
            try:
                with open(path, "rb") as f:
                    keys.append(load_public_key(f.read(), path))
            except OSError as e:
                err.write(f"{PROG}: key_invalid: cannot read {path}: {e.strerror}\n")
                return EXIT_USAGE
    except DsseUnavailable as e:
        err.write(f"{PROG}: {e.code}: {e.message}\n")
        return EXIT_UNAVAILABLE
    except WireError as e:
        err.write(f"{PROG}: {e.code}: {e.message}\n")
        return EXIT_USAGE
    status = EXIT_OK
    for path in args.files:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            _fail_line(out, path, IO_ERROR, f"cannot read: {e.strerror}")
            status = EXIT_FAIL
            continue
        r = verify_dsse(data, keys)
        if r.verified:
            out.write(f"OK {path} signed by {', '.join(r.signers)}\n")
        else:
            _fail_line(out, path, r.reason or "signature_mismatch", r.message or "")
            status = EXIT_FAIL
    return status


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command line; return the exit status."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # pragma: no cover
                pass
    parser = _build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_usage(sys.stderr)
        sys.stderr.write(f"{PROG}: error: a command is required (verify, verify-dsse, audit, analyze, canon-lines, bench)\n")
        return EXIT_USAGE
    try:
        if args.command == "verify":
            return _cmd_verify(args)
        if args.command == "canon-lines":
            return _cmd_canon_lines(args)
        if args.command == "verify-dsse":
            return _cmd_verify_dsse(args)
        if args.command == "audit":
            return _cmd_audit(args)
        if args.command == "analyze":
            return _cmd_analyze(args)
        return _cmd_bench(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `| head`); silence the flush at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_FAIL


if __name__ == "__main__":
    sys.exit(main())
