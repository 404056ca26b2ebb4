"""Where numba caches this package's compiled code: one directory per state of the package's sources.

numba checks a cached function against its own file only (its modification time and size). A
compiled loop that inlines kernels from other modules -- a paper's simulation loop that
inlines the policies of algorithms/ and the environments' draws -- would keep running the old
kernels after one of those modules changed (numba issue #6845). So every cached function of the
package writes to ``<base>/banditrepro-<hash of all package sources>``: an edited source starts
a fresh cache, and a cache is only read by the code that wrote it. Fresh clones, CI and cluster
jobs are unaffected except that they may reuse a cache written by identical sources.

``<base>`` is ``$NUMBA_CACHE_DIR`` when set (CI and the tests point it at ``.numba_cache/``), else
``$XDG_CACHE_HOME/banditrepro/numba`` (``~/.cache/banditrepro/numba``). Old directories are never
read again and can be deleted at any time.

Inside that directory a kernel's entries sit under its file's path relative to the package
(:class:`banditrepro.numba_locator.PackageLocator`), not under a hash of the file's absolute path
as numba's own locator puts them: two trees with the same sources -- a second clone, the scratch
copy a mutant or a test builds in and a rebuild of the same patch beside it -- share their compiled
code instead of compiling it again per folder. That is safe because the directory already stands
for every byte of the package, and numba still checks each file's own content hash.
"""

from __future__ import annotations

import fcntl
import os
import pickle
import sys
from contextlib import ExitStack, contextmanager
from pathlib import Path

from .digest import files_digest

_PACKAGE_DIR = Path(__file__).resolve().parent
_PREFIX = "banditrepro-"
PLANNED = "specs"  # the folder of planned()'s entries in the cache directory of the current sources


def source_hash() -> str:
    """sha256 over every .py file of the package (relative path and bytes, banditrepro.digest.files_digest)."""
    return files_digest((p.relative_to(_PACKAGE_DIR).as_posix() for p in _PACKAGE_DIR.rglob("*.py")), _PACKAGE_DIR)


def base_dir(environ=os.environ) -> Path:
    """The folder that holds one cache directory per state of the sources."""
    base = environ.get("NUMBA_CACHE_DIR")
    if base and Path(base).name.startswith(_PREFIX):
        base = str(Path(base).parent)  # set by this module in a parent process: same base
    if not base:
        base = Path(environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "banditrepro" / "numba"
    return Path(base)


def cache_dir(environ=os.environ, sources: str | None = None) -> Path:
    """``sources``: the :func:`source_hash` when the caller has it."""
    return base_dir(environ) / f"{_PREFIX}{(sources or source_hash())[:16]}"


LOCATORS_VARIABLE = "NUMBA_CACHE_LOCATOR_CLASSES"
# the package's own locator first, then numba's defaults (in numba's order) for every other file
LOCATORS = ",".join([f"{__package__}.numba_locator.PackageLocator", "UserProvidedCacheLocator", "InTreeCacheLocator",
                     "UserWideCacheLocator", "IPythonCacheLocator", "ZipCacheLocator"])


def package_relative_folder(module: str, py_file: str) -> str | None:
    """The folder of ``py_file`` relative to the package root (``algorithms``, ``experiments/select``, ``.``),
    when ``module`` is a module of this package and ``py_file`` is where that module's name says it is."""
    parts = module.split(".")
    if parts[0] != __name__.split(".")[0] or len(parts) < 2:
        return None
    path = Path(py_file)
    expected = Path(*parts[1:]).with_suffix(".py") if path.name != "__init__.py" else Path(*parts[1:], "__init__.py")
    if path.parts[-len(expected.parts):] != expected.parts:
        return None
    return expected.parent.as_posix()


def configure() -> Path:
    """Point numba's cache at :func:`cache_dir`; called by the package's ``__init__`` before any kernel
    is compiled. numba reads NUMBA_CACHE_DIR when it is imported, so the variable is set for a numba
    still to come (and for child processes, which resolve the same directory) and numba's config
    for one already imported."""
    path = cache_dir()
    os.environ["NUMBA_CACHE_DIR"] = str(path)
    # numba >= 0.62 reads the locators from this variable; older numba ignores it and keys by absolute path
    locators = os.environ.setdefault(LOCATORS_VARIABLE, LOCATORS)
    numba = sys.modules.get("numba")
    if numba is not None:
        numba.config.CACHE_DIR = str(path)
        if hasattr(numba.config, "CACHE_LOCATOR_CLASSES"):
            numba.config.CACHE_LOCATOR_CLASSES = locators
    return path


@contextmanager
def compiling(name: str):
    """Held around a call that may compile ``name``'s kernels: processes that would compile the same kernels at
    the same time (two jobs of a paper starting together on an empty cache, each compiling the same loop for up
    to a minute) take turns instead; the second then loads what the first wrote. A file lock in the cache
    directory of the current sources, so it is shared by every process that shares the cache. Where the file
    system has no locks (some network file systems), each process goes on without one, as it did before."""
    folder = Path(os.environ.get("NUMBA_CACHE_DIR") or cache_dir())
    with ExitStack() as stack:
        try:
            folder.mkdir(parents=True, exist_ok=True)
            handle = stack.enter_context(open(folder / f"compile-{name}.lock", "a"))
            fcntl.flock(handle, fcntl.LOCK_EX)  # released when the file is closed
        except OSError:
            pass
        yield


def planned(name: str, key: str, compute):
    """``compute()``, kept pickled as ``<cache directory of the current sources>/specs/<name>-<key>.pickle``: what
    planning (every ``snakemake`` call) derives from the configs and the sources -- each paper's validated spec,
    the papers' declared options, each paper's source files -- read back while none of them changed. ``key``
    stands for every input of ``compute`` but the package's sources (the directory stands for those). A
    ``compute`` that raises caches nothing; an unreadable entry is computed and written again; a read-only cache
    plans without one."""
    entry = Path(os.environ.get("NUMBA_CACHE_DIR") or cache_dir()) / PLANNED / f"{name}-{key[:24]}.pickle"
    try:
        return pickle.loads(entry.read_bytes())
    except Exception:  # none yet, or unreadable: compute it and (re)write it
        value = compute()
        try:
            entry.parent.mkdir(parents=True, exist_ok=True)
            partial = entry.with_name(f"{entry.name}.{os.getpid()}.partial")
            partial.write_bytes(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
            os.replace(partial, entry)  # atomic: a reader sees the whole entry or none
        except OSError:
            pass
        return value
