"""Shared fixtures.  Importing polymask here also proves the compiled
extension built: there is no pure-Python fallback to hide behind."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import polymask  # noqa: E402  (fails loudly if the extension is missing)
from polymask.cases import contract_cases  # noqa: E402


@pytest.fixture(scope="session")
def cases():
    return contract_cases()
