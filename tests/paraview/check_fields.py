# Run by pvbatch (ParaView's Python): opens the VTK series `backsweep gradient` wrote for
# examples/gray_scott.toml, checks their arrays, time steps and ranges as ParaView reads
# them, and renders the gradient field to a PNG.
#   under_xvfb.sh pvbatch check_fields.py OUTPUT_DIR PNG
import math
import sys

from paraview.simple import PVDReader, UpdatePipeline

from render_field import render

out, png = sys.argv[1], sys.argv[2]
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def open_series(name, steps, arrays):
    reader = PVDReader(FileName=f"{out}/{name}.pvd")
    reader.UpdatePipeline()
    check(sorted(reader.PointData.keys()) == arrays, f"{name}: arrays {reader.PointData.keys()}")
    check(len(reader.TimestepValues or [0.0]) == steps, f"{name}: {reader.TimestepValues} time steps")
    info = reader.GetDataInformation()
    check(info.GetNumberOfPoints() == 64 * 64, f"{name}: {info.GetNumberOfPoints()} points")
    return reader


states = open_series("states", 5, ["u", "v"])
check(list(states.TimestepValues) == [0.0, 50.0, 100.0, 150.0, 200.0], f"states times {states.TimestepValues}")
UpdatePipeline(time=0.0, proxy=states)
low, high = states.PointData["v"].GetRange()
check(low == 0.0 and 0.2 < high <= 0.25, f"initial v ranges over [{low}, {high}], not [0, ~1/4]")

adjoint = open_series("adjoint", 5, ["lambda_u", "lambda_v"])
gradient = open_series("gradient", 1, ["dJ_du(0)", "dJ_dv(0)"])
# lambda(0) is dJ/dy0: the adjoint series at t = 0 and the gradient field must agree.
UpdatePipeline(time=0.0, proxy=adjoint)
for field in ("u", "v"):
    at_zero = adjoint.PointData[f"lambda_{field}"].GetRange()
    of_gradient = gradient.PointData[f"dJ_d{field}(0)"].GetRange()
    check(all(math.isfinite(x) for x in of_gradient), f"gradient {field} range {of_gradient}")
    check(of_gradient[1] > of_gradient[0], f"gradient {field} is constant")
    check(all(abs(a - b) <= 1e-12 * max(1.0, abs(b)) for a, b in zip(at_zero, of_gradient)),
          f"lambda({field}) at t = 0 {at_zero} differs from the gradient {of_gradient}")
# At the end, lambda is the seed: 1 at grid point (31, 31) of each field, 0 elsewhere.
UpdatePipeline(time=200.0, proxy=adjoint)
check(adjoint.PointData["lambda_u"].GetRange() == (0.0, 1.0), f"final lambda(u) {adjoint.PointData['lambda_u'].GetRange()}")

render(gradient, "dJ_dv(0)", (1.25, 1.25), png)

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("ParaView opened states, adjoint and gradient series: all checks hold")
