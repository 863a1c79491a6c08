"""Cases of the table-driven rule tests, one module per rule family.

Each module has ``cases(t)``, returning a list of ``t.C(fn, *args, **kwargs)``;
``t`` holds the constructors of ``tests/test_rule_table.py`` (``C``, ``Gen``,
``R``, ``P``, ``U``, ``NZ``, ``F``...). ``test_rule_table`` collects them all.
"""
import importlib
import pkgutil


def family_cases(t):
    out = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        out += importlib.import_module(f"{__name__}.{info.name}").cases(t)
    return out
