"""Limits: a mask that takes 40 s while a thread keeps writing on the checker's channel."""
import os
import sys
import threading
import time

import numpy as np


def beat():
    while True:
        os.write(int(sys.argv[1]), b'{"ok": true}\n')
        time.sleep(0.3)


def point_inside(polygon, px, py):
    return False


def mask(vertices, shape):
    threading.Thread(target=beat, daemon=True).start()
    time.sleep(40)
    return np.zeros(shape, bool)
