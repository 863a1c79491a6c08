"""The Rosenbrock function: the smallest real test of a gradient compiler.

    python examples/rosenbrock.py
    srcgrad show examples/rosenbrock.py:rosenbrock
"""
import numpy as np


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def rosenbrock_gradient_by_hand(x):
    """The gradient derived on paper, to check the compiled one against."""
    residual = x[1:] - x[:-1] ** 2
    g = np.zeros_like(x)
    g[:-1] += -400.0 * x[:-1] * residual - 2.0 * (1.0 - x[:-1])
    g[1:] += 200.0 * residual
    return g


if __name__ == "__main__":
    import srcgrad

    x = np.linspace(-1, 1, 10)
    g = srcgrad.grad(rosenbrock)(x)
    expected = rosenbrock_gradient_by_hand(x)
    print("rosenbrock(x) =", rosenbrock(x))
    print("gradient      =", g)
    if not np.allclose(g, expected, rtol=1e-12, atol=1e-12):
        raise SystemExit(f"gradient differs from the hand-derived one: {expected}")
    print("matches the hand-derived gradient")
