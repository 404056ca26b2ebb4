"""Stop, with one line saying what to do, when this Python is not the one requirements.lock was resolved for.

README's set-up commands and .ci/run run it before `pip install --require-hashes -r requirements.lock`, which on
another Python fails with an error about hashes or versions that does not say why. The lock's own header names the
Python it was resolved for (uv's `--python-version`); docs/environment.md says how the lock is made.

    python3 tools/check_python.py                  # exit 0 and silent on that Python, else one line and exit 1
    python3 tools/check_python.py --python 3.12    # check that version instead of this interpreter's

Standard library only, and written for any Python 3 (no f-strings): it has to run on the wrong Python.
"""

import io
import os
import platform
import re
import sys

LOCK = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "requirements.lock")


def pinned_python(lock_text):
    """The "X.Y" of ``--python-version X.Y`` in the lock's header (the uv command that wrote it)."""
    match = re.search(r"^#.*--python-version[ =](\d+\.\d+)\b", lock_text, flags=re.M)
    if match is None:
        raise ValueError("requirements.lock names no --python-version in its header")
    return match.group(1)


def problem(version, implementation, lock_text):
    """One line for the user when Python ``version`` ("X.Y") of ``implementation`` cannot install the lock, else
    None."""
    pinned = pinned_python(lock_text)
    if version == pinned and implementation == "CPython":
        return None
    this = "Python " + version if implementation == "CPython" else "{} {}".format(implementation, version)
    return ("banditrepro's requirements.lock is pinned for Python {pinned} (CPython); this is {this}: install "
            "Python {pinned} (your system's python{pinned}, `pyenv install {pinned}` or `uv python install {pinned}`) "
            "and run the same commands with python{pinned} in place of python3 (for .ci/run: PYTHON=python{pinned}); "
            "docs/environment.md").format(pinned=pinned, this=this)


def main(argv):
    version = "{}.{}".format(*sys.version_info[:2])
    implementation = platform.python_implementation()
    if len(argv) == 2 and argv[0] == "--python":
        version, implementation = argv[1], "CPython"
    elif argv:
        sys.stderr.write("usage: python3 tools/check_python.py [--python X.Y]\n")
        return 2
    with io.open(LOCK, encoding="utf-8") as fh:
        message = problem(version, implementation, fh.read())
    if message:
        sys.stderr.write(message + "\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
