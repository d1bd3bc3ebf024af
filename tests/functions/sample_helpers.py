"""A helper module shipped with `modules=[sample_helpers]`."""


def greeting(name):
    return f"hello, {name}"
