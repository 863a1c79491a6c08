"""Compiler passes, one a module; ``srcgrad.compiler`` runs them in order."""
