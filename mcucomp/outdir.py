"""Writing into the user's output directory: staged, checked, locked, all or nothing, owning only its own files.

A compile writes every file into a private staging directory first; `publish` then, holding an exclusive flock on
OUTDIR itself (a second compile into the same OUTDIR waits up to LOCK_WAIT_SECONDS for it, then fails):
1. checks every destination (a directory, link or other non-regular file named like an output → error, nothing moved);
2. refuses (unless force) to replace a file mcucomp did not write: one not listed in the previous compile's SHA-256 map
   (MANIFEST_KEY of OUTDIR's old report.json), or changed since; a report.json without that map, or whose own
   digest (the map's MANIFEST_FILE entry, taken over the file with that digest as SELF_DIGEST_PLACEHOLDER) no
   longer matches, is the user's too;
3. finds the files the previous compile wrote that this compile does not write and that still hold what mcucomp
   wrote (a file the user edited is kept);
4. moves those and every file about to be replaced into a backup directory inside OUTDIR, then moves the staged
   files in; if any move fails (or the process is interrupted), it undoes the moves, so OUTDIR is as before.
Files mcucomp did not write (not in the old manifest, or changed since) are never touched, unless force overwrites
those this compile writes.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import shutil
import stat
import tempfile
import time
from pathlib import Path

from .errors import OutputError

#: report.json key holding {file name: SHA-256} of the other files a compile wrote (ownership of OUTDIR's files).
MANIFEST_KEY = "file_sha256"
#: The file that carries the manifest.
MANIFEST_FILE = "report.json"
#: What MANIFEST_FILE's own entry in the manifest holds while its digest is taken (same length as a SHA-256 hex).
SELF_DIGEST_PLACEHOLDER = "0" * 64
#: How long a compile waits for another one publishing into the same OUTDIR.
LOCK_WAIT_SECONDS = 60.0
_STAGING_PREFIX = ".mcucomp-"


def _os_reason(exc: OSError) -> str:
    """The human part of an OSError (strerror, or the exception type)."""
    return exc.strerror or type(exc).__name__


def _cannot_write(out_dir: Path, exc: OSError) -> OutputError:
    """The error for an output directory that cannot be created or written."""
    hint = (" A path component is longer than the file system allows (usually 255 bytes): use a shorter name."
            if exc.errno == errno.ENAMETOOLONG else "")
    return OutputError(f"Cannot write to output directory '{out_dir}' ({_os_reason(exc)}).{hint} "
                       "Choose a writable directory with -o.")


def stage(out_dir: Path) -> Path:
    """Check that out_dir can be written; return a fresh staging directory inside it (beside it if it is new)."""
    out_dir = Path(os.path.abspath(out_dir))
    try:
        if out_dir.exists() and not out_dir.is_dir():
            raise OutputError(f"Output path '{out_dir}' exists and is not a directory: choose another -o.")
        blocker = next((p for p in out_dir.parents if p.exists() and not p.is_dir()), None)
        if blocker is not None:
            raise OutputError(f"Cannot create output directory '{out_dir}': '{blocker}' is a file, not a directory. "
                              "Choose another -o.")
        parent = out_dir if out_dir.is_dir() else out_dir.parent
        parent.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=_STAGING_PREFIX, dir=parent))
    except OSError as exc:
        raise _cannot_write(out_dir, exc) from None


def file_hashes(directory: Path) -> dict[str, str]:
    """SHA-256 (hex) of every regular file in directory, by name."""
    return {p.name: _sha256(p) for p in sorted(directory.iterdir()) if p.is_file()}


def _sha256(path: Path) -> str:
    """SHA-256 (hex) of a file's content."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@contextlib.contextmanager
def _locked(out_dir: Path):
    """Hold an exclusive flock on the directory out_dir; wait up to LOCK_WAIT_SECONDS for another holder."""
    fd = os.open(out_dir, os.O_RDONLY | os.O_DIRECTORY)
    try:
        deadline = time.monotonic() + LOCK_WAIT_SECONDS
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise OutputError(
                        f"Another mcucomp process has been writing into '{out_dir}' for over "
                        f"{LOCK_WAIT_SECONDS:.0f} s: wait for it to finish, or choose another -o.") from None
                time.sleep(0.02)
        yield
    finally:
        os.close(fd)  # releases the lock


