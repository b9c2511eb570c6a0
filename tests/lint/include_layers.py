#!/usr/bin/env python3
"""No include climbs back up (issue 28): the folders form floors, each including only its
own and those below it, and within a folder the detail/ floor sits below the public one.

    models < solvers < adjoint < gpu, fit < io < apps       (X/detail < X)

A header under X/detail/ includes X/detail/ headers and lower folders only; any file
includes nothing from a folder above its own. The climbs there today, each a debt of the
io/ split, are listed by name (known_debts.py).

    python3 tests/lint/include_layers.py <repo-source-dir>
"""
import pathlib, re, sys

from known_debts import report

ORDER = {"models": 0, "solvers": 1, "adjoint": 2, "gpu": 3, "fit": 3, "io": 4, "apps": 5}
KNOWN = {
    "models/detail/constant_arithmetic.hpp -> models/dual.hpp",
    "adjoint/detail/revolve_generator.hpp -> adjoint/checkpoint_schedule.hpp",
    "adjoint/detail/schedule_backend.hpp -> adjoint/checkpoint_schedule.hpp",
    "adjoint/detail/schedule_backend.hpp -> adjoint/checkpoint_store.hpp",
    "adjoint/detail/adjoint_sweep.hpp -> adjoint/gradient_problem.hpp",
    "adjoint/detail/adjoint_sweep.hpp -> adjoint/stiffness.hpp",
    "io/detail/config_sections.hpp -> io/simulate_config.hpp",
    "io/detail/grid_sections.hpp -> io/simulate_config.hpp",
    "io/detail/ensemble_section.hpp -> io/ensemble_config.hpp",
    "io/detail/checkpointing_section.hpp -> io/checkpointing_config.hpp",
    "io/detail/toml_reader.hpp -> io/config_error.hpp",
    "io/detail/model_sections.hpp -> io/simulate_config.hpp",
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def climbs(root):
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if path.suffix not in (".hpp", ".cpp", ".cu") or rel.parts[0] not in ORDER:
            continue
        folder, in_detail = rel.parts[0], "detail" in rel.parts[1:-1]
        for target in INCLUDE.findall(path.read_text(errors="replace")):
            parts = pathlib.PurePosixPath(target).parts
            if len(parts) < 2 or parts[0] not in ORDER:
                continue  # a system header, or tests/
            if ORDER[parts[0]] > ORDER[folder]:
                yield f"{rel} -> {target}", f"{parts[0]}/ is above {folder}/"
            elif (parts[0] == folder and in_detail and path.suffix == ".hpp" and
                  "detail" not in parts[1:-1]):
                yield f"{rel} -> {target}", f"{folder}/detail/ includes {folder}/"


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    return report("no include climbs back up", dict(climbs(root)), KNOWN, __file__)


if __name__ == "__main__":
    sys.exit(main())
