#!/usr/bin/env python3
"""Hostile inputs (issue 14): each case must exit with its documented code (0 ok, 1 run
failed, 2 bad input), name the file, line and key in stderr, echo no control characters or
invalid UTF-8, and leave earlier outputs byte-identical with no temporaries beside them.

    python3 tests/corpus/hostile_inputs.py <backsweep> <repo-source-dir> <scratch-dir>
"""
import hashlib, json, os, shlex, shutil, subprocess, sys, time
from dataclasses import dataclass, field

# A small ODE; the line numbers matter: the cases name them.
BASE = """\
[model]
states = ["x", "y"]
parameters = ["a", "b"]
[model.equations]
x = "-a*x + y"
y = "-b*y"
[parameters]
a = 1.0
b = 0.5
[initial]
x = 1.0
y = 2.0
[time]
end = 1.0
output = [0.5, 1.0]
[solver]
method = "rk4"
step = 0.01
[objective]
terminal = "x^2 + y"
[gradient]
mode = "adjoint"
[output]
dir = "out"
"""  # 1 model, 5 x, 8 a, 11 x(0), 14 end, 15 output, 17 method, 18 step, 20 terminal, 25.. appended

FIT = BASE.split("[objective]")[0].replace('output = [0.5, 1.0]\n', "") + """\
[[estimate]]
name = "a"
lower = 0.1
upper = 10.0
[[observables]]
name = "obs_x"
formula = "x"
[data]
measurements = "data.csv"
[optimizer]
starts = 1
max_iterations = 20
[output]
dir = "out"
"""  # 17 step, 19 estimate.name, 20 lower, 21 upper, 24 formula, 26 measurements, 28 starts, 29 max_iterations

EVENT = '[[events]]\nname = "kick"\nat = 0.5\nset = { x = "x + 1" }\n'

DATA = "observable,time,value,sigma\nobs_x,0.5,1.2,0.1\nobs_x,1.0,1.1,0.1\n"

GRID = """\
[grid]
shape = [16]
extent = [1.0]
boundary = "periodic"
[model]
fields = ["u"]
parameters = ["D"]
[model.equations]
u = "D*lap(u)"
[parameters]
D = 0.01
[initial]
u = "sin(2*pi*x)"
[time]
end = 0.1
[solver]
method = "rk4"
step = 0.01
[objective]
terminal = "u[3]"
[output]
dir = "out"
"""  # 2 shape, 3 extent, 4 boundary, 9 u equation, 20 terminal

DIR, FIFO = object(), object()  # special file contents: a directory, a named pipe

# A PEtab problem: the suite's case v1.0.0/0001, its files as text.
PETAB_CASE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "petab", "test-suite", "v1.0.0", "sbml", "0001")
PETAB = {name.lstrip("_").replace("0001", "p"): open(os.path.join(PETAB_CASE, name)).read()
         for name in ("_0001.yaml", "_conditions.tsv", "_measurements.tsv", "_observables.tsv", "_parameters.tsv",
                      "_model.xml")}
for table in ("conditions.tsv", "measurements.tsv", "observables.tsv", "parameters.tsv", "model.xml"):
    PETAB["p.yaml"] = PETAB["p.yaml"].replace("_" + table, table)  # its files as renamed here
ALGEBRAIC = '<listOfRules><algebraicRule><math xmlns="http://www.w3.org/1998/Math/MathML"><apply><minus/><ci> A </ci><ci> B </ci></apply></math></algebraicRule></listOfRules>'


def petab(**changes):  # the PEtab problem with some of its files replaced
    files = dict(PETAB)
    for name, edit in changes.items():
        files[name.replace("_", ".")] = edit(files[name.replace("_", ".")])
    return files


def with_priors(table, prior, parameters):  # the first parameter's objective prior set, the others none
    lines = table.rstrip("\n").split("\n")
    lines[0] += "\tobjectivePriorType\tobjectivePriorParameters"
    lines[1] += f"\t{prior}\t{parameters}"
    lines[2:] = [line + "\t\t" for line in lines[2:]]
    return "\n".join(lines) + "\n"


def sub(text, old, new):
    assert old in text, old
    return text.replace(old, new, 1)


def data(text):  # a fit config with its measurements file
    return {"cfg.toml": FIT, "data.csv": text}


@dataclass
class Case:
    name: str
    cmd: object  # str (shlex-split) or list of str/bytes
    code: int
    want: tuple = ()  # fragments stderr must contain
    files: dict = field(default_factory=dict)
    out: bool = True  # append --output-dir out
    json: bool = False  # stdout must be {"error": {...}}
    absent: tuple = ()  # fragments stderr must not contain
    stdout: str = ""  # a file stdout goes to (e.g. /dev/full), else captured
    writes: bool = False  # a failure after the outputs were committed: they may change


def C(name, cmd, code, *want, cfg=None, files=None, out=True, json=False, absent=(), stdout="", writes=False):
    files = dict(files or {})
    if cfg is not None:
        files["cfg.toml"] = cfg
    return Case(name, cmd, code, want, files, out, json, absent, stdout, writes)


