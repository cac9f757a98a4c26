"""``python -m autocheck``: the same command line as the ``autocheck`` script."""

from .cli import run

if __name__ == "__main__":
    run()
