"""The package's shape: every public name of the extension has a type stub, and the
Dask example of docs/python.md is the tested one."""

import ast
import inspect
import pathlib

import cipherlab
from cipherlab import _cipherlab, seal

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
    """Every public class, function and method of the package has a docstring (what
    help() and IDEs show)."""
    missing = []
    for module in (_cipherlab, seal):
        for name in getattr(module, "__all__", dir(module)):
            obj = getattr(module, name)
            if name.startswith("_") or not callable(obj):
                continue
            if not inspect.getdoc(obj):
                missing.append(f"{module.__name__}.{name}")
            if inspect.isclass(obj) and not issubclass(obj, BaseException):
                for attr, value in vars(obj).items():
                    if not attr.startswith("_") and not isinstance(value, (int, str, bool)) and not inspect.getdoc(value):
                        missing.append(f"{module.__name__}.{name}.{attr}")
    assert not missing, f"no docstring: {missing}"
    assert cipherlab.AsconAead128.encrypt.__doc__ and cipherlab.new.__doc__


def test_the_guide_shows_the_tested_dask_example():
    guide = (HERE.parents[2] / "docs" / "python.md").read_text()
    example = (HERE.parent / "examples" / "dask_seal.py").read_text()
    for fn in ("def worker_key", "def seal_one", "def seal_folder"):
        start = example.index(fn)
        end = example.find("\n\n\n", start)
        assert example[start:end] in guide, f"docs/python.md lost {fn} of examples/dask_seal.py"
