"""A gradient reading an object of the user's: not exportable (tests/test_export.py)."""
import numpy as np


class Config:
    def __init__(self):
        self.weights = np.ones(3)

    def scale(self):
        return 2.0


CONFIG = Config()


def uses_an_object(x):
    return np.sum(x * CONFIG.scale()) + np.sum(x * CONFIG.weights)
