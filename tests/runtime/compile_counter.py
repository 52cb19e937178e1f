"""For scripts that tests run in a fresh process: count the XLA compiles."""


def count_compiles(compiled_module):
    """A list that grows by one per `compile_module` call made through
    `compiled_module` (npxla.runtime.driver.compiled)."""
    calls = []
    original = compiled_module.compile_module

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)
    compiled_module.compile_module = counting
    return calls
