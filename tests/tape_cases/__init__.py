"""Code that GradientTape tests run from real files (the tape reads its block's source).

- ``keras_like``: a small Keras-like model (Dense layers holding sg.Variables, an MLP).
- ``seeds_plain``, ``seeds_decorated``, ``seeds_manual``: the SPEC/issue seed
  snippets as written, inside ordinary functions, inside ``@sg.function`` functions,
  and with ``tape.__enter__()`` / ``tape.__exit__(None, None, None)`` by hand.
- ``seeds_script``, ``seeds_script_manual``: the same snippets at module level of
  a script (run with ``runpy.run_path`` or ``python FILE``).
"""
