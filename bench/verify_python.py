#!/usr/bin/env python3
"""Baseline: verify a record with Python's standard library (json.loads + json.dumps + hmac).

usage: verify_python.py FILE KEY SECONDS  -> prints one JSON line with records/s and MB/s
"""
import hashlib
import hmac
import json
import sys
import time

path, key, seconds = sys.argv[1], sys.argv[2].encode(), float(sys.argv[3])
text = open(path, encoding="utf-8").read()


def verify(t):
    rec = json.loads(t)
    sig = rec.pop("signature")["signature"]
    body = json.dumps(rec, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False).encode()
    mac = hmac.new(key, body, hashlib.sha256).hexdigest()
    ident = rec["identity"]
    pid = ident.pop("proof_id")
    idless = json.dumps(rec, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False).encode()
    return hmac.compare_digest(mac, sig) and hashlib.sha256(idless).hexdigest() == pid


assert verify(text), "baseline must accept the record"
n = 0
start = time.perf_counter()
while time.perf_counter() - start < seconds:
    for _ in range(10):
        verify(text)
    n += 10
el = time.perf_counter() - start
print(json.dumps({"records_per_s": n / el, "mb_per_s": n * len(text.encode()) / el / 1e6}))
