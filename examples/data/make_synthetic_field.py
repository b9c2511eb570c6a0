"""Writes synthetic sensor data for the field inversion example: the truth is simulated
with backsweep itself (states written as VTK), each field is read at the sensor points,
and Gaussian noise of known sigma is added (seeded, so the files are reproducible).
Run it with ParaView's Python, which reads the VTK files:
  pvpython examples/data/make_synthetic_field.py BACKSWEEP TRUTH.toml OUT_DIR OUT.csv SIGMA SEED FIELD SENSORS
TRUTH.toml is a simulate config with [output] vtk = true and dir = OUT_DIR, whose output
times are the measurement times; SENSORS is a per-axis count: the sensors lie on an
evenly spaced SENSORS x SENSORS lattice of grid points, named FIELD_<row>_<column>. Also
prints the [[observables]] lines for the fit config."""
import random, subprocess, sys
import xml.etree.ElementTree as ElementTree

from vtkmodules.vtkIOXML import vtkXMLImageDataReader

backsweep, truth, out_dir, out, sigma, seed, field, sensors = sys.argv[1:9]
sigma, seed, sensors = float(sigma), int(seed), int(sensors)
subprocess.run([backsweep, "simulate", truth], check=True, capture_output=True)
series = ElementTree.parse(f"{out_dir}/states.pvd").getroot().find("Collection")
rng = random.Random(seed)
lines, observables = ["observable,time,value,sigma"], []
for snapshot in series:
    t = float(snapshot.get("timestep"))
    reader = vtkXMLImageDataReader()
    reader.SetFileName(f"{out_dir}/{snapshot.get('file')}")
    reader.Update()
    image = reader.GetOutput()
    nx, ny, _ = image.GetDimensions()
    values = image.GetPointData().GetArray(field)
    for row in range(sensors):
        for column in range(sensors):
            j, i = (2 * row + 1) * ny // (2 * sensors), (2 * column + 1) * nx // (2 * sensors)
            name = f"{field}_{row}_{column}"
            if t == 0.0:
                observables.append(f'  {{ name = "{name}", formula = "{field}[{j}, {i}]" }},')
                continue
            value = values.GetValue(j * nx + i) + rng.gauss(0.0, sigma)
            lines.append(f"{name},{t!r},{value!r},{sigma!r}")
with open(out, "w") as f:
    f.write("\n".join(lines) + "\n")
print("observables = [\n" + "\n".join(observables) + "\n]")
