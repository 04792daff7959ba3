"""polymask's test suite, a package so its modules share tests._support."""
