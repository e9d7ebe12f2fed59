#!/usr/bin/env python3
"""Oracle for differential tests: Python's standard library defines the canonical form.

Reads lines from stdin. Each line is a JSON object:
  {"typed": <typed tree>}  -> build the value, write its canonical text
  {"text": "<JSON text>"}  -> json.loads the text, write the canonical text of the result
Writes one line per input: the canonical text, or "!<ExceptionName>" when Python fails.
Typed tree: {"int": "..."}, {"float": "<repr or JS text>"}, {"object": [[k, t], ...]}, lists,
strings, booleans, null.
"""
import json
import sys

sys.setrecursionlimit(10000)


def build(t):
    if t is None or isinstance(t, (bool, str)):
        return t
    if isinstance(t, list):
        return [build(x) for x in t]
    if "int" in t:
        return int(t["int"])
    if "float" in t:
        return float(t["float"])
    return {k: build(v) for k, v in t["object"]}


def canonical(v):
    return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


out = sys.stdout
for line in sys.stdin:
    req = json.loads(line)
    try:
        if "typed" in req:
            out.write(canonical(build(req["typed"])))
        else:
            out.write(canonical(json.loads(req["text"])))
    except Exception as e:  # noqa: BLE001 - report any failure to the test
        out.write("!" + type(e).__name__)
    out.write("\n")
out.flush()