S, G, F = "simulate cfg.toml", "gradient cfg.toml", "fit cfg.toml"
CP = BASE + "[checkpointing]\n"  # appended keys are on line 26
NAN_RUN = sub(sub(BASE, 'x = "-a*x + y"', 'x = "a*x^2"'), "end = 1.0", "end = 2.0")

CASES = [
    # TOML syntax and structure: the parser's errors carry file and line.
    C("toml_unclosed_table", S, 2, "cfg.toml:16:", cfg=sub(BASE, "[solver]", "[solver")),
    C("toml_duplicate_key", S, 2, "cfg.toml:19:", "step", cfg=sub(BASE, "step = 0.01", "step = 0.01\nstep = 0.02")),
    C("toml_unclosed_string", S, 2, "cfg.toml:17:", cfg=sub(BASE, 'method = "rk4"', 'method = "rk4')),
    C("unknown_section_hint", S, 2, "cfg.toml:16:", "'solvr'", "solver", cfg=sub(BASE, "[solver]", "[solvr]")),
    C("unknown_key_hint", S, 2, "cfg.toml:17:", "'solver.methd'", "method", cfg=sub(BASE, "method =", "methd =")),
    C("unknown_top_level_key", S, 2, "cfg.toml:1:", "'speed'", cfg="speed = 3\n" + BASE),
    # Wrong types.
    C("type_string_for_number", S, 2, "cfg.toml:18:", "'solver.step'", cfg=sub(BASE, "step = 0.01", 'step = "fast"')),
    C("type_number_for_string", S, 2, "cfg.toml:17:", "'solver.method'", cfg=sub(BASE, 'method = "rk4"', "method = 4")),
    C("type_string_for_array", S, 2, "cfg.toml:2:", "'model.states'", cfg=sub(BASE, 'states = ["x", "y"]', 'states = "x"')),
    C("type_bool_for_number", S, 2, "cfg.toml:14:", "'time.end'", cfg=sub(BASE, "end = 1.0", "end = true")),
    # Out-of-range values.
    C("negative_step", S, 2, "cfg.toml:18:", "'solver.step'", cfg=sub(BASE, "step = 0.01", "step = -0.01")),
    C("zero_rtol", S, 2, "cfg.toml:18:", "'solver.rtol'", cfg=sub(BASE, 'method = "rk4"\nstep = 0.01', 'method = "dopri5"\nrtol = 0.0')),
    C("negative_atol", S, 2, "cfg.toml:18:", "'solver.atol'", cfg=sub(BASE, 'method = "rk4"\nstep = 0.01', 'method = "dopri5"\natol = -1e-9')),
    C("end_before_start", S, 2, "cfg.toml:14:", "'time.end'", cfg=sub(BASE, "end = 1.0", "end = -1.0")),
    C("output_times_duplicate", S, 2, "cfg.toml:15:", "'time.output'", cfg=sub(BASE, "[0.5, 1.0]", "[0.5, 0.5, 1.0]")),
    C("output_time_beyond_end", S, 2, "cfg.toml:15:", "'time.output'", cfg=sub(BASE, "[0.5, 1.0]", "[0.5, 5.0]")),
    C("max_steps_negative", S, 2, "cfg.toml:19:", "'solver.max_steps'", cfg=sub(BASE, "step = 0.01", "step = 0.01\nmax_steps = -5")),
    # Non-finite literals, in TOML and inside expressions.
    C("literal_1e400", S, 2, "cfg.toml:8:", "parameters.a", cfg=sub(BASE, "a = 1.0", "a = 1e400")),
    C("literal_nan", S, 2, "cfg.toml:8:", "'parameters.a'", cfg=sub(BASE, "a = 1.0", "a = nan")),
    C("literal_inf", S, 2, "cfg.toml:9:", "'parameters.b'", cfg=sub(BASE, "b = 0.5", "b = inf")),
    C("literal_minus_inf_initial", S, 2, "cfg.toml:11:", "'initial.x'", cfg=sub(BASE, "x = 1.0", "x = -inf")),
    C("literal_underflow_step", S, 2, "cfg.toml:18:", "solver.step", cfg=sub(BASE, "step = 0.01", "step = 1e-400")),
    C("expression_1e400", S, 2, "cfg.toml:5:", "'model.equations.x'", "1e400", cfg=sub(BASE, '"-a*x + y"', '"-a*x*1e400 + y"')),
    C("initial_expression_nan", S, 2, "cfg.toml:11:", "'initial.x'", cfg=sub(BASE, "x = 1.0", 'x = "nan"')),
    # Expressions: hints for ** and unquoted text; unknown names.
    C("power_star_star", S, 2, "cfg.toml:5:", "'model.equations.x'", "^", cfg=sub(BASE, '"-a*x + y"', '"-a*x**2 + y"')),
    C("unquoted_expression", S, 2, "cfg.toml:5:", "quote", cfg=sub(BASE, '"-a*x + y"', "-a*x + y")),
    C("unknown_function", S, 2, "cfg.toml:5:", "'model.equations.x'", "foo", cfg=sub(BASE, '"-a*x + y"', '"-a*foo(x) + y"')),
    C("unknown_variable", S, 2, "cfg.toml:5:", "'model.equations.x'", "'w'", cfg=sub(BASE, '"-a*x + y"', '"-a*w + y"')),
    C("unbalanced_parenthesis", S, 2, "cfg.toml:5:", "'model.equations.x'", cfg=sub(BASE, '"-a*x + y"', '"-a*(x + y"')),
    C("empty_expression", G, 2, "cfg.toml:20:", "'objective.terminal'", cfg=sub(BASE, '"x^2 + y"', '""')),
    # Config files that are not config files.
    C("empty_config", S, 2, "cfg.toml", "model", cfg=""),
    C("comments_only_config", S, 2, "cfg.toml", "model", cfg="# nothing here\n\n"),
    C("directory_as_config", "simulate adir", 2, "adir", "is a directory", files={"adir": DIR}),
    C("missing_config", "simulate absent.toml", 2, "absent.toml"),
    C("fifo_as_config", "simulate pipe.toml", 2, "pipe.toml", files={"pipe.toml": FIFO}),
    # Raw bytes: NUL, ANSI escapes and invalid UTF-8 must be refused without being echoed.
    C("nul_in_string", S, 2, "cfg.toml:5:", cfg=sub(BASE, '"-a*x + y"', '"-a*x\0 + y"').encode()),
    C("nul_in_key", S, 2, "cfg.toml:18:", cfg=sub(BASE, "step = 0.01", "st\0ep = 0.01").encode()),
    C("ansi_in_key", S, 2, "cfg.toml:18:", cfg=sub(BASE, "step = 0.01", "\x1b[31mstep = 0.01")),
    C("ansi_raw_in_string", S, 2, "cfg.toml:17:", cfg=sub(BASE, '"rk4"', '"\x1b[31mrk4"')),
    C("ansi_escaped_in_string", S, 2, "cfg.toml:17:", "'solver.method'", cfg=sub(BASE, '"rk4"', '"\\u001b[31mrk4"')),
    C("ansi_in_section", S, 2, "cfg.toml:16:", cfg=sub(BASE, "[solver]", '["sol\\u001bver"]')),
    C("ansi_escaped_in_expression", S, 2, "cfg.toml:5:", "'model.equations.x'", cfg=sub(BASE, '"-a*x + y"', '"-a*x\\u001b[2J + y"')),
    C("invalid_utf8_in_key", S, 2, "cfg.toml:18:", cfg=sub(BASE, "step = 0.01", "st\udcffep = 0.01").encode("utf-8", "surrogateescape")),
    C("invalid_utf8_in_string", S, 2, "cfg.toml:17:", cfg=sub(BASE, '"rk4"', '"rk\udcff4"').encode("utf-8", "surrogateescape")),
    C("invalid_utf8_in_comment", S, 2, "cfg.toml:1:", cfg=("# caf\udce9\n" + BASE).encode("utf-8", "surrogateescape")),
    C("overlong_utf8_in_string", S, 2, "cfg.toml:17:", cfg=sub(BASE, '"rk4"', '"rk\udcc0\udcaf4"').encode("utf-8", "surrogateescape")),
    # Accepted: a UTF-8 byte order mark and CRLF line ends.
    C("bom_config", S, 0, cfg=b"\xef\xbb\xbf" + BASE.encode()),
    C("crlf_config", S, 0, cfg=BASE.replace("\n", "\r\n")),
    # [checkpointing]: memory strings, slots, and a store_all that cannot fit.
    C("memory_1B", G, 2, "cfg.toml:26:", "'checkpointing.memory'", cfg=CP + 'memory = "1B"\n'),
    C("memory_words", G, 2, "cfg.toml:26:", "'checkpointing.memory'", cfg=CP + 'memory = "lots"\n'),
    C("memory_negative", G, 2, "cfg.toml:26:", "'checkpointing.memory'", cfg=CP + 'memory = "-5MiB"\n'),
    C("memory_overflow", G, 2, "cfg.toml:26:", "'checkpointing.memory'", cfg=CP + 'memory = "99999999999999999999999GiB"\n'),
    C("memory_huge_exponent", G, 2, "cfg.toml:26:", "'checkpointing.memory'", cfg=CP + 'memory = "1e400B"\n'),
    C("memory_number", G, 2, "cfg.toml:26:", "'checkpointing.memory'", cfg=CP + "memory = 64\n"),
    C("slots_zero", G, 2, "cfg.toml:26:", "'checkpointing.slots'", cfg=CP + "slots = 0\n"),
    C("slots_negative", G, 2, "cfg.toml:26:", "'checkpointing.slots'", cfg=CP + "slots = -3\n"),
    C("storage_float16", G, 2, "cfg.toml:26:", "'checkpointing.storage'", cfg=CP + 'storage = "float16"\n'),
    C("disk_1B", G, 2, "cfg.toml:26:", "'checkpointing.disk'", cfg=CP + 'disk = "1B"\n'),
    C("store_all_1e11_steps", G, 2, "cfg.toml:25:", "'checkpointing.schedule'", "store_all", "bytes",
      cfg=sub(sub(sub(BASE, "end = 1.0", "end = 1e9"), "step = 0.01", "step = 0.01\nmax_steps = 1_000_000_000_000"),
              "[output]", '[checkpointing]\nschedule = "store_all"\n[output]')),
    # No budget: auto keeps every step, and is refused at the key that would bound it.
    C("store_all_auto_1e11_steps", G, 2, "cfg.toml:", "'checkpointing.memory'", "store_all", "bytes",
      cfg=sub(sub(BASE, "end = 1.0", "end = 1e9"), "step = 0.01", "step = 0.01\nmax_steps = 1_000_000_000_000")),
    # Every one of 10^11 steps kept by simulate: terabytes, refused before the run.
    C("simulate_every_step_too_big", S, 2, "cfg.toml:17:", "'solver.step'", "output_step",
      cfg=sub(sub(sub(BASE, "end = 1.0", "end = 1e9"), "output = [0.5, 1.0]\n", ""), "step = 0.01",
              "step = 0.01\nmax_steps = 1_000_000_000_000")),
    # 10^8 steps of 256 points kept (a stable step): about 800 GB, refused before anything is allocated.
    C("store_all_1e8_steps", G, 2, "cfg.toml:25:", "'checkpointing.schedule'", "store_all", "bytes", "memory",
      cfg=sub(sub(sub(sub(GRID, "[16]", "[256]"), "end = 0.1", "end = 5e4"), "step = 0.01", "step = 0.0005\nmax_steps = 200_000_000"),
              "[output]", '[gradient]\nmode = "adjoint"\n[checkpointing]\nschedule = "store_all"\n[output]')),
    # Measurements: not a file, unreadable rows, odd bytes; a BOM and replicates are fine.
    C("measurements_directory", F, 2, "cfg.toml:26:", "'data.measurements'", "directory", files={"cfg.toml": FIT, "data.csv": DIR}),
    C("measurements_fifo", F, 2, "data.csv", "regular file", files={"cfg.toml": FIT, "data.csv": FIFO}),
    C("measurements_missing", F, 2, "cfg.toml:26:", "'data.measurements'", files={"cfg.toml": FIT}),
    C("csv_too_few_columns", F, 2, "data.csv:3:", files=data(DATA.replace("obs_x,1.0,1.1,0.1", "obs_x,1.0,1.1"))),
    C("csv_too_many_columns", F, 2, "data.csv:2:", files=data(DATA.replace("obs_x,0.5,1.2,0.1", "obs_x,0.5,1.2,0.1,7"))),
    C("csv_not_a_number", F, 2, "data.csv:2:", "value", files=data(DATA.replace("1.2", "abc"))),
    C("csv_nan_value", F, 2, "data.csv:3:", "value", files=data(DATA.replace("1.1", "NaN"))),
    C("csv_inf_sigma", F, 2, "data.csv:2:", "sigma", files=data(DATA.replace("1.2,0.1", "1.2,inf"))),
    C("csv_time_decreases", F, 2, "data.csv:3:", "time", files=data(DATA.replace("obs_x,1.0", "obs_x,0.25"))),
    C("csv_nul_byte", F, 2, "data.csv:2:", files=data(DATA.replace("1.2", "1\0.2"))),
    C("csv_ansi_observable", F, 2, "data.csv:2:", files=data(DATA.replace("obs_x,0.5", "\x1b[31mobs_x,0.5"))),
    C("csv_invalid_utf8_observable", F, 2, "data.csv:2:", "observable",
      files=data(DATA.replace("obs_x,0.5", "obs_\udcffx,0.5").encode("utf-8", "surrogateescape"))),
    C("csv_empty", F, 2, "data.csv", files=data("")),
    C("csv_duplicate_times", F, 0, files=data(DATA + "obs_x,1.0,1.0,0.1\n")),
    C("csv_bom", F, 0, files=data(b"\xef\xbb\xbf" + DATA.encode())),
    # Fit config.
    C("estimate_unknown_parameter", F, 2, "cfg.toml:19:", "'estimate.name'", files=data(DATA) | {"cfg.toml": sub(FIT, 'name = "a"', 'name = "zeta"')}),
    C("estimate_lower_above_upper", F, 2, "cfg.toml:2", "estimate.", files=data(DATA) | {"cfg.toml": sub(FIT, "lower = 0.1", "lower = 20.0")}),
    C("optimizer_starts_zero", F, 2, "cfg.toml:28:", "'optimizer.starts'", files=data(DATA) | {"cfg.toml": sub(FIT, "starts = 1", "starts = 0")}),
    C("optimizer_iterations_negative", F, 2, "cfg.toml:29:", "'optimizer.max_iterations'", files=data(DATA) | {"cfg.toml": sub(FIT, "max_iterations = 20", "max_iterations = -1")}),
    C("observable_unknown_name", F, 2, "cfg.toml:24:", "'observables.formula'", files=data(DATA) | {"cfg.toml": sub(FIT, 'formula = "x"', 'formula = "q"')}),
    # --set and --output-dir.
    C("set_unknown_key", S + " --set solver.stepp=0.1", 2, "--set solver.stepp=0.1", "'solver.stepp'", cfg=BASE),
    C("set_wrong_type", S + " --set parameters.a='\"fast\"'", 2, "--set parameters.a=", "'parameters.a'", cfg=BASE),
    C("set_bad_value", S + " --set solver.step=-1", 2, "--set solver.step=-1", "'solver.step'", cfg=BASE),
    C("set_not_toml", S + " --set solver.step=abc", 2, "--set solver.step=abc", "'solver.step'", cfg=BASE),
    C("set_1e400", S + " --set parameters.a=1e400", 2, "--set parameters.a=1e400", "parameters.a", cfg=BASE),
    C("set_no_equals", S + " --set solver", 2, "--set solver", cfg=BASE),
    C("set_ansi_value", ["simulate", "cfg.toml", "--set", "solver.method=\x1b[31mrk4"], 2, "'solver.method'", cfg=BASE),
    C("set_invalid_utf8", ["simulate", "cfg.toml", "--set", b"solver.method=rk\xff4"], 2, "'solver.method'", cfg=BASE),
    # A new key's value is taken as a string: one with a control character no TOML string holds.
    C("set_new_key_control", ["simulate", "cfg.toml", "--set", "output.note=a\x01b"], 2, "'output.note'", cfg=BASE),
    C("output_dir_is_file", S + " --output-dir afile", 2, "afile", cfg=BASE, files={"afile": "precious\n"}, out=False),
    C("output_dir_short_is_file", S + " -o afile", 2, "afile", cfg=BASE, files={"afile": "precious\n"}, out=False),
    # Accepted: a folder named with a trailing slash or dot, and the working directory itself.
    C("output_dir_trailing_slash", S + " -o fresh/", 0, cfg=BASE, out=False),
    C("output_dir_dot_suffix", S + " -o fresh/.", 0, cfg=BASE, out=False),
    C("output_dir_working_dir", S + " -o .", 0, cfg=BASE, out=False),
    C("output_dir_config_is_file", S, 2, "cfg.toml:24:", "'output.dir'", "afile", cfg=sub(BASE, 'dir = "out"', 'dir = "afile"'), files={"afile": "precious\n"}, out=False),
    # The command line itself.
    C("mistyped_command", "simulat cfg.toml", 2, "unknown command 'simulat'", "simulate", cfg=BASE, out=False),
    C("unknown_option", S + " --frobnicate", 2, "--frobnicate", cfg=BASE),
    C("missing_config_argument", "simulate", 2, "config"),
    C("set_missing_argument", S + " --set", 2, "--set", cfg=BASE, out=False),
    C("no_command", "", 2, out=False),
    C("plan_slots_negative", "plan --steps 10 --slots -2", 2, "--slots", out=False),
    C("plan_steps_negative", "plan --steps -5 --slots 3", 2, "--steps", out=False),
    C("plan_steps_float", "plan --steps 1e3 --slots 3", 2, "--steps", out=False),
    C("plan_steps_overflow", "plan --steps 99999999999999999999999 --slots 3", 2, "--steps", out=False),
    C("plan_slots_2_31", "plan --steps 10 --slots 2147483648", 0, out=False),  # more slots than steps: fine
    C("plan_slots_2_33", "plan --steps 10 --slots 8589934592", 2, "--slots", out=False),
    C("plan_steps_2_31_one_slot", "plan --steps 2147483648 --slots 1", 2, "slots", out=False),
    # Grids and fields.
    C("grid_unknown_operator", G, 2, "cfg.toml:9:", "'model.equations.u'", "lapp", cfg=sub(GRID, "lap(u)", "lapp(u)")),
    C("grid_wrong_arity", G, 2, "cfg.toml:9:", "'model.equations.u'", cfg=sub(GRID, "lap(u)", "lap(u, u)")),
    C("grid_missing_axis", G, 2, "cfg.toml:9:", "'model.equations.u'", cfg=sub(GRID, "lap(u)", "dy(u)")),
    C("grid_index_outside", G, 2, "cfg.toml:20:", "'objective.terminal'", cfg=sub(GRID, "u[3]", "u[99]")),
    C("grid_index_count", G, 2, "cfg.toml:20:", "'objective.terminal'", cfg=sub(GRID, "u[3]", "u[3, 4]")),
    C("grid_shape_zero", G, 2, "cfg.toml:2:", "'grid.shape'", cfg=sub(GRID, "[16]", "[0]")),
    C("grid_boundary_unknown", G, 2, "cfg.toml:4:", "'grid.boundary'", cfg=sub(GRID, '"periodic"', '"sticky"')),
    C("grid_extent_negative", G, 2, "cfg.toml:3:", "'grid.extent'", cfg=sub(GRID, "[1.0]", "[-1.0]")),
    # Runs that fail: exit 1 naming step, time and state; earlier outputs untouched.
    C("nan_simulate", S, 1, "non-finite", "step", "t = ", "'x'", cfg=NAN_RUN),
    C("nan_gradient", G, 1, "non-finite", "step", "t = ", "'x'", cfg=NAN_RUN),
    C("max_steps_reached", S, 1, "max_steps", cfg=sub(BASE, "step = 0.01", "step = 0.01\nmax_steps = 5")),
    # --json: a failure is one object {"error": {...}} on stdout.
    C("json_bad_config", S + " --json", 2, "cfg.toml:18:", "'solver.step'", cfg=sub(BASE, "step = 0.01", "step = -1.0"), json=True),
    C("json_missing_config", "gradient absent.toml --json", 2, "absent.toml", json=True),
    C("json_nan_run", S + " --json", 1, "non-finite", cfg=NAN_RUN, json=True),
    # lyapunov.
    C("lyapunov_adaptive", "lyapunov cfg.toml", 2, "cfg.toml:", "'solver.step'",
      cfg=sub(BASE, 'method = "rk4"\nstep = 0.01', 'method = "dopri5"\nrtol = 1e-6') + "[lyapunov]\nduration = 10.0\n"),
    C("lyapunov_duration_negative", "lyapunov cfg.toml", 2, "cfg.toml:26:", "'lyapunov.duration'", cfg=BASE + "[lyapunov]\nduration = -10.0\n"),
    # Found by a hostile-input run of the ring (issue 28).
    C("dotted_key_50000_parts", S, 2, "cfg.toml:25:", "dotted key", cfg=BASE + "a" + ".a" * 50000 + " = 1\n"),
    C("dotted_header_50000_parts", S, 2, "cfg.toml:1:", "dotted key", cfg="[" + "a." * 50000 + "a]\n" + BASE),
    C("dotted_key_in_set", S + " --set 'solver.limits={" + "a." * 50000 + "a=1}'", 2, "dotted key", cfg=BASE),
    C("config_17MiB_of_zeros", S, 2, "cfg.toml", "16 MiB", cfg=bytes(17 << 20)),
    C("cr_in_value", S, 2, "cfg.toml:17:", "'solver.method'", "\\x0D", cfg=sub(BASE, '"rk4"', '"rk4\\rEVIL"')),
    C("cr_raw_in_comment_and_key", S, 2, "cfg.toml:18:", cfg=sub(BASE, "step = 0.01", "st\rep = 0.01 # \r")),
    C("cr_in_set", ["simulate", "cfg.toml", "--set", "solver.method=rk4\rEVIL"], 2, "'solver.method'", "\\x0D", cfg=BASE),
    C("value_2MB_not_echoed_whole", S, 2, "cfg.toml:17:", "'solver.method'", "more bytes", cfg=sub(BASE, '"rk4"', '"' + "r" * 2_000_000 + '"')),
    C("nul_escaped_in_expression", S, 2, "cfg.toml:5:", "'model.equations.x'", "\\x00", cfg=sub(BASE, '"-a*x + y"', '"-a*x\\u0000 + y"')),
    C("grid_index_20_digits", G, 2, "cfg.toml:20:", "'objective.terminal'", "index 99999999999999999999 ", cfg=sub(GRID, "u[3]", "u[99999999999999999999]")),
    C("max_steps_fixed_refused_whole", S, 1, "max_steps = 5", "nothing was integrated", absent=("at step 0",), cfg=sub(BASE, "step = 0.01", "step = 0.01\nmax_steps = 5")),
    # The run and its files are done; only the copy of the results on stdout was lost.
    C("json_to_full_device", S + " --json", 1, "standard output", cfg=BASE, stdout="/dev/full", writes=True),
    # [[events]] (issue 31): appended on lines 25-28.
    C("event_unknown_state", S, 2, "cfg.toml:28:", "'events.set.z'", "unknown state", cfg=BASE + EVENT.replace("x =", "z =")),
    C("event_time_nan", S, 2, "cfg.toml:27:", "'events.at'", "finite", cfg=BASE + EVENT.replace("at = 0.5", "at = nan")),
    C("event_count_10e18", G, 2, "cfg.toml:27:", "'events.at.count'", "max_steps",
      cfg=BASE + EVENT.replace("at = 0.5", "at = { start = 0.5, period = 1e-300, count = 1000000000000000000 }")),
    C("event_jump_to_nan", G, 1, "non-finite", "t = 0.5, in state 'x', just after event 'kick'", cfg=BASE + EVENT.replace('"x + 1"', '"log(-x)"')),
    # Events at moving times: a lag time, a condition.
    C("moving_event_jump_to_nan", G, 1, "non-finite", "t = 0.25, in state 'x', just after event 'kick'",
      cfg=BASE + EVENT.replace("at = 0.5", 'at = "a/4"').replace('"x + 1"', '"log(-x)"')),
    C("moving_event_outside_run", S, 2, "cfg.toml:27:", "'events.at'", "outside (time.start, time.end]",
      cfg=BASE + EVENT.replace("at = 0.5", 'at = "a*100"')),
    C("moving_event_reads_state", S, 2, "cfg.toml:27:", "'events.at'", "y", cfg=BASE + EVENT.replace("at = 0.5", 'at = "y"')),
    C("when_without_direction", S, 2, "cfg.toml:", "'events.direction'", "is required with when",
      cfg=BASE + EVENT.replace("at = 0.5", 'when = "x - 2"')),
    C("when_and_at", S, 2, "cfg.toml:", "'events.when'", "not both", cfg=BASE + EVENT.replace("at = 0.5", 'at = 0.5\nwhen = "x"')),
    # PEtab problems (issue 58): the table's file, row and column, or the SBML element.
    C("petab_missing_column", "simulate p.yaml", 2, "measurements.tsv:1:", "measurement",
      files=petab(measurements_tsv=lambda t: t.replace("\tmeasurement", "\tvalue"))),
    C("petab_unknown_id_in_formula", "gradient p.yaml", 2, "observables.tsv:2:", "observableFormula", "nope",
      files=petab(observables_tsv=lambda t: t.replace("obs_a\tA\t", "obs_a\tA + nope\t"))),
    C("petab_condition_unknown_species", "simulate p.yaml", 2, "conditions.tsv:", "'Z'",
      files=petab(conditions_tsv=lambda t: "conditionId\tZ\nc0\t1\n")),
    C("petab_log_scale_nonpositive_bound", "simulate p.yaml", 2, "parameters.tsv:3:", "lowerBound",
      files=petab(parameters_tsv=lambda t: t.replace("b0\tlin\t0", "b0\tlog10\t0"))),
    C("petab_log_transform_nonpositive_measurement", "simulate p.yaml", 2, "measurements.tsv:3:", "'measurement'", "> 0",
      files=petab(observables_tsv=lambda t: "observableId\tobservableFormula\tnoiseFormula\tobservableTransformation\n"
                                              "obs_a\tA\t0.5\tlog\n",
                  measurements_tsv=lambda t: t.replace("0.1", "-0.1"))),
    C("petab_sbml_malformed", "simulate p.yaml", 2, "model.xml",
      files=petab(model_xml=lambda t: t[: len(t) // 2])),
    C("petab_sbml_not_taken", "simulate p.yaml", 2, "model.xml:", "algebraic rules are not taken",
      files=petab(model_xml=lambda t: t.replace("<listOfReactions>", ALGEBRAIC + "<listOfReactions>"))),
    C("petab_prior_unknown", "simulate p.yaml", 2, "parameters.tsv:2:", "objectivePriorType", "'beta'",
      files=petab(parameters_tsv=lambda t: with_priors(t, "beta", "1;2"))),
    C("petab_prior_parameter_count", "gradient p.yaml", 2, "parameters.tsv:2:", "objectivePriorParameters", "takes 2",
      files=petab(parameters_tsv=lambda t: with_priors(t, "normal", "1"))),
    C("petab_prior_not_a_number", "simulate p.yaml", 2, "parameters.tsv:2:", "objectivePriorParameters",
      files=petab(parameters_tsv=lambda t: with_priors(t, "normal", "1;wide"))),
    # A fit's starts spread over the bounds: an estimated parameter without one is refused.
    C("petab_fit_unbounded", "fit p.yaml", 2, "parameters.tsv:3:", "upperBound", "must be finite",
      files=petab(parameters_tsv=lambda t: sub(t, "b0\tlin\t0\t10", "b0\tlin\t0\tinf"))),
    C("petab_fit_unknown_optimizer_key", "fit p.yaml --set optimizer.restarts=3", 2, "optimizer", "restarts",
      files=petab()),
    # A pre-equilibration under which the model grows without bound: exit 1, saying so.
    C("petab_preequilibration_diverges", "simulate p.yaml", 1, "pre-equilibration", "non-finite",
      files=petab(conditions_tsv=lambda t: "conditionId\tk1\nc0\t0.8\npre\t-1\n",
                  parameters_tsv=lambda t: t.replace("k1\tlin\t0\t10\t0.8\t1", "k1\tlin\t-10\t10\t0.8\t0"),
                  measurements_tsv=lambda t: t.replace("simulationConditionId", "preequilibrationConditionId\tsimulationConditionId")
                                              .replace("\tc0\t", "\tpre\tc0\t"))),
]


def snapshot(root):
    """Relative path -> sha256 (or the kind of a non-file) of everything under root."""
    seen = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root)
            if os.path.isdir(path) or not os.path.isfile(path):
                seen[rel] = "dir" if os.path.isdir(path) else "special"
            else:
                with open(path, "rb") as f:
                    seen[rel] = hashlib.sha256(f.read()).hexdigest()
    return seen


def write_files(folder, files):
    for name, content in files.items():
        path = os.path.join(folder, name)
        if content is DIR:
            os.makedirs(path)
        elif content is FIFO:
            os.mkfifo(path)
        else:
            with open(path, "wb") as f:
                f.write(content.encode() if isinstance(content, str) else content)


def run(cli, argv, cwd, stdout=""):
    if not stdout:
        return subprocess.run([cli] + argv, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, timeout=10)
    with open(stdout, "wb") as out:
        return subprocess.run([cli] + argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.PIPE,
                              timeout=10)


def check(case, cli, folder, good):
    os.makedirs(folder)
    shutil.copytree(good, os.path.join(folder, "out"))
    write_files(folder, case.files)
    before = snapshot(folder)
    argv = shlex.split(case.cmd) if isinstance(case.cmd, str) else list(case.cmd)
    argv += ["--output-dir", "out"] if case.out else []
    problems = []
    try:
        r = run(cli, argv, folder, case.stdout)
    except subprocess.TimeoutExpired:
        return argv, ["timed out after 10 s"], b""
    if r.returncode != case.code:
        problems.append(f"exit code: expected {case.code}, got {r.returncode}")
    err = r.stderr
    if b"\x1b" in err or b"\x00" in err:
        problems.append("stderr echoes a raw ESC or NUL byte")
    if b"\r" in err.replace(b"\r\n", b""):
        problems.append("stderr echoes a raw carriage return, which rewrites the line a user reads")
    if len(err) > 20000:
        problems.append(f"stderr is {len(err)} bytes: a message echoes too much")
    present = [w for w in case.absent if w in err.decode("utf-8", "replace")]
    if present:
        problems.append(f"in stderr but should not be: {present}")
    try:
        err.decode("utf-8")
    except UnicodeDecodeError:
        problems.append("stderr is not valid UTF-8")
    text = err.decode("utf-8", "replace")
    missing = [w for w in case.want if w not in text]
    if missing:
        problems.append(f"missing in stderr: {missing}")
    if case.json:
        try:
            error = json.loads(r.stdout)["error"]
            if error.get("exit_code") != case.code or "message" not in error:
                problems.append(f"stdout JSON error object is incomplete: {error}")
        except (ValueError, KeyError, TypeError, AttributeError):
            problems.append(f"stdout is not a JSON object with 'error': {r.stdout[:200]!r}")
    after = snapshot(folder)
    if case.code != 0 and not case.writes and after != before:
        changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
        problems.append(f"files changed, added or removed: {changed}")
    temps = [k for k in after if ".tmp-" in k or any(p.startswith(".") for p in k.split(os.sep))]
    if temps:
        problems.append(f"temporaries left: {temps}")
    return argv, problems, err


def concurrent_commands(cli, root, tries=10):
    """simulate and gradient committing into one existing output folder at once: each
    must keep the other's new outputs. Returns the number of tries that lost one."""
    lost = 0
    for attempt in range(tries):
        folder = os.path.join(root, "concurrent", str(attempt))
        os.makedirs(folder)
        write_files(folder, {"cfg.toml": BASE})
        run(cli, ["simulate", "cfg.toml", "--output-dir", "out"], folder)
        trajectory = os.path.join(folder, "out", "trajectory.h5")
        before = os.stat(trajectory).st_mtime_ns
        time.sleep(0.02)  # a rewritten file's time differs
        runs = [subprocess.Popen([cli, c, "cfg.toml", "--output-dir", "out"], cwd=folder, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for c in ("simulate", "gradient")]
        codes = [r.wait(timeout=30) for r in runs]
        kept = os.path.exists(os.path.join(folder, "out", "gradient.h5")) and os.stat(trajectory).st_mtime_ns > before
        if codes != [0, 0] or not kept:
            lost += 1
            print(f"FAIL concurrent_commands try {attempt}: exit codes {codes}, both new outputs kept: {kept}")
    return lost


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    cli, scratch = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[3])  # argv[2], the sources: unused
    root = os.path.join(scratch, "hostile_inputs")
    shutil.rmtree(root, ignore_errors=True)
    good = os.path.join(root, "good")
    os.makedirs(good)
    write_files(good, {"cfg.toml": BASE})
    for command in ("simulate", "gradient"):  # the earlier outputs every case must leave alone
        r = run(cli, [command, "cfg.toml", "--output-dir", "out"], good)
        if r.returncode != 0:
            sys.exit(f"the good {command} run failed ({r.returncode}): {r.stderr.decode(errors='replace')}")
    started, failures = time.monotonic(), 0
    assert len({c.name for c in CASES}) == len(CASES), "case names must be unique"
    for case in CASES:
        argv, problems, err = check(case, cli, os.path.join(root, case.name), os.path.join(good, "out"))
        if problems:
            failures += 1
            shown = (shlex.quote(a) if a.isprintable() else repr(a) for a in map(os.fsdecode, argv))
            print(f"FAIL {case.name}: backsweep {' '.join(shown)}  (in {case.name}/)")
            for p in problems:
                print(f"    {p}")
            print(f"    stderr: {err[:400]!r}")
    lost = concurrent_commands(cli, root)
    print(f"{len(CASES) - failures} of {len(CASES)} hostile inputs passed, and {10 - lost} of 10 concurrent "
          f"commits into one folder kept both runs' outputs, in {time.monotonic() - started:.1f} s")
    return 1 if failures or lost else 0


if __name__ == "__main__":
    sys.exit(main())
