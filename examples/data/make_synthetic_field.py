"""Writes synthetic sensor data for the field inversion examples: the truth is simulated
with backsweep itself (states written as VTK), each field is read at the sensor points,
and Gaussian noise of known sigma is added (seeded, so the files are reproducible).
Run it with ParaView's Python, which reads the VTK files:
  pvpython examples/data/make_synthetic_field.py BACKSWEEP TRUTH.toml OUT.csv SIGMA SEED FIELD SENSORS [EXPERIMENT...]
TRUTH.toml is a simulate config with [output] vtk = true whose output times are the
measurement times. SENSORS places the sensors at grid points, named FIELD_<row>_<column>:
  lattice:N     an evenly spaced N x N lattice
  line:ROW:N    N evenly spaced points along grid row ROW
Each EXPERIMENT is ID:NAME=VALUE[,NAME=VALUE...]: the truth run again with those lines of
[parameters] replaced, its rows marked with ID in an experiment column. Also prints the
observables for the fit config."""
import os, random, re, subprocess, sys, tempfile
import xml.etree.ElementTree as ElementTree

from vtkmodules.vtkIOXML import vtkXMLImageDataReader

backsweep, truth, out, sigma, seed, field, sensors = sys.argv[1:8]
experiments = sys.argv[8:] or [None]
rng = random.Random(int(seed))
text = open(truth).read()
out_dir = re.search(r'^dir\s*=\s*"([^"]*)"', text, re.M).group(1)


def sensor_points(nx, ny):
    kind, *numbers = sensors.split(":")
    if kind == "lattice":
        n = int(numbers[0])
        return [(row, column, (2 * row + 1) * ny // (2 * n), (2 * column + 1) * nx // (2 * n))
                for row in range(n) for column in range(n)]
    row, n = int(numbers[0]), int(numbers[1])
    return [(row, column, row, (2 * column + 1) * nx // (2 * n)) for column in range(n)]


lines, observables = ["observable,time,value,sigma" + (",experiment" if experiments[0] else "")], []
for experiment in experiments:
    config = text
    if experiment:
        identity, _, overrides = experiment.partition(":")
        for pair in overrides.split(","):
            name, value = pair.split("=")
            config = re.sub(rf"^{name}\s*=.*$", f"{name} = {value}", config, count=1, flags=re.M)
    with tempfile.NamedTemporaryFile("w", suffix=".toml", dir=os.path.dirname(truth) or ".", delete=False) as f:
        f.write(config)
    try:
        subprocess.run([backsweep, "simulate", f.name], check=True, capture_output=True)
    finally:
        os.remove(f.name)
    for snapshot in ElementTree.parse(f"{out_dir}/states.pvd").getroot().find("Collection"):
        t = float(snapshot.get("timestep"))
        reader = vtkXMLImageDataReader()
        reader.SetFileName(f"{out_dir}/{snapshot.get('file')}")
        reader.Update()
        image = reader.GetOutput()
        nx, ny, _ = image.GetDimensions()
        values = image.GetPointData().GetArray(field)
        for row, column, j, i in sensor_points(nx, ny):
            name = f"{field}_{row}_{column}"
            if t == 0.0:
                if experiment is experiments[0]:
                    observables.append(f'  {{ name = "{name}", formula = "{field}[{j}, {i}]" }},')
                continue
            value = values.GetValue(j * nx + i) + rng.gauss(0.0, float(sigma))
            lines.append(f"{name},{t!r},{value!r},{float(sigma)!r}" + (f",{identity}" if experiment else ""))
with open(out, "w") as f:
    f.write("\n".join(lines) + "\n")
print("observables = [\n" + "\n".join(observables) + "\n]")
