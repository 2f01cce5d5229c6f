"""The configuration reference, generated from the settings model and its comments.

`docs/configuration.md` (a table) and `.env.example` (every variable, commented) are this
module's output (`python -m engine.settings_doc markdown|env`); a test keeps them current. The
description of a setting is the comment block written above its field in `settings.py`.
"""

from __future__ import annotations

import ast
import inspect
import json
import sys
from dataclasses import dataclass
from typing import Any, Literal, get_args, get_origin

from pydantic import AliasChoices, BaseModel, SecretStr
from pydantic_settings import BaseSettings

from engine.settings import ChannelWeights, ImportanceWeights, Settings

__all__ = ["SettingDoc", "env_names", "render_env_example", "render_markdown", "setting_docs"]

# Nested groups: each is a settings class of its own, read from its own prefix.
_GROUPS: tuple[type[BaseSettings], ...] = (Settings, ChannelWeights, ImportanceWeights)


@dataclass(frozen=True)
class SettingDoc:
    env: str  # the variable to set
    also: tuple[str, ...]  # other names that work
    type: str
    default: str
    description: str
    section: str


def _comments(cls: type) -> dict[str, tuple[str, str]]:
    """Field name -> (the comment block above it, the `# -- section --` it is in)."""
    lines = inspect.getsource(cls).splitlines()
    found: dict[str, tuple[str, str]] = {}
    section = ""
    block: list[str] = []
    body = ast.parse("\n".join(lines)).body[0]
    assert isinstance(body, ast.ClassDef)
    starts = {
        node.lineno: node.target.id
        for node in body.body
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
    }
    # A field right below another (no blank line, no comment between) shares its comment:
    # "Graph expansion: seeds, hops, and the loss per hop" covers three fields.
    shared = ""
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if text.startswith("# --"):
            section = text.strip("#- ").split("(")[0].strip()
            block, shared = [], ""
        elif text.startswith("#"):
            block.append(text.lstrip("# "))
        elif number in starts:
            shared = " ".join(block) or shared
            found[starts[number]] = (shared, section)
            block = []
        elif not text:
            block, shared = [], ""
    return found


def env_names(cls: type[BaseSettings], field: str) -> list[str]:
    """The environment variables a field is read from, the preferred one first.

    >>> env_names(Settings, "neo4j_uri"), env_names(Settings, "data_dir")
    (['NEO4J_URI', 'HINDSIGHT_NEO4J_URI'], ['HINDSIGHT_DATA_DIR'])
    """
    info = cls.model_fields[field]
    alias = info.validation_alias
    if isinstance(alias, AliasChoices):
        return [str(choice) for choice in alias.choices if str(choice).isupper()]
    prefix = cls.model_config.get("env_prefix", "")
    return [f"{prefix}{field}".upper()]


def _default(value: object) -> str:
    if isinstance(value, SecretStr):
        return "" if not value.get_secret_value() else "(set)"
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return str(value)


def _type(annotation: Any) -> str:
    """A field's type in words.

    >>> _type(Literal["a", "b"]), _type(int | None), _type(SecretStr), _type(dict[str, str])
    ('a / b', 'int (optional)', 'secret', 'JSON object')
    """
    args = [a for a in get_args(annotation) if a is not type(None)]
    if get_origin(annotation) is Literal:
        return " / ".join(str(a) for a in args)
    if len(args) == 1 and type(None) in get_args(annotation):
        return f"{_type(args[0])} (optional)"
    if annotation is SecretStr:
        return "secret"
    if get_origin(annotation) is dict:
        return "JSON object"
    return getattr(annotation, "__name__", str(annotation))


def setting_docs() -> list[SettingDoc]:
    """Every setting hindsight reads, in the order of `settings.py`."""
    docs: list[SettingDoc] = []
    for cls in _GROUPS:
        comments = _comments(cls)
        for name, info in cls.model_fields.items():
            if isinstance(info.default_factory, type) and issubclass(info.default_factory, BaseModel):
                continue  # a nested group, listed on its own
            names = env_names(cls, name)
            description, section = comments.get(name, ("", ""))
            if cls is not Settings:
                section = (cls.__doc__ or cls.__name__).split("(")[0].strip().rstrip(".")
            default = info.get_default(call_default_factory=True)
            docs.append(
                SettingDoc(names[0], tuple(names[1:]), _type(info.annotation),
                           _default(default), description, section)  # fmt: skip
            )
    return docs


def render_markdown() -> str:
    lines = [
        "# Configuration",
        "",
        "Every setting, read from the environment when a `Memory` opens (or passed as",
        "`Settings(...)` in Python). Generated from `engine/settings.py` by",
        "`python -m engine.settings_doc markdown`; the descriptions are the comments there.",
        "Copy `.env.example` for a file with all of them.",
    ]
    section = None
    for doc in setting_docs():
        if doc.section != section:
            section = doc.section
            lines += ["", f"## {section or 'General'}", "", "| Variable | Type | Default | What it trades |",
                      "|---|---|---|---|"]  # fmt: skip
        names = f"`{doc.env}`" + "".join(f" (or `{a}`)" for a in doc.also)
        default = f"`{doc.default}`" if doc.default else ""
        lines.append(f"| {names} | {doc.type} | {default} | {doc.description.replace('|', '/')} |")
    return "\n".join(lines) + "\n"


def render_env_example() -> str:
    lines = [
        "# Every hindsight setting with its default. Copy to .env (docker compose reads it) and",
        "# uncomment what you change. Generated by `python -m engine.settings_doc env`; the",
        "# reference with explanations is docs/configuration.md.",
        "",
        "# Required by docker compose: the Neo4j password (also used to create the database).",
        "NEO4J_PASSWORD=change-me-please",
    ]
    section = None
    for doc in setting_docs():
        if doc.env == "NEO4J_PASSWORD":
            continue
        if doc.section != section:
            section = doc.section
            lines += ["", f"# -- {section or 'General'}"]
        lines.append(f"# {doc.env}={doc.default}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    target = sys.argv[1] if len(sys.argv) > 1 else "markdown"
    print(render_markdown() if target == "markdown" else render_env_example(), end="")
