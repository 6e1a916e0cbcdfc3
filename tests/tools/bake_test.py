#!/usr/bin/env python3
"""quadterrain-bake, the program: a GeoTIFF made by gdal_translate bakes, by regions on two
threads, into a layout whose levels gdalinfo reads as Cloud-Optimised GeoTIFFs in the input's
place, and the same bake in one region gives the same levels; --verify passes it, and names the
damage once a byte of its tree changes; bad arguments and inputs give one line on stderr, exit 2.

Usage: bake_test.py QUADTERRAIN_BAKE SOURCE_DIR   (exit 77: skipped, no gdal_translate/gdalinfo)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile


def run(*args):
    return subprocess.run([*map(str, args)], capture_output=True, text=True, timeout=600)


def one_line_exit_2(result, what):
    assert result.returncode == 2, (what, result.returncode, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 or lines[0].startswith("usage"), (what, result.stderr)


def main():
    bake, source = sys.argv[1], sys.argv[2]
    if not shutil.which("gdal_translate") or not shutil.which("gdalinfo"):
        if os.environ.get("CI") == "true":
            print("gdal_translate or gdalinfo missing (Debian's gdal-bin)")
            return 1
        print("(bake_test skipped: no gdal_translate or gdalinfo)")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        dem = os.path.join(tmp, "dem.tif")
        # The default map placed on Earth: 1025 samples of 30 m from 500000 E, 5200000 N (UTM 32N).
        made = run("gdal_translate", "-q", "-a_srs", "EPSG:32632", "-a_ullr", "500000", "5200000",
                   "530750", "5169250", os.path.join(source, "data", "default_1025.png"), dem)
        assert made.returncode == 0, made.stderr
        layout = os.path.join(tmp, "layout")
        baked = run(bake, dem, layout, "--page-size", "128", "--region-size", "256", "--threads",
                    "2")
        assert baked.returncode == 0, baked.stderr
        assert "1025 x 1025 samples" in baked.stdout, baked.stdout
        assert "read in 16 regions of 256 x 256 squares, 2 at once" in baked.stdout, baked.stdout
        single = os.path.join(tmp, "single")
        one = run(bake, dem, single, "--page-size", "128", "--region-size", "2048")
        assert one.returncode == 0 and "read in 1 region of" in one.stdout, (one.stdout, one.stderr)
        with open(os.path.join(layout, "layout.json")) as f:
            manifest = json.load(f)
        assert manifest["format"] == "quadterrain layout" and manifest["pageSize"] == 128
        assert manifest["width"] == 1025 and len(manifest["files"]) == manifest["levels"]
        for level, entry in enumerate(manifest["files"]):
            info = run("gdalinfo", "-json", os.path.join(layout, entry["file"]))
            assert info.returncode == 0, info.stderr
            described = json.loads(info.stdout)
            assert described["size"] == [entry["columns"], entry["rows"]], (level, described["size"])
            structure = described["metadata"]["IMAGE_STRUCTURE"]
            assert structure["LAYOUT"] == "COG", structure
            band = described["bands"][0]
            assert band["type"] == "UInt16" and band["block"] == [128, 128], band
            # Each level's cells centred on the map samples they hold, 2^level apart.
            t = described["geoTransform"]
            assert abs(t[1] - 30.0 * 2 ** level) < 1e-6, (level, t)
            assert abs(t[0] + t[1] / 2 - 500015.0) < 1e-6, (level, t)
            # The same tiles (their checksums) whether read in 16 regions or in one.
            with open(os.path.join(single, "layout.json")) as f:
                assert json.load(f)["files"][level]["tiles"] == entry["tiles"], level
        verified = run(bake, "--verify", layout)
        assert verified.returncode == 0, verified.stderr

        # The same bake split into three jobs, each its own process as a job runner starts them,
        # then joined: the same tiles and the same tree as the bake in one process.
        jobs = os.path.join(tmp, "jobs")
        planned = run(bake, dem, jobs, "--page-size", "128", "--region-size", "256", "--plan")
        assert planned.returncode == 0, planned.stderr
        assert "plan.json of 1025 x 1025 samples in 16 regions" in planned.stdout, planned.stdout
        assert os.path.isfile(os.path.join(jobs, "plan.json"))
        for job in ("1/3", "2/3", "3/3"):
            ran = run(bake, dem, jobs, "--page-size", "128", "--region-size", "256", "--job", job)
            assert ran.returncode == 0, ran.stderr
            assert f"job {job.replace('/', ' of ')} baked regions" in ran.stdout, ran.stdout
        assert not os.path.exists(os.path.join(jobs, "layout.json"))
        region = os.path.join(jobs, "regions", "1-2", "region.json")
        os.rename(region, region + ".away")
        missing = run(bake, "--join", jobs)
        one_line_exit_2(missing, "a join with a region missing")
        assert "region (1, 2) is not baked" in missing.stderr, missing.stderr
        os.rename(region + ".away", region)
        joined = run(bake, "--join", jobs)
        assert joined.returncode == 0, joined.stderr
        assert "joined from 16 regions of 256 x 256 squares" in joined.stdout, joined.stdout
        with open(os.path.join(jobs, "layout.json")) as f:
            parts = json.load(f)
        assert [e["tiles"] for e in parts["files"]] == [e["tiles"] for e in manifest["files"]]
        assert parts["files"][0]["file"] == "heights-0.vrt", parts["files"][0]
        with open(os.path.join(jobs, "tree.qtree"), "rb") as a, \
                open(os.path.join(layout, "tree.qtree"), "rb") as b:
            assert a.read() == b.read()
        info = run("gdalinfo", "-json", os.path.join(jobs, "heights-0.vrt"))
        assert info.returncode == 0, info.stderr
        assert json.loads(info.stdout)["size"] == [1025, 1025]
        verified = run(bake, "--verify", jobs)
        assert verified.returncode == 0, verified.stderr
        # Three jobs started at once into a new folder, none planned first: they make the folder
        # and the plan side by side, and join into the same layout.
        together = os.path.join(tmp, "together")
        started = [subprocess.Popen([bake, dem, together, "--page-size", "128", "--region-size",
                                     "256", "--threads", "1", "--job", f"{job}/3"],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                   for job in (1, 2, 3)]
        for child in started:
            out, err = child.communicate()
            assert child.returncode == 0, err
        joined = run(bake, "--join", together)
        assert joined.returncode == 0, joined.stderr
        with open(os.path.join(together, "layout.json")) as f:
            assert [e["tiles"] for e in json.load(f)["files"]] == \
                [e["tiles"] for e in manifest["files"]]
        other = run(bake, dem, jobs, "--page-size", "256", "--region-size", "256", "--job", "1/3")
        one_line_exit_2(other, "a job of another plan")
        assert "plan of another bake" in other.stderr, other.stderr
        whole = run(bake, dem, jobs, "--page-size", "128", "--region-size", "256")
        one_line_exit_2(whole, "a whole bake into a folder of jobs")

        tree = os.path.join(layout, "tree.qtree")
        with open(tree, "r+b") as f:
            f.seek(100)
            byte = f.read(1)
            f.seek(100)
            f.write(bytes([byte[0] ^ 0x40]))
        damaged = run(bake, "--verify", layout)
        one_line_exit_2(damaged, "damaged tree")
        assert "tree.qtree" in damaged.stderr, damaged.stderr

        mine = os.path.join(tmp, "mine")
        os.mkdir(mine)
        with open(os.path.join(mine, "notes.txt"), "w") as f:
            f.write("mine")
        refused = run(bake, dem, mine)
        one_line_exit_2(refused, "a folder of the user's")
        assert os.listdir(mine) == ["notes.txt"], os.listdir(mine)

        for args, what in [((), "no arguments"), ((dem,), "no output"),
                           ((os.path.join(tmp, "missing.tif"), layout + "2"), "missing input"),
                           ((dem, layout + "3", "--page-size", "0"), "page size 0"),
                           ((dem, layout + "4", "--page-size", "48"), "page size 48"),
                           ((dem, layout + "5", "--colour"), "unknown option"),
                           ((dem, layout + "6", "--region-size", "384"), "region size 384"),
                           ((dem, layout + "7", "--page-size", "128", "--region-size", "64"),
                            "region size below the page size"),
                           ((dem, layout + "8", "--job", "3/2"), "job 3 of 2"),
                           ((dem, layout + "9", "--job", "2"), "a job without its count"),
                           (("--join", layout + "10"), "a join of no folder"),
                           ((dem, layout + "11", "--plan", "--job", "1/2"), "a plan and a job")]:
            result = run(bake, *args)
            one_line_exit_2(result, what)
            for never in ("2", "4", "6", "7", "8", "9", "10", "11"):
                assert not os.path.exists(layout + never), what
    print("bake_test: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
