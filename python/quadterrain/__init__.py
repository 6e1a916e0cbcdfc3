"""quadterrain: heightmaps as quadtrees, culled exactly, rendered headless.

    import quadterrain
    m = quadterrain.Map("data/default_1025.png")        # no GL: cull, pick, objects
    camera = m.camera(eye=(300, 160, 300), target=(700, 40, 650))
    frame = m.cull(camera)                              # counts and the visible leaves
    r = quadterrain.Renderer("data/default_1025.png", width=640, height=360)
    picture = r.render(r.camera((300, 160, 300), (700, 40, 650), width=640, height=360))

Errors a user can cause (a bad file, a bad argument) raise quadterrain.Error with the one-line
message the viewer prints.
"""
from ._quadterrain import Camera, Error, Map, Renderer

__all__ = ["Camera", "Error", "Map", "Renderer", "open"]


def open(path, leaf_size=4, stream=False, memory_budget_mb=None):
    """Opens a heightmap as the viewer does: whole, or streamed when its estimate is over the
    memory budget (MiB; None: half the machine's memory, as the viewer; 0: none) or `stream`."""
    return Map(path, leaf_size=leaf_size, stream=stream, memory_budget_mb=memory_budget_mb)
