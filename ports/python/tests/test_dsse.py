"""Public-key DSSE verification against the shared vectors in fixtures/attestations/.

Needs the optional cryptography package; without it the cases are skipped (and in CI, where
EMPIRIC_REQUIRE_ALL=1, they fail), and the port must say clearly that it is missing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from _support import FIXTURES, SRC

from empiric_proof import dsse

ATTEST = FIXTURES / "attestations"
MANIFEST = json.loads((ATTEST / "cases.json").read_text(encoding="utf-8"))
REQUIRE_ALL = os.environ.get("EMPIRIC_REQUIRE_ALL") == "1"

needs_crypto = pytest.mark.skipif(
    not dsse.available() and not REQUIRE_ALL,
    reason="cryptography is not installed: " + dsse.INSTALL_HINT,
)


@needs_crypto
def test_key_ids_match_the_fixtures():
    for name, keyid in MANIFEST["keyids"].items():
        key = dsse.load_public_key((ATTEST / "keys" / f"{name}.pub").read_bytes(), name)
        assert key.keyid == keyid


@needs_crypto
@pytest.mark.parametrize("case", MANIFEST["cases"], ids=lambda c: f"{c['envelope']}:{len(c['public_keys'])}")
def test_attestation_case(case):
    keys = [dsse.load_public_key((ATTEST / k).read_bytes(), k) for k in case["public_keys"]]
    r = dsse.verify_dsse((ATTEST / case["envelope"]).read_bytes(), keys)
    assert r.verified == case["expect"]["verified"], r.message
    assert r.reason == case["expect"]["reason"]
    assert r.signers == case["expect"]["signers"]


@needs_crypto
def test_cli_verify_dsse():
    env = dict(os.environ, PYTHONPATH=str(SRC))
    ok = subprocess.run(
        [sys.executable, "-m", "empiric_proof", "verify-dsse", str(ATTEST / "proof-both.dsse.json"),
         "--public-key", str(ATTEST / "keys" / "p256.pub")],
        capture_output=True, text=True, env=env,
    )
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith("OK ")
    bad = subprocess.run(
        [sys.executable, "-m", "empiric_proof", "verify-dsse", str(ATTEST / "tampered-payload.dsse.json"),
         "--public-key", str(ATTEST / "keys" / "p256.pub")],
        capture_output=True, text=True, env=env,
    )
    assert bad.returncode == 2
    assert "signature_mismatch" in bad.stdout


def test_without_cryptography_it_says_so():
    """With cryptography hidden, the CLI exits 69 naming the package and the install command."""
    code = (
        "import sys; sys.modules['cryptography'] = None\n"
        "from empiric_proof.__main__ import main\n"
        f"sys.exit(main(['verify-dsse', {str(ATTEST / 'proof-p256.dsse.json')!r}, "
        f"'--public-key', {str(ATTEST / 'keys' / 'p256.pub')!r}]))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=str(SRC)))
    assert r.returncode == 69
    assert "unavailable" in r.stderr and "cryptography" in r.stderr and "pip install" in r.stderr
    blocked = (
        "import sys; sys.modules['cryptography'] = None\n"
        "from empiric_proof import dsse\n"
        "assert not dsse.available()\n"
        "try:\n"
        "    dsse.verify_dsse('{}', [])\n"
        "except dsse.DsseUnavailable as e:\n"
        "    print(e.code)\n"
    )
    r = subprocess.run([sys.executable, "-c", blocked], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=str(SRC)))
    assert r.stdout.strip() == "unavailable", r.stderr
