"""Reading the named arrays of an .npz file that an option (--data, --calib) names, with one-paragraph errors."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import numpy as np

from .errors import OptionError


def read_npz(path, option: str, what_to_give: str, how_to_write: str) -> dict[str, np.ndarray]:
    """The arrays of the .npz file at path, or an OptionError naming `option`: `what_to_give` follows 'give ' when
    the path is missing or not a file, `how_to_write` ends the message when the file cannot be read."""
    path = Path(os.fspath(path))
    if not path.is_file():
        what = "does not exist" if not path.exists() else "is not a regular file"
        raise OptionError(f"{option} '{path}' {what}: give {what_to_give}.")
    try:
        loaded = np.load(path, allow_pickle=False)
        if not isinstance(loaded, np.lib.npyio.NpzFile):
            raise ValueError("it is a single .npy array, not an archive of named arrays")
        with loaded as archive:
            return {key: archive[key] for key in archive.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        reason = "not a zip archive of numeric .npy arrays" if "pickled" in str(exc) else str(exc)
        raise OptionError(f"{option} '{path}' cannot be read as an .npz archive ({reason}). {how_to_write}") from None
