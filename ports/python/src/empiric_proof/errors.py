"""The error type of empiric_proof and the stable error codes of the wire format.

Every failure the package reports is a :class:`WireError` whose ``code`` is one of the
stable strings below. The codes are the contract (docs/wire-format.md, "Error codes" and
"Records"); the messages are for people and may change.

>>> err = WireError(DUPLICATE_KEY, "duplicate key 'a'", position=7, line=1, column=8)
>>> err.code, err.position
('duplicate_key', 7)
>>> str(err)
"duplicate_key: duplicate key 'a' (line 1, column 8, offset 7)"
>>> isinstance(err, ValueError)
True
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

__all__ = [
    "WireError",
    "SYNTAX_ERROR",
    "DUPLICATE_KEY",
    "LONE_SURROGATE",
    "NON_FINITE_NUMBER",
    "INT_OUT_OF_RANGE",
    "DEPTH_EXCEEDED",
    "INVALID_UTF8",
    "UNSUPPORTED_TYPE",
    "KEY_TOO_SHORT",
    "RECORD_STRUCTURE",
    "PROOF_ID_MISMATCH",
    "SIGNATURE_MISMATCH",
    "VERDICT_INCONSISTENT",
    "PARSE_CODES",
    "CANONICAL_CODES",
    "RECORD_CODES",
]

# Parse codes (shared by every port, pinned by fixtures/wire/vectors.json).
SYNTAX_ERROR = "syntax_error"
DUPLICATE_KEY = "duplicate_key"
LONE_SURROGATE = "lone_surrogate"
NON_FINITE_NUMBER = "non_finite_number"
INT_OUT_OF_RANGE = "int_out_of_range"
DEPTH_EXCEEDED = "depth_exceeded"
INVALID_UTF8 = "invalid_utf8"

# Raised when writing canonical bytes from a Python value that is outside the value model.
UNSUPPORTED_TYPE = "unsupported_type"

# Signing refuses keys shorter than 32 bytes.
KEY_TOO_SHORT = "key_too_short"

# Record checks (docs/wire-format.md, "Records").
RECORD_STRUCTURE = "record_structure"
PROOF_ID_MISMATCH = "proof_id_mismatch"
SIGNATURE_MISMATCH = "signature_mismatch"
# The outcome does not follow from the deciding pillar's evidence, threshold and rule
# (docs/record.md, "Verdict consistency"); checked with or without a key.
VERDICT_INCONSISTENT = "verdict_inconsistent"

PARSE_CODES: Tuple[str, ...] = (
    SYNTAX_ERROR,
    DUPLICATE_KEY,
    LONE_SURROGATE,
    NON_FINITE_NUMBER,
    INT_OUT_OF_RANGE,
    DEPTH_EXCEEDED,
    INVALID_UTF8,
)
CANONICAL_CODES: Tuple[str, ...] = (
    UNSUPPORTED_TYPE,
    LONE_SURROGATE,
    NON_FINITE_NUMBER,
    INT_OUT_OF_RANGE,
    DEPTH_EXCEEDED,
)
RECORD_CODES: Tuple[str, ...] = (
    RECORD_STRUCTURE,
    PROOF_ID_MISMATCH,
    SIGNATURE_MISMATCH,
    VERDICT_INCONSISTENT,
)


class WireError(ValueError):
    """A value, text or record that breaks the wire-format contract.

    Attributes:
        code: the stable error code, e.g. ``"duplicate_key"``.
        message: a human-readable description (not part of the contract).
        position: for parse errors, the offset in characters (code points) into the text where
            the problem was met; for ``invalid_utf8``, the number of characters decoded before
            the first bad byte. ``None`` when there is no text position.
        line, column: 1-based line and column (in code points) of ``position``, or ``None``.

    >>> e = WireError("record_structure", "missing section 'claim'")
    >>> e.position is None, e.message
    (True, "missing section 'claim'")
    >>> str(e)
    "record_structure: missing section 'claim'"
    """

    code: str
    message: str
    position: Optional[int]
    line: Optional[int]
    column: Optional[int]

    def __init__(
        self,
        code: str,
        message: str,
        position: Optional[int] = None,
        *,
        line: Optional[int] = None,
        column: Optional[int] = None,
    ) -> None:
        super().__init__(code, message, position)
        self.code = code
        self.message = message
        self.position = position
        self.line = line
        self.column = column

    def __str__(self) -> str:
        where = ""
        if self.position is not None:
            if self.line is not None and self.column is not None:
                where = f" (line {self.line}, column {self.column}, offset {self.position})"
            else:
                where = f" (offset {self.position})"
        return f"{self.code}: {self.message}{where}"

    def __repr__(self) -> str:
        return f"WireError({self.code!r}, {self.message!r}, position={self.position!r})"

    def __reduce__(self) -> Tuple[Any, ...]:
        return (
            _rebuild,
            (self.code, self.message, self.position, self.line, self.column),
        )


def _rebuild(
    code: str,
    message: str,
    position: Optional[int],
    line: Optional[int],
    column: Optional[int],
) -> WireError:
    return WireError(code, message, position, line=line, column=column)
