"""autocheck's Python API: build a suite in code, run it, read and display the results.

from autocheck.api import Suite, Test
suite = Suite("demo")
suite.add(Test.from_templates("names", "{first_name} is {a:profession}.", label="neutral"))
results = suite.run(my_model)        # a callable, an HF id or directory, an endpoint, ...
results                              # in a notebook: the capability table and failing examples
"""

from .suite import Results, Suite, Test

__all__ = ["Results", "Suite", "Test"]
