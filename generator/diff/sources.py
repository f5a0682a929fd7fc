"""Where the two specs of ``apismith diff`` come from: a file (a URL is refused: only
``apismith generate`` fetches one), or ``FILE@REV``: the file as it was at a git revision,
written into a temporary folder that mirrors its name.

Git runs with an argument list (no shell), in the file's folder: ``git show REV:./NAME``.
A spec whose ``$ref``s name other files gets the JSON and YAML files of its folder (of
its ref root, when the config sets one) at that revision too, so that the loader's rule
holds as it does on the working tree: ``$ref``s read nothing outside that folder.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from generator.errors import ApismithError

if TYPE_CHECKING:
    import subprocess

_URL = re.compile(r"(?i)^[a-z][a-z0-9+.-]*://")
# a ``$ref`` (JSON or YAML) whose value does not start with ``#``: another file
_EXTERNAL_REF = re.compile(r"""["']?\$ref["']?\s*:\s*["']?(?![\s"'#])""")
_SPEC_SUFFIXES = (".json", ".yaml", ".yml")
MAX_FILES = 2000  # the spec files read from one folder at a revision


def parse_source(text: str) -> tuple[Path, str | None]:
    """``FILE`` or ``FILE@REV`` as (file, revision or None). A file that exists is a file
    even with an ``@`` in its name."""
    if _URL.match(text):
        raise ApismithError(
            "a spec by URL is read by `apismith generate` only: pass a file, or FILE@REV",
            file=text,
        )
    path = Path(text)
    if "@" not in text or path.exists():
        return path, None
    name, rev = text.rsplit("@", 1)
    if not name or not rev:
        raise ApismithError("expected FILE or FILE@REV (a git revision of the file)", file=text)
    return Path(name), rev


class NotAtRevision(ApismithError):
    """The file does not exist at that revision (for ``--since``: a new API)."""


def _git(
    folder: Path, *args: str, stdin: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    import subprocess

    try:
        return subprocess.run(
            ["git", "-C", str(folder), *args], input=stdin, capture_output=True, check=False
        )
    except FileNotFoundError:
        raise ApismithError("git is not installed: FILE@REV needs it") from None


def _first_line(data: bytes) -> str:
    lines = data.decode("utf-8", "replace").strip().splitlines()
    return lines[0] if lines else "no message"


def commit_of(folder: Path, rev: str, label: str) -> str:
    """The commit ``rev`` names in the repository holding ``folder`` (exit 2 otherwise)."""
    if not folder.is_dir():
        raise ApismithError(f"no folder {folder.as_posix()}", file=label)
    if rev.startswith("-"):
        raise ApismithError(f"{rev!r} is not a git revision", file=label)
    top = _git(folder, "rev-parse", "--show-toplevel")
    if top.returncode != 0:
        message = f"{folder.as_posix()} is not in a git repository ({_first_line(top.stderr)})"
        raise ApismithError(message, file=label)
    found = _git(
        folder, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"
    )
    if found.returncode != 0:
        raise ApismithError(f"unknown git revision {rev!r}", file=label)
    return found.stdout.decode().strip()


def at_revision(
    path: Path, rev: str, into: Path, ref_root: Path | None = None
) -> tuple[Path, Path | None]:
    """The spec ``path`` as it was at ``rev``, written under ``into``: (its file there, the
    ref root to load it with: ``into`` when ``ref_root`` is given, else None, the file's
    folder). ``ref_root`` (a folder above the file) is mirrored as ``into``."""
    label = f"{path.as_posix()}@{rev}"
    base = ref_root if ref_root is not None else path.parent
    commit = commit_of(base, rev, label)
    try:
        relative = path.resolve().relative_to(base.resolve())
    except ValueError:
        raise ApismithError(
            f"the spec is outside its ref root {base.as_posix()}", file=label
        ) from None
    name = relative.as_posix()
    kind = _git(base, "cat-file", "-t", f"{commit}:./{name}")
    if kind.returncode != 0 or kind.stdout.strip() != b"blob":
        raise NotAtRevision(f"no such file at revision {rev}", file=label)
    shown = _git(base, "show", f"{commit}:./{name}")
    if shown.returncode != 0:
        raise ApismithError(f"git show failed: {_first_line(shown.stderr)}", file=label)
    target = into / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    if _EXTERNAL_REF.search(shown.stdout.decode("utf-8", "replace")):
        folder_files(base, commit, into, label)
    target.write_bytes(shown.stdout)
    return target, (into if ref_root is not None else None)


def folder_files(base: Path, commit: str, into: Path, label: str) -> None:
    """The JSON and YAML files under ``base`` at ``commit``, written under ``into`` (what
    a spec's ``$ref``s may read)."""
    listed = _git(base, "ls-tree", "-r", "-z", "--name-only", commit)
    if listed.returncode != 0:
        raise ApismithError(f"git ls-tree failed: {_first_line(listed.stderr)}", file=label)
    names = [
        n
        for n in listed.stdout.decode("utf-8", "surrogateescape").split("\0")
        if n.endswith(_SPEC_SUFFIXES) and "\n" not in n and ".." not in n.split("/")
    ]
    if len(names) > MAX_FILES:
        raise ApismithError(
            f"its folder has {len(names)} spec files at that revision (at most {MAX_FILES})",
            file=label,
        )
    request = "".join(f"{commit}:./{n}\n" for n in names).encode("utf-8", "surrogateescape")
    batch = _git(base, "cat-file", "--batch", stdin=request)
    if batch.returncode != 0:
        raise ApismithError(f"git cat-file failed: {_first_line(batch.stderr)}", file=label)
    data, offset = batch.stdout, 0
    for name in names:
        header_end = data.index(b"\n", offset)
        header = data[offset:header_end].split()
        offset = header_end + 1
        if len(header) != 3 or header[1] != b"blob":
            continue
        size = int(header[2])
        target = into / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data[offset : offset + size])
        offset += size + 1
