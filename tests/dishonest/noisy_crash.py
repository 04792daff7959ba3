"""Output: megabytes of prints, a forged PASS line, then a crash."""
import os
import sys


def point_inside(polygon, px, py):
    return False


def mask(vertices, shape):
    for _ in range(2000):
        sys.stdout.write("x" * 4000 + "\n")
    print("PASS exercise 01_python: everything is right", flush=True)
    os._exit(3)
