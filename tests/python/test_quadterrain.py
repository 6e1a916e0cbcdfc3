"""The Python module against the engine's own answers: counts that add up, the renderer's frame
equal to the map's cull, culled pictures equal to unculled ones, picks where the camera looks,
objects culled with the terrain, streamed maps equal to loaded ones, one-line errors.

Run by CTest (python_module) with the module of the build tree on PYTHONPATH, headless."""
import atexit
import os
import shutil
import tempfile

import numpy as np
import pytest

import quadterrain

# Streamed maps' sidecars go to the cache folder: this run's own, never the home's.
_CACHE_HOME = tempfile.mkdtemp(prefix="qt_python_cache_")
os.environ["XDG_CACHE_HOME"] = _CACHE_HOME
atexit.register(shutil.rmtree, _CACHE_HOME, ignore_errors=True)

SOURCE = os.environ.get("QT_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
MAP = os.path.join(SOURCE, "data", "default_1025.png")
W, H = 320, 180
EYE, TARGET = (300.0, 160.0, 300.0), (700.0, 40.0, 650.0)


@pytest.fixture(scope="module")
def m():
    return quadterrain.open(MAP)


@pytest.fixture(scope="module")
def renderer():
    return quadterrain.Renderer(MAP, width=W, height=H)


def test_a_map_opens_with_its_size_tree_and_codes(m):
    assert (m.width, m.height, m.leaf_size) == (1025, 1025, 4)
    assert m.lod_errors == "exact"
    assert not m.streamed
    assert m.georeference is None  # a plain image: no place on Earth, said as None
    codes = m.codes
    assert codes.shape == (1025, 1025) and codes.dtype == np.uint16
    assert not codes.flags.writeable
    heights = m.heights()
    mapping = m.mapping
    # Unitless samples: the code is the sample, y = sample * height_scale + height_offset.
    expected = codes.astype(np.float64) * mapping["height_scale"] + mapping["height_offset"]
    assert np.allclose(heights, expected, rtol=1e-6, atol=1e-4)


def test_the_cull_counts_add_up_and_list_each_drawn_leaf_once(m):
    frame = m.cull(m.camera(EYE, TARGET, width=W, height=H), width=W, height=H, lod=0)
    drawn, culled, occluded = frame["leaves_drawn"], frame["leaves_culled"], frame["leaves_occluded"]
    assert drawn + culled + occluded == frame["leaves_total"] == 256 * 256
    assert culled > 0 and occluded > 0, "the camera must cull and occlude for the test to mean much"
    leaves = frame["leaves"]
    assert leaves.shape == (drawn, 2)
    assert len({(int(c), int(r)) for c, r in leaves}) == drawn
    boxes = frame["boxes"]
    assert np.array_equal(boxes[:, 0], leaves[:, 0] * 4) and np.array_equal(boxes[:, 1], leaves[:, 1] * 4)
    assert frame["triangles"] == 2 * int(((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])).sum())


def test_occlusion_only_removes_leaves_the_frustum_kept(m):
    camera = m.camera(EYE, TARGET, width=W, height=H)
    with_occlusion = m.cull(camera, width=W, height=H, lod=0)
    frustum_only = m.cull(camera, width=W, height=H, occlusion=False, lod=0)
    kept = {tuple(x) for x in with_occlusion["leaves"].tolist()}
    walked = {tuple(x) for x in frustum_only["leaves"].tolist()}
    assert kept < walked
    assert len(walked) - len(kept) == with_occlusion["leaves_occluded"]


def test_level_of_detail_draws_coarser_nodes(m):
    frame = m.cull(m.overview_camera(width=W, height=H), width=W, height=H, lod=2.0)
    assert frame["lod"] and frame["lod_nodes_drawn"] == len(frame["boxes"]) > 0
    assert frame["lod_deepest_level"] > 0
    sides = frame["boxes"][:, 2] - frame["boxes"][:, 0]
    assert sides.max() > 4


def test_the_pixel_at_the_centre_picks_the_ground_the_camera_looks_at(m):
    ground = m.pick(m.camera((100.0, 400.0, 100.0), (512.0, 0.0, 512.0), width=W, height=H),
                    W / 2, H / 2, width=W, height=H)
    assert ground is not None and ground["hit"]
    x, y, z = ground["world"]
    # The centre ray runs from the eye through the target point; it meets the ground on that line.
    eye, target = np.array([100.0, 400.0, 100.0]), np.array([512.0, 0.0, 512.0])
    direction = (target - eye) / np.linalg.norm(target - eye)
    offset = np.array([x, y, z]) - eye
    assert np.linalg.norm(offset - direction * offset.dot(direction)) < 1.0
    col, row = ground["sample"]
    assert abs(col - x) <= 1 and abs(row - z) <= 1
    sky = m.pick(m.camera((512.0, 300.0, 512.0), (512.0, 900.0, 600.0), width=W, height=H),
                 W / 2, H / 2, width=W, height=H)
    assert sky is None


