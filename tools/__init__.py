"""Developer tools for srcgrad that are not part of the package (the fuzzer)."""
