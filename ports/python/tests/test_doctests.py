"""Run the doctest examples in the package's docstrings."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "empiric_proof",
    "empiric_proof.errors",
    "empiric_proof._parse",
    "empiric_proof._canonical",
    "empiric_proof._record",
    "empiric_proof.dsse",
    "empiric_proof._stats",
    "empiric_proof._audit",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.failed == 0
    assert result.attempted > 0


def test_readme_examples() -> None:
    from _support import PORT

    result = doctest.testfile(str(PORT / "README.md"), module_relative=False,
                              optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0
