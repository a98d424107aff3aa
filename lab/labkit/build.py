"""Build the lab's Maven project when it changed, and name the classpaths of its modules.

`mvn -q package` runs only when a pom or a file under src/ differs from the last successful build (a stamp of
their contents is kept in the build output), so starting a broker or recording a scenario costs nothing extra
once built. Maven keeps its downloads in ~/.m2, so a rebuild after a change fetches nothing. Processes that
need the lab at once (test workers running side by side) take turns through a lock file: one builds, the
others find the build current when their turn comes.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

LAB = Path(__file__).resolve().parents[1]
MODULES = ("kafka", "streams-legacy")
STAMP = LAB / "kafka" / "target" / "lab-build.stamp"
LOCK = LAB / ".lab-build.lock"


class BuildError(RuntimeError):
    """The Maven build failed or Maven is missing; the message says which and how to see why."""


def _inputs() -> list[Path]:
    files = [LAB / "pom.xml", *(LAB / module / "pom.xml" for module in MODULES)]
    files += sorted(path for path in (LAB / "src").rglob("*") if path.is_file())
    return files


def source_digest() -> str:
    """A digest of everything the build reads: the poms and the sources (names and contents)."""
    digest = hashlib.sha256()
    for path in _inputs():
        digest.update(str(path.relative_to(LAB)).encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def is_current() -> bool:
    return STAMP.exists() and STAMP.read_text().strip() == source_digest() and all(
        (LAB / module / "target" / "lib").is_dir() for module in MODULES
    )


def ensure_built(*, quiet: bool = True) -> None:
    """Run `mvn -q package` unless the last build is current; raise BuildError when it fails."""
    if is_current():
        return
    with LOCK.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also if this process dies
        if not is_current():  # another process may have built it while this one waited
            _build(quiet)


def _build(quiet: bool) -> None:
    mvn = shutil.which("mvn")
    if mvn is None:
        raise BuildError("Maven (mvn) is not on PATH: the lab builds Kafka's jars with it (see docs/lab.md)")
    command = [mvn, "-q", "-B", "-f", str(LAB / "pom.xml"), "package"]
    if not quiet:
        print("lab: building the Maven project (Kafka's jars and the lab's programs) ...", file=sys.stderr)
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-40:])
        raise BuildError(f"`{' '.join(command)}` failed (exit {done.returncode}):\n{tail}")
    STAMP.parent.mkdir(parents=True, exist_ok=True)
    STAMP.write_text(source_digest() + "\n")


def classpath(module: str = "kafka") -> str:
    """The runtime classpath of a module: its classes, then every jar Maven copied into its target/lib."""
    target = LAB / module / "target"
    return os.pathsep.join([str(target / "classes"), str(target / "lib" / "*")])


def java() -> str:
    """The java launcher: $JAVA_HOME/bin/java when set, else the one on PATH."""
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").exists():
        return str(Path(home) / "bin" / "java")
    found = shutil.which("java")
    if found is None:
        raise BuildError("java is not on PATH: the lab needs Java 17")
    return found


def log4j_config(name: str) -> str:
    return str(LAB / "config" / name)
