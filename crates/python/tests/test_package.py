"""The package's shape: every public name of the extension has a type stub, and the
Dask example of docs/python.md is the tested one."""

import ast
import pathlib

import cipherlab
from cipherlab import _cipherlab

HERE = pathlib.Path(__file__).resolve().parent
PACKAGE = HERE.parent / "python" / "cipherlab"


def test_every_extension_name_has_a_stub():
    tree = ast.parse((PACKAGE / "_cipherlab.pyi").read_text())
    stubbed = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    stubbed |= {t.id for n in tree.body if isinstance(n, ast.AnnAssign) for t in [n.target]}
    public = {n for n in dir(_cipherlab) if not n.startswith("_")} | {"__version__"}
    missing = public - stubbed - {"__version__"}
    assert not missing, f"no stub for {sorted(missing)}"
    assert (PACKAGE / "py.typed").exists()
    for name in cipherlab.__all__:
        assert hasattr(cipherlab, name), name


def test_docstrings():
    for name in ("AsconAead128", "AsconHash256", "Cipher"):
        assert getattr(cipherlab, name).__doc__
    assert cipherlab.AsconAead128.encrypt.__doc__


def test_the_guide_shows_the_tested_dask_example():
    guide = (HERE.parents[2] / "docs" / "python.md").read_text()
    example = (HERE.parent / "examples" / "dask_seal.py").read_text()
    for fn in ("def worker_key", "def seal_one", "def seal_folder"):
        start = example.index(fn)
        end = example.find("\n\n\n", start)
        assert example[start:end] in guide, f"docs/python.md lost {fn} of examples/dask_seal.py"
