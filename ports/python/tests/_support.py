"""Shared helpers for the tests: fixture locations, typed trees, exact comparison."""

from __future__ import annotations

import base64
import json
import math
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional

HERE = Path(__file__).resolve().parent
PORT = HERE.parent
SRC = PORT / "src"
FIXTURES = (HERE / ".." / ".." / ".." / "fixtures").resolve()
REPO = FIXTURES.parent
VECTORS_PATH = FIXTURES / "wire" / "vectors.json"
RECORDS_DIR = FIXTURES / "records"
CASES_PATH = RECORDS_DIR / "cases.json"

if str(SRC) not in sys.path:
    sys.path.insert(0, str(SRC))

VECTORS: Dict[str, Any] = json.loads(VECTORS_PATH.read_text(encoding="utf-8"))
VALID: List[Dict[str, Any]] = VECTORS["valid"]
INVALID: List[Dict[str, Any]] = VECTORS["invalid"]
HMAC_KEY: bytes = VECTORS["hmac_key_utf8"].encode("utf-8")

CASES_DOC: Dict[str, Any] = json.loads(CASES_PATH.read_text(encoding="utf-8"))
CASES: List[Dict[str, Any]] = CASES_DOC["cases"]
KEYS: Dict[str, bytes] = {name: k.encode("utf-8") for name, k in CASES_DOC["keys_utf8"].items()}


def case_key(case: Dict[str, Any]) -> Optional[bytes]:
    name = case["key"]
    return None if name is None else KEYS[name]


def invalid_input(vector: Dict[str, Any]) -> Any:
    """str for ``input``, bytes for ``input_base64``."""
    if "input_base64" in vector:
        return base64.b64decode(vector["input_base64"])
    return vector["input"]


def from_typed(tree: Any) -> Any:
    """Build the Python value described by a typed tree (see vectors.json, typed_encoding)."""
    # Iterative: the depth vector nests 512 arrays.
    result: List[Any] = []
    # Each work item: (tree, setter) where setter stores the built value.
    work: List[Any] = [(tree, result.append)]
    while work:
        t, store = work.pop()
        if t is None or isinstance(t, (bool, str)):
            store(t)
        elif isinstance(t, list):
            built: List[Any] = [None] * len(t)
            store(built)
            for i, item in enumerate(t):
                work.append((item, _setitem(built, i)))
        elif isinstance(t, dict) and set(t) == {"int"}:
            store(int(t["int"]))
        elif isinstance(t, dict) and set(t) == {"float"}:
            store(float(t["float"]))
        elif isinstance(t, dict) and set(t) == {"object"}:
            obj: Dict[str, Any] = {}
            for k, _ in t["object"]:
                obj[k] = None  # keep insertion order
            store(obj)
            for k, item in t["object"]:
                work.append((item, _setitem(obj, k)))
        else:
            raise ValueError(f"bad typed tree: {t!r}")
    return result[0]


def _setitem(container: Any, index: Any) -> Any:
    def store(value: Any) -> None:
        container[index] = value

    return store


def same(a: Any, b: Any) -> bool:
    """Deep equality comparing types exactly (1, 1.0 and True differ) and the sign of 0.0.

    Object member order is ignored (it does not change the canonical form)."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if type(x) is not type(y):
            return False
        if isinstance(x, float):
            if x != y or math.copysign(1.0, x) != math.copysign(1.0, y):
                return False
        elif isinstance(x, list):
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y))
        elif isinstance(x, dict):
            if x.keys() != y.keys():
                return False
            stack.extend((x[k], y[k]) for k in x)
        elif x != y:
            return False
    return True


def nest(depth: int) -> List[Any]:
    value: List[Any] = []
    for _ in range(depth - 1):
        value = [value]
    return value
