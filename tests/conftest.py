"""Shared fixtures.  Importing polymask here also proves the compiled
extension built: there is no pure-Python fallback to hide behind."""
import pytest

import polymask  # noqa: F401  (fails loudly if the extension is missing)
from polymask.course.cases import contract_cases


@pytest.fixture(scope="session")
def cases():
    return contract_cases()
