"""Writing what a command produces: whole, or not at all, and never over what is not a file.

Every file the suite writes for a user (a JSON report, a baseline, a summary page, a case fuzz
found) goes through `write_whole`: a reader never sees half of it, and a failed write leaves the
file as it was (a full disk does not cost the user last run's report). A path that exists but is
not a regular file (``/dev/stdout``, ``/dev/null``, a pipe) is written in place: replacing it, as
a regular file is replaced, would replace the device itself, and the suite may run as root. A
symbolic link is followed, so the link stays and its target is written.
"""

from __future__ import annotations

import os
from pathlib import Path


def write_whole(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` (UTF-8) as described above; an `OSError` if it cannot be."""
    target = path.resolve()
    if target.exists() and not target.is_file():
        target.write_text(text, encoding="utf-8")
        return
    temporary = target.with_name(f".{target.name}.{os.getpid()}.part")
    try:
        with temporary.open("x", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temporary, target)
    except BaseException:  # an OSError, or Ctrl-C while writing
        temporary.unlink(missing_ok=True)
        raise
