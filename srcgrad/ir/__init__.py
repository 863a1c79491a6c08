"""What every pass reads and builds code with: templates, annotations, atoms,
scopes, and the names a statement stores, loads and binds (``names``).
"""