def _kind(mode: int) -> str | None:
    """What a non-regular file is called in an error; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "not a regular file"


def _check_destinations(out_dir: Path, names: list[str]) -> None:
    """Every destination is absent or a regular file (never followed through a link)."""
    for name in names:
        try:
            mode = os.lstat(out_dir / name).st_mode
        except FileNotFoundError:
            continue
        kind = _kind(mode)
        if kind is not None:
            raise OutputError(f"'{out_dir / name}' is {kind}, but mcucomp writes a file of that name there: move or "
                              "rename it, or choose another -o. Nothing was written.")


def manifest_text(report: dict, hashes: dict[str, str]) -> str:
    """MANIFEST_FILE's text: report with MANIFEST_KEY holding hashes plus the file's own SHA-256 (taken over the text
    with SELF_DIGEST_PLACEHOLDER in its place), so a later compile can tell whether the user edited it."""
    report[MANIFEST_KEY] = {**hashes, MANIFEST_FILE: SELF_DIGEST_PLACEHOLDER}
    text = json.dumps(report, indent=1)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    report[MANIFEST_KEY][MANIFEST_FILE] = digest
    return text.replace(f'"{SELF_DIGEST_PLACEHOLDER}"', f'"{digest}"', 1)


def _read_manifest(out_dir: Path) -> tuple[dict | None, bytes]:
    """The manifest of out_dir's report.json (None when it has none) and the file's bytes."""
    try:
        data = (out_dir / MANIFEST_FILE).read_bytes()
        manifest = json.loads(data.decode("utf-8")).get(MANIFEST_KEY)
    except (OSError, ValueError, AttributeError):
        return None, b""
    return (manifest if isinstance(manifest, dict) else None), data


def _manifest_is_ours(manifest: dict | None, data: bytes) -> bool:
    """Whether a report.json with this manifest and content is as mcucomp wrote it (its own digest still matches;
    a manifest without that entry is taken at its word)."""
    if manifest is None:
        return False
    digest = manifest.get(MANIFEST_FILE)
    if digest is None:
        return True
    if not isinstance(digest, str) or len(digest) != len(SELF_DIGEST_PLACEHOLDER):
        return False
    text = data.replace(f'"{digest}"'.encode(), f'"{SELF_DIGEST_PLACEHOLDER}"'.encode(), 1)
    return hashlib.sha256(text).hexdigest() == digest


def _previous_files(out_dir: Path) -> dict[str, str]:
    """{name: SHA-256} of the files the previous compile into out_dir wrote, from its report.json (else empty)."""
    manifest, _ = _read_manifest(out_dir)
    if manifest is None:
        return {}
    return {name: digest for name, digest in manifest.items()
            if isinstance(name, str) and isinstance(digest, str) and name not in ("", ".", "..")
            and os.path.basename(name) == name and "\0" not in name and name != MANIFEST_FILE}


def _foreign_files(out_dir: Path, names: list[str]) -> list[str]:
    """The files among names that exist in out_dir but that mcucomp did not write there, or that changed since."""
    previous = _previous_files(out_dir)
    foreign = []
    for name in names:
        if not _lstat_mode(out_dir / name):
            continue
        if name == MANIFEST_FILE:
            ours = _manifest_is_ours(*_read_manifest(out_dir))
        else:
            ours = name in previous and _sha256(out_dir / name) == previous[name]
        if not ours:
            foreign.append(name)
    return foreign


def _refuse_foreign(out_dir: Path, foreign: list[str]) -> None:
    """Refuse to replace files mcucomp did not write (the error names them and says how to overwrite them)."""
    if not foreign:
        return
    shown = ", ".join(f"'{name}'" for name in foreign)
    raise OutputError(f"Output directory '{out_dir}' holds {len(foreign)} file(s) that this compile would replace but "
                      f"that mcucomp did not write (not listed with their SHA-256 in a report.json mcucomp wrote "
                      f"there, or changed since): {shown}. Nothing was written. Move them away, choose another -o "
                      "or --name, or pass --force to overwrite them.")


def _stale_files(out_dir: Path, written: set[str]) -> list[str]:
    """Files of the previous compile that this one does not write and that still hold what mcucomp wrote."""
    stale = []
    for name, digest in sorted(_previous_files(out_dir).items()):
        path = out_dir / name
        if name in written or not stat.S_ISREG(_lstat_mode(path)):
            continue
        if _sha256(path) == digest:
            stale.append(name)
    return stale


def _lstat_mode(path: Path) -> int:
    """st_mode of path without following links; 0 when it does not exist."""
    try:
        return os.lstat(path).st_mode
    except OSError:
        return 0


def _swap(staging: Path, out_dir: Path, names: list[str], stale: list[str]) -> None:
    """Move replaced and stale files aside, then the staged files in; undo every move if one fails."""
    backup = Path(tempfile.mkdtemp(prefix=_STAGING_PREFIX + "backup-", dir=out_dir))
    aside: list[str] = []
    placed: list[str] = []
    try:
        for name in [n for n in names if _lstat_mode(out_dir / n)] + stale:
            os.replace(out_dir / name, backup / name)
            aside.append(name)
        for name in names:
            os.replace(staging / name, out_dir / name)
            placed.append(name)
    except BaseException:
        for name in reversed(placed):
            os.unlink(out_dir / name)
        for name in reversed(aside):
            os.replace(backup / name, out_dir / name)
        backup.rmdir()  # empty again; if a restore failed, the old files stay recoverable in it
        raise
    shutil.rmtree(backup, ignore_errors=True)


def publish(staging: Path, out_dir: Path, force: bool = False) -> None:
    """Move every staged file into out_dir, all or nothing, under out_dir's lock (refusing to replace files mcucomp
    did not write unless force); remove the previous compile's files that this one does not write; then remove the
    staging directory."""
    out_dir = Path(os.path.abspath(out_dir))
    created = not out_dir.exists()
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        names = sorted(p.name for p in staging.iterdir())
        with _locked(out_dir):
            _check_destinations(out_dir, names)
            if not force:
                _refuse_foreign(out_dir, _foreign_files(out_dir, names))
            _swap(staging, out_dir, names, _stale_files(out_dir, set(names)))
        staging.rmdir()
    except OSError as exc:
        raise OutputError(f"Could not move the generated files into '{out_dir}' ({_os_reason(exc)}); its previous "
                          "content was restored. Check the directory's permissions and free space.") from None
    finally:
        if created:
            with contextlib.suppress(OSError):
                out_dir.rmdir()  # only succeeds when nothing was published into the new directory
