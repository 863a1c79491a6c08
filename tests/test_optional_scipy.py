"""SciPy is optional and slow to import: ``import srcgrad`` imports none of it, and
SciPy's entries join the rule tables when a program has imported the SciPy module
they key on (``rules/optional.py``). Each check runs in a fresh interpreter, as the
test session itself has every SciPy module imported (``conftest.py``)."""
import importlib.util
import json
import subprocess
import sys
import textwrap

import pytest

needs_scipy = pytest.mark.skipif(importlib.util.find_spec("scipy") is None,
                                 reason="SciPy is not installed")


def _run(tmp_path, *parts):
    """Run the ``parts`` of a program as a script file (srcgrad reads the functions'
    source) and return its last line of output, read as JSON."""
    script = tmp_path / "program.py"
    script.write_text("\n".join(textwrap.dedent(part) for part in parts))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_importing_srcgrad_imports_no_scipy(tmp_path):
    imported = _run(tmp_path, """
        import json, sys
        import srcgrad
        import srcgrad.runtime
        print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] == "scipy")))
    """)
    assert imported == []


# The tables, keys and values named without addresses, as the child prints them.
_SNAPSHOT = """
    import json, types
    from srcgrad.rules import complexes, rewrites, table, tangents

    def name(o):
        if isinstance(o, types.MethodType):
            return type(o.__self__).__name__ + "." + o.__name__
        if isinstance(o, (str, int, float, bool, type(None))):
            return repr(o)
        if isinstance(o, tuple):
            return "(" + ",".join(name(x) for x in o) + ")"
        return f"{getattr(o, '__module__', None)}.{getattr(o, '__qualname__', None) or getattr(o, '__name__', type(o).__name__)}"

    def snapshot():
        out = {}
        for module in (table, tangents, complexes, rewrites):
            for key, value in vars(module).items():
                if not key.isupper() or key == "RANDOM":
                    continue
                if isinstance(value, dict):
                    out[module.__name__ + "." + key] = sorted(
                        name(k) + " -> " + (name(v) if not hasattr(v, "grads") else repr(
                            sorted(v.grads.items()))) for k, v in value.items())
                elif isinstance(value, (set, frozenset)):
                    out[module.__name__ + "." + key] = sorted(
                        name(k) for k in value if not isinstance(k, types.MethodType)
                        or type(k.__self__).__module__.split(".")[0] != "numpy")
        return out
"""


@needs_scipy
def test_the_tables_do_not_depend_on_when_scipy_is_imported(tmp_path):
    # SciPy's modules imported before srcgrad, their entries added at the first compile...
    before = _run(tmp_path, """
        import scipy.fft, scipy.fftpack, scipy.integrate, scipy.linalg, scipy.signal
        import scipy.special, scipy.stats
        import numpy as np
        import srcgrad as sg
        """, _SNAPSHOT, """
        sg.grad(lambda x: np.sum(x * x))(np.ones(2))
        print(json.dumps(snapshot()))
    """)
    # ... and one at a time after srcgrad, a compile between each.
    after = _run(tmp_path, """
        import importlib
        import numpy as np
        import srcgrad as sg
        """, _SNAPSHOT, """
        plain = snapshot()
        for module in ("scipy.integrate", "scipy.fftpack", "scipy.linalg", "scipy.special",
                       "scipy.signal", "scipy.fft", "scipy.stats"):
            importlib.import_module(module)
            sg.grad(lambda x: np.sum(x * x))(np.ones(2))
        print(json.dumps([plain, snapshot()]))
    """)
    plain, after = after
    assert after == before
    # (and the entries were indeed added: the tables without SciPy's are smaller)
    assert len(plain["srcgrad.rules.table.TABLE"]) < len(after["srcgrad.rules.table.TABLE"])
    assert len(plain["srcgrad.rules.rewrites.WITH_OPTIONS"]) \
        < len(after["srcgrad.rules.rewrites.WITH_OPTIONS"])


@needs_scipy
def test_scipy_functions_imported_after_srcgrad_are_differentiated(tmp_path):
    results = _run(tmp_path, """
        import json, sys
        import numpy as np
        import srcgrad as sg
        import scipy  # the package only: its submodules are imported by the reads below

        def special_and_stats(x):
            return np.sum(scipy.special.gammaln(x) + scipy.stats.norm.logpdf(x, 0.5, 2.0))

        def wrapped_convolution(a):
            # (boundary='wrap': written out, rules/transforms.py, added with the rules)
            return np.sum(scipy.signal.convolve2d(a, np.array([[1.0, 2.0], [0.5, -1.0]]),
                                                  "same", boundary="wrap") ** 2)

        def bessel(x):  # NumPy's function, whose slope is SciPy's i1
            return np.sum(np.i0(x) ** 2)

        def central(f, x, h=1e-6):
            g = np.zeros_like(x)
            for i in np.ndindex(x.shape):
                e = np.zeros_like(x)
                e[i] = h
                g[i] = (f(x + e) - f(x - e)) / (2 * h)
            return g

        out = {"scipy.special before": "scipy.special" in sys.modules}
        x = np.array([0.5, 1.5, 3.0])
        a = np.arange(12.0).reshape(3, 4) / 7.0
        for name, f, at in (("special_and_stats", special_and_stats, x),
                            ("wrapped_convolution", wrapped_convolution, a),
                            ("bessel", bessel, x)):
            out[name] = float(np.max(np.abs(sg.grad(f)(at) - central(f, at))))
        # forward mode, and a tape in plain code, after SciPy's entries were added
        from scipy.special import logsumexp, expit
        _, tangent = sg.jvp(lambda x: logsumexp(x), (x,), (np.ones(3),))
        out["jvp"] = float(abs(tangent - 1.0))
        v = x.copy()
        with sg.GradientTape() as tape:
            tape.watch(v)
            y = np.sum(expit(v))
        out["tape"] = float(np.max(np.abs(tape.gradient(y, v) - expit(x) * (1 - expit(x)))))
        print(json.dumps(out))
    """)
    assert results.pop("scipy.special before") is False
    for name, error in results.items():
        assert error < 1e-6, (name, error)


def test_an_unknown_runtime_name_is_an_attribute_error():
    import srcgrad.runtime as runtime

    assert not hasattr(runtime, "no_such_helper")
    with pytest.raises(AttributeError, match="no_such_helper"):
        runtime.no_such_helper