def test_the_renderers_frame_is_the_maps_cull(m, renderer):
    camera = renderer.camera(EYE, TARGET, width=W, height=H)
    picture = renderer.render(camera, lod=0)
    assert picture.shape == (H, W, 3) and picture.dtype == np.uint8
    drawn = renderer.last_frame
    culled = m.cull(m.camera(EYE, TARGET, width=W, height=H), width=W, height=H, lod=0)
    assert np.array_equal(drawn["leaves"], culled["leaves"])
    assert drawn["leaves_occluded"] == culled["leaves_occluded"] > 0


def test_culled_pictures_equal_unculled_ones(renderer):
    for eye, target in ((EYE, TARGET), ((50.0, 300.0, 1000.0), (600.0, 0.0, 400.0))):
        camera = renderer.camera(eye, target, width=W, height=H)
        culled = renderer.render(camera)
        stats = renderer.last_frame
        unculled = renderer.render(camera, cull=False)
        assert np.array_equal(culled, unculled)
        assert stats["leaves_culled"] + stats["leaves_occluded"] > 0
        sky = culled[0, 0]
        assert (culled != sky).any(axis=2).mean() > 0.2, "the picture shows terrain"


def test_objects_are_scattered_culled_and_picked(m):
    m.scatter_objects(3000, moving=300, seed=5)
    objects = m.objects
    assert objects["count"] == 3000 and objects["moving"] == 300
    assert objects["boxes"].shape == (3000, 2, 3)
    assert set(objects["kinds"]) == {"tree", "rock", "ball"}
    frame = m.cull(m.camera(EYE, TARGET, width=W, height=H), width=W, height=H)
    ids = frame["objects_drawn"]
    assert 0 < len(ids) < 3000
    assert frame["objects"]["drawn"] == len(ids)
    assert frame["objects"]["culled"] > 0
    balls_before = m.objects["boxes"][2700:].copy()
    m.step_objects(30)
    assert not np.array_equal(balls_before, m.objects["boxes"][2700:]), "the balls roll"
    # Looking down at an object's top from just above it picks that object.
    box = m.objects["boxes"][0]
    centre = (box[0] + box[1]) / 2
    top = (float(centre[0]), float(box[1][1]) + 30.0, float(centre[2]))
    hit = m.pick(m.camera(top, (float(centre[0]), float(box[0][1]), float(centre[2]) + 0.01),
                          width=W, height=H), W / 2, H / 2, width=W, height=H)
    assert hit is not None and hit["object"] is not None and hit["object"]["id"] == 0
    m.scatter_objects(0)
    assert m.objects["count"] == 0


def test_a_streamed_r16_culls_as_the_loaded_map(m, tmp_path):
    path = tmp_path / "map.r16"
    m.codes.astype("<u2").tofile(path)
    streamed = quadterrain.open(str(path), stream=True)
    assert streamed.streamed and (streamed.width, streamed.height) == (1025, 1025)
    assert np.array_equal(streamed.codes, m.codes)
    # Its sidecar in the cache folder, nothing beside the map.
    assert os.listdir(tmp_path) == ["map.r16"]
    sidecars = os.listdir(os.path.join(_CACHE_HOME, "quadterrain"))
    assert any(n.startswith("map.r16.") and n.endswith(".qtree") for n in sidecars), sidecars
    loaded = quadterrain.open(str(path), stream=False)
    assert not loaded.streamed
    camera = loaded.camera(EYE, TARGET, width=W, height=H)
    a = streamed.cull(camera, width=W, height=H, lod=0)
    b = loaded.cull(camera, width=W, height=H, lod=0)
    assert np.array_equal(a["leaves"], b["leaves"])


def test_bad_input_is_one_line(tmp_path):
    with pytest.raises(quadterrain.Error, match=r"^/no/such/map\.png: no such file$"):
        quadterrain.open("/no/such/map.png")
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 40)
    with pytest.raises(quadterrain.Error) as error:
        quadterrain.open(str(bad))
    assert "\n" not in str(error.value) and str(bad) in str(error.value)
    with pytest.raises(quadterrain.Error, match="viewport"):
        quadterrain.open(MAP).cull(quadterrain.open(MAP).overview_camera(), width=0, height=10)
    with pytest.raises(quadterrain.Error, match="apart"):
        quadterrain.open(MAP).camera((1, 2, 3), (1, 2, 3))
