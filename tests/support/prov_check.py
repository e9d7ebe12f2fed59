#!/usr/bin/env python3
"""Read a record's provenance section with the W3C PROV reference library for Python (prov).

usage: prov_check.py RECORD.json -> prints counts as JSON; exits 1 if prov cannot read it.
"""
import json
import sys

from prov.model import ProvDocument

record = json.load(open(sys.argv[1], encoding="utf-8"))
doc = ProvDocument.deserialize(content=json.dumps(record["provenance"]), format="json")
records = list(doc.get_records())
kinds = sorted({type(r).__name__ for r in records})
# Round trip through PROV-N as a further check that the graph is well formed.
provn = doc.get_provn()
print(json.dumps({"records": len(records), "kinds": kinds, "provn_lines": len(provn.splitlines())}))
