#!/usr/bin/env python3
"""No include climbs back up (issue 28): the folders form floors, each including only its
own and those strictly below it, and within a folder the detail/ floor sits below the
public one.

    platform < models < solvers < adjoint < gpu, fit < io/config, io/outputs
             < io/assembly, io/vtk < apps                        (X/detail < X)

Folders on one floor include nothing of each other. A header under X/detail/ includes
X/detail/ headers and lower folders only.

    python3 tests/lint/include_layers.py <repo-source-dir>
"""
import pathlib, re, sys

from known_debts import report

ORDER = {"platform": 0, "models": 1, "solvers": 2, "adjoint": 3, "gpu": 4, "fit": 4,
         "io/config": 5, "io/outputs": 5, "io/assembly": 6, "io/vtk": 6, "apps": 7}
KNOWN = set()
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder_of(parts):
    """The floor's folder of a path: its first part, or its first two under io/."""
    for length in (2, 1):
        name = "/".join(parts[:length])
        if len(parts) > length and name in ORDER:
            return name
    return None


def climbs(root):
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        folder = folder_of(rel.parts)
        if path.suffix not in (".hpp", ".cpp", ".cu"):
            continue
        if folder is None:
            if rel.parts[0] == "io":  # its floors are its folders
                yield str(rel), "io/ keeps its files in config/, outputs/, assembly/ or vtk/"
            continue
        in_detail = "detail" in rel.parts[len(folder.split("/")):-1]
        for target in INCLUDE.findall(path.read_text(errors="replace")):
            parts = pathlib.PurePosixPath(target).parts
            to = folder_of(parts)
            if to is None:
                continue  # a system header, or tests/
            if to != folder and ORDER[to] >= ORDER[folder]:
                yield f"{rel} -> {target}", f"{to}/ is not below {folder}/"
            elif (to == folder and in_detail and path.suffix == ".hpp" and
                  "detail" not in parts[len(folder.split("/")):-1]):
                yield f"{rel} -> {target}", f"{folder}/detail/ includes {folder}/"


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    return report("no include climbs back up", dict(climbs(root)), KNOWN, __file__)


if __name__ == "__main__":
    sys.exit(main())
