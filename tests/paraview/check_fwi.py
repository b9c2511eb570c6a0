# The full-waveform inversion example end to end, run by pvpython (ParaView's Python reads
# the VTK output): `backsweep fit examples/fwi_fit.toml` must reduce the data misfit by at
# least 90% and put the slow anomaly where the truth has it, (0.55, 0.5).
#   pvpython check_fwi.py BACKSWEEP SOURCE_DIR SCRATCH_DIR
import csv, json, math, os, shutil, subprocess, sys
import xml.etree.ElementTree as ElementTree

from vtkmodules.vtkIOXML import vtkXMLImageDataReader

backsweep, source, scratch = sys.argv[1:4]
shutil.rmtree(scratch, ignore_errors=True)
os.makedirs(f"{scratch}/data")
shutil.copy(f"{source}/examples/fwi_fit.toml", scratch)
shutil.copy(f"{source}/examples/data/fwi_traces.csv", f"{scratch}/data")


def run(command):
    done = subprocess.run([backsweep, command, "fwi_fit.toml", "--json"], cwd=scratch, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"backsweep {command} exited {done.returncode}: {done.stderr}")
    return json.loads(done.stdout)


# The misfit 1/2 sum ((h - v)/sigma)^2 is the objective less its constant sum log(sqrt(2 pi) sigma);
# at the prior (c = 1, constant) the H1 term is 0.
with open(f"{scratch}/data/fwi_traces.csv") as f:
    constant = sum(math.log(math.sqrt(2 * math.pi) * float(row["sigma"])) for row in csv.DictReader(f))
before = run("gradient")["objective"] - constant
fit = run("fit")
after = fit["misfit"] - constant
reduction = 1 - after / before
print(f"misfit {before:.6g} at the prior, {after:.6g} at the fit: reduced by {100 * reduction:.1f}%")
failures = []
if reduction < 0.9:
    failures.append(f"the misfit fell by {100 * reduction:.1f}%, not 90%")

snapshot = ElementTree.parse(f"{scratch}/out/fwi/fit.pvd").getroot().find("Collection")[0]
reader = vtkXMLImageDataReader()
reader.SetFileName(f"{scratch}/out/fwi/{snapshot.get('file')}")
reader.Update()
image = reader.GetOutput()
nx, ny, _ = image.GetDimensions()
c = image.GetPointData().GetArray("c")
slowest = min(range(nx * ny), key=c.GetValue)
x, y = (slowest % nx + 1) / (nx + 1), (slowest // nx + 1) / (ny + 1)
print(f"the slowest point: c = {c.GetValue(slowest):.3f} at ({x:.3f}, {y:.3f}); the truth: 0.7 at (0.55, 0.5)")
if math.hypot(x - 0.55, y - 0.5) > 0.06:
    failures.append(f"the anomaly lies at ({x:.3f}, {y:.3f}), not near (0.55, 0.5)")
if not c.GetValue(slowest) < 0.9:
    failures.append(f"the anomaly is faint: c = {c.GetValue(slowest)}")
if failures:
    sys.exit("\n".join(failures))
print("the inversion reduced the misfit and found the anomaly")
