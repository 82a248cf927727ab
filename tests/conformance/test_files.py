"""Files the suite writes for a user (`dsh_conformance.run.files.write_whole`): whole or not at all,
never over what is not a regular file, through a symbolic link to its target."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest
from test_summary import implementation, write_report

from dsh_conformance.run.files import write_whole
from dsh_conformance.run.summary import main as summary


def _report(tmp_path: Path) -> str:
    return write_report(tmp_path / "r.json", implementation("a", {}))


def test_a_pipe_given_as_output_is_written_and_stays_a_pipe(tmp_path: Path) -> None:
    """``summary -o /dev/stdout`` (or a pipe) writes into it: replacing it as a regular file is
    replaced would, run as root on ``/dev/null``, replace the device."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    read: list[str] = []
    reader = threading.Thread(target=lambda: read.append(fifo.read_text(encoding="utf-8")))
    reader.start()
    try:
        status = summary([_report(tmp_path), "-o", str(fifo)])
    finally:
        if reader.is_alive():  # nothing opened it for writing: let the reader go
            with fifo.open("w", encoding="utf-8"):
                pass
        reader.join(10)
    assert status == 0
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert read and read[0].startswith("## DSH conformance")


def test_a_symbolic_link_stays_a_link_and_its_target_is_written(tmp_path: Path) -> None:
    target, link = tmp_path / "target.md", tmp_path / "link.md"
    target.write_text("old", encoding="utf-8")
    link.symlink_to(target)
    assert summary([_report(tmp_path), "-o", str(link)]) == 0
    assert link.is_symlink()
    assert target.read_text(encoding="utf-8").startswith("## DSH conformance")


def test_a_failed_write_leaves_the_file_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "report.json"
    path.write_text("last run's report", encoding="utf-8")

    def full(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    with pytest.raises(OSError, match="No space left"):
        write_whole(path, "this run's report")
    assert path.read_text(encoding="utf-8") == "last run's report"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]  # no temporary left
