"""securesystemslib as an independent DSSE peer for tests/attest/sslib_test.ts.

    sslib_peer.py verify ENVELOPE THRESHOLD PUB:KEYID [PUB:KEYID ...]
        Envelope.verify with SSlibKey.from_crypto keys; prints {"ok": true, "keyids": [...]}
        or {"ok": false, "error": "..."}; exit 0 either way.
    sslib_peer.py sign PAYLOAD_FILE PAYLOAD_TYPE KEY[:KEYID] [KEY[:KEYID] ...]
        Envelope.sign with CryptoSigner for each PKCS#8 PEM key; without :KEYID the signature
        carries securesystemslib's own key id. Prints the envelope JSON.
"""
import json
import sys

from cryptography.hazmat.primitives.serialization import load_pem_private_key, load_pem_public_key
from securesystemslib.dsse import Envelope
from securesystemslib.signer import CryptoSigner, SSlibKey


def main() -> None:
    mode = sys.argv[1]
    if mode == "verify":
        env = Envelope.from_dict(json.load(open(sys.argv[2])))
        keys = []
        for spec in sys.argv[4:]:
            path, keyid = spec.rsplit(":", 1)
            keys.append(SSlibKey.from_crypto(load_pem_public_key(open(path, "rb").read()), keyid=keyid))
        try:
            accepted = env.verify(keys, int(sys.argv[3]))
            print(json.dumps({"ok": True, "keyids": sorted(accepted)}))
        except Exception as e:  # VerificationError, or a parse problem of the signature
            print(json.dumps({"ok": False, "error": f"{type(e).__name__}: {e}"}))
        return
    if mode == "sign":
        payload = open(sys.argv[2], "rb").read()
        env = Envelope(payload, sys.argv[3], {})
        for spec in sys.argv[4:]:
            path, _, keyid = spec.partition(":")
            priv = load_pem_private_key(open(path, "rb").read(), password=None)
            public = SSlibKey.from_crypto(priv.public_key(), keyid=keyid or None)
            env.sign(CryptoSigner(priv, public))
        print(json.dumps(env.to_dict()))
        return
    sys.exit(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
