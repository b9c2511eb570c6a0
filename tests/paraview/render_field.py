# One picture of a field as the ParaView tests render it: the array coloured with "Cool to
# Warm" and a scalar bar, seen from above the 2-D domain's centre, 640 x 640.
from paraview.simple import (ColorBy, GetActiveViewOrCreate, GetColorTransferFunction, ResetCamera,
                             SaveScreenshot, Show)


def render(source, array, centre, png):
    view = GetActiveViewOrCreate("RenderView")
    view.ViewSize = [640, 640]
    display = Show(source, view)
    ColorBy(display, ("POINTS", array))
    GetColorTransferFunction(array).ApplyPreset("Cool to Warm", True)
    display.SetScalarBarVisibility(view, True)
    view.CameraPosition = [centre[0], centre[1], 6.0]
    view.CameraFocalPoint = [centre[0], centre[1], 0.0]
    ResetCamera(view)
    SaveScreenshot(png, view, ImageResolution=[640, 640])
