"""Run rocrate-validator (PyPI roc-validator) on a crate without network access.

The validator resolves the crate's JSON-LD context over HTTP through a requests_cache
cache and has an offline mode that serves only cached responses. This helper seeds a fresh
cache with the RO-Crate 1.2 context from a local file (a byte-for-byte copy of the official
one), then runs the real command line offline:

    python3 rocrate_validate.py CONTEXT_FILE CRATE_DIR [extra rocrate-validator options]

Without options it validates with the ro-crate-1.2 profile at REQUIRED severity; a
--profile-identifier or --requirement-severity given replaces that default.

It prints the validator's JSON report on stdout and exits with the validator's code.
"""
import os
import subprocess
import sys
import tempfile

import io

import requests
import requests.adapters
import requests.structures
import urllib3
from requests_cache import CachedSession

CONTEXT_URL = "https://w3id.org/ro/crate/1.2/context"


class LocalContextAdapter(requests.adapters.BaseAdapter):
    """Answers GET CONTEXT_URL from the local file, as the server would; nothing else."""

    def __init__(self, body: bytes):
        super().__init__()
        self.body = body

    def send(self, request, **kwargs):
        if request.url != CONTEXT_URL:
            raise requests.ConnectionError(f"no network in this check: {request.url}")
        raw = urllib3.response.HTTPResponse(
            body=io.BytesIO(self.body),
            headers={"Content-Type": "application/ld+json"},
            status=200,
            reason="OK",
            preload_content=False,
            decode_content=False,
            request_url=request.url,
        )
        return self.build_response(request, raw)

    def build_response(self, request, raw):
        response = requests.Response()
        response.status_code = raw.status
        response.reason = raw.reason
        response.headers = requests.structures.CaseInsensitiveDict(raw.headers)
        response.raw = raw
        response.url = request.url
        response.request = request
        response.encoding = "utf-8"
        return response

    def close(self):
        pass


def seed(cache_name: str, context_file: str) -> None:
    session = CachedSession(cache_name=cache_name, backend="sqlite", expire_after=-1,
                            allowable_methods=("GET",), allowable_codes=(200, 302, 404))
    with open(context_file, "rb") as f:
        session.mount("https://", LocalContextAdapter(f.read()))
    r = session.get(CONTEXT_URL, headers={"Accept": "application/ld+json, application/json"})
    r.raise_for_status()
    assert session.cache.contains(url=CONTEXT_URL)
    session.close()


def main() -> int:
    context_file, crate = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        cache = os.path.join(tmp, "http-cache")
        seed(cache, context_file)
        report = os.path.join(tmp, "report.json")
        extra = sys.argv[3:]
        defaults = []
        if "--profile-identifier" not in extra:
            defaults += ["--profile-identifier", "ro-crate-1.2"]
        if "--requirement-severity" not in extra:
            defaults += ["--requirement-severity", "REQUIRED"]
        cmd = [
            "rocrate-validator", "validate", "--offline", "--cache-path", cache,
            *defaults,
            "--no-paging", "--output-format", "json", "--output-file", report,
            *extra, crate,
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        sys.stderr.write(proc.stderr)
        if os.path.exists(report):
            with open(report) as f:
                sys.stdout.write(f.read())
        else:
            sys.stdout.write(proc.stdout)
        return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
