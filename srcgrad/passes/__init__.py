"""Compiler passes, one a module; ``srcgrad.compiler.pipeline`` runs them in order."""
