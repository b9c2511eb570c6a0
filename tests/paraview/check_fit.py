# Run by pvbatch (ParaView's Python): opens what `backsweep fit` wrote for
# examples/heat_conductivity_fit.toml, checks the fitted conductivity against the truth
# the data were made from, checks the misfit's adjoint series, and renders k to a PNG.
#   under_xvfb.sh pvbatch check_fit.py OUTPUT_DIR PNG
import math
import sys

from paraview import servermanager
from paraview.simple import PVDReader
from render_field import render
from vtkmodules.util.numpy_support import vtk_to_numpy

out, png = sys.argv[1], sys.argv[2]
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


fit = PVDReader(FileName=f"{out}/fit.pvd")
fit.UpdatePipeline()
check(sorted(fit.PointData.keys()) == ["dJ_dk", "k", "k_prior"], f"fit arrays {fit.PointData.keys()}")
image = servermanager.Fetch(fit)
nx, ny, _ = image.GetDimensions()
check((nx, ny) == (64, 64), f"fit grid {nx} x {ny}")
k = vtk_to_numpy(image.GetPointData().GetArray("k"))
prior = vtk_to_numpy(image.GetPointData().GetArray("k_prior"))

# The truth of data/heat_conductivity_truth.toml at the Dirichlet grid's points.
squares = difference = from_prior = 0.0
for j in range(ny):
    for i in range(nx):
        x, y = (i + 1) / (nx + 1), (j + 1) / (ny + 1)
        truth = 1 + 0.5 * math.exp(-((x - 0.35) ** 2 + (y - 0.6) ** 2) / 0.02)
        squares += truth * truth
        difference += (k[j * nx + i] - truth) ** 2
        from_prior += (prior[j * nx + i] - truth) ** 2
error, prior_error = math.sqrt(difference / squares), math.sqrt(from_prior / squares)
print(f"relative L2 error of k: {error:.4f} (the prior k = 1: {prior_error:.4f})")
check(error < 0.05, f"relative L2 error {error} of the fitted k is not below 0.05")
peak = int(k.argmax())
px, py = (peak % nx + 1) / (nx + 1), (peak // nx + 1) / (ny + 1)
check(math.hypot(px - 0.35, py - 0.6) < 0.1, f"k peaks at ({px:.2f}, {py:.2f}), not near (0.35, 0.6)")

# The misfit's adjoint: at the end only the sensors' terms seed it; at t = 0 it has spread.
adjoint = PVDReader(FileName=f"{out}/adjoint.pvd")
adjoint.UpdatePipeline()
check(list(adjoint.TimestepValues) == [0.0, 0.0025, 0.005, 0.0075, 0.01], f"adjoint times {adjoint.TimestepValues}")
for t, most in ((0.01, 64), (0.0, 64 * 64)):
    adjoint.UpdatePipeline(t)
    lam = vtk_to_numpy(servermanager.Fetch(adjoint).GetPointData().GetArray("lambda_u"))
    nonzero = int((lam != 0).sum())
    check(0 < nonzero <= most, f"lambda at t = {t} is nonzero at {nonzero} points")
    if t == 0.0:
        check(nonzero > 1000, f"lambda at t = 0 has not spread: nonzero at {nonzero} points")

render(fit, "k", (0.5, 0.5), png)

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("ParaView opened the fitted field and the adjoint series: all checks hold")
