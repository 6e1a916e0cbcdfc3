// The viewer's command line: every option, every bad value gives one line naming the option.
#include "app/options.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

#include "app/folders.h"
#include "core/config.h"
#include "core/frame/draw_batches.h"

namespace qt {
namespace {

Result<ViewerOptions> parse(std::vector<std::string> args) {
    return parseOptions(args);
}

// --lod takes pixels, off (0) or auto (unset: the map's size decides, the default).
TEST(Options, LodTakesPixelsOffOrAuto) {
    EXPECT_EQ(parse({"--lod", "off"}).value().lodPixels, std::optional<float>(0.0f));
    EXPECT_EQ(parse({"--lod", "0"}).value().lodPixels, std::optional<float>(0.0f));
    EXPECT_EQ(parse({"--lod=2.5"}).value().lodPixels, std::optional<float>(2.5f));
    EXPECT_FALSE(parse({"--lod", "2", "--lod", "auto"}).value().lodPixels.has_value());
    EXPECT_FALSE(parse({"--lod", "Off"}));
}

// --frame-budget takes whole milliseconds (0: a fixed bound); unset, the viewer decides.
TEST(Options, FrameBudgetTakesMilliseconds) {
    EXPECT_FALSE(parse({}).value().frameBudgetMs.has_value());
    EXPECT_EQ(parse({"--frame-budget", "50"}).value().frameBudgetMs, std::optional<uint64_t>(50));
    EXPECT_EQ(parse({"--frame-budget=0"}).value().frameBudgetMs, std::optional<uint64_t>(0));
    for (const char* bad : {"-5", "2.5", "fast", "", "10001"}) {
        const Result<ViewerOptions> r = parse({"--frame-budget", bad});
        ASSERT_FALSE(r) << bad;
        EXPECT_NE(r.error().find("--frame-budget"), std::string::npos) << r.error();
    }
}

TEST(Options, ObjectScaleMultipliesTheObjectsSize) {
    EXPECT_EQ(parse({}).value().objectScale, 1.0f);
    EXPECT_EQ(parse({"--object-scale", "20"}).value().objectScale, 20.0f);
    EXPECT_EQ(parse({"--object-scale=0.5"}).value().objectScale, 0.5f);
    for (const char* bad : {"0", "-2", "nan", "inf", "1001", "big", ""}) {
        const Result<ViewerOptions> r = parse({"--object-scale", bad});
        ASSERT_FALSE(r) << bad;
        EXPECT_NE(r.error().find("--object-scale"), std::string::npos) << r.error();
    }
}

TEST(Options, ContoursAreOffOrAnInterval) {
    EXPECT_EQ(parse({}).value().contourInterval, 0.0f);
    EXPECT_EQ(parse({"--contours", "50"}).value().contourInterval, 50.0f);
    EXPECT_EQ(parse({"--contours", "2.5"}).value().contourInterval, 2.5f);
    EXPECT_EQ(parse({"--contours", "0"}).value().contourInterval, 0.0f);
    EXPECT_EQ(parse({"--contours", "50", "--contours", "off"}).value().contourInterval, 0.0f);
    for (const char* bad : {"-5", "nan", "inf", "on", "", "10m"}) {
        EXPECT_FALSE(parse({"--contours", bad})) << bad;
    }
}

// --imagery takes a path; its opacity 0 to 1, its light on or off.
TEST(Options, ImageryItsOpacityAndItsLight) {
    const ViewerOptions defaults = parse({}).value();
    EXPECT_EQ(defaults.imageryPath, "");
    EXPECT_EQ(defaults.imageryOpacity, 1.0f);
    EXPECT_TRUE(defaults.imageryLit);
    const ViewerOptions o =
        parse({"--imagery", "ortho.tif", "--imagery-opacity", "0.25", "--imagery-light", "off"})
            .value();
    EXPECT_EQ(o.imageryPath, "ortho.tif");
    EXPECT_EQ(o.imageryOpacity, 0.25f);
    EXPECT_FALSE(o.imageryLit);
    EXPECT_TRUE(parse({"--imagery-light", "off", "--imagery-light", "on"}).value().imageryLit);
    EXPECT_EQ(parse({"--imagery-opacity", "0"}).value().imageryOpacity, 0.0f);
    for (const char* bad : {"-0.1", "1.01", "nan", "inf", "half", ""}) {
        EXPECT_FALSE(parse({"--imagery-opacity", bad})) << bad;
    }
    for (const char* bad : {"yes", "1", "", "ON"}) {
        EXPECT_FALSE(parse({"--imagery-light", bad})) << bad;
    }
    EXPECT_EQ(defaults.imageryCompression, ImageryCompression::None);
    EXPECT_EQ(parse({"--imagery-compression", "bc3"}).value().imageryCompression,
              ImageryCompression::Bc3);
    EXPECT_EQ(parse({"--imagery-compression", "bc3", "--imagery-compression", "none"})
                  .value()
                  .imageryCompression,
              ImageryCompression::None);
    for (const char* bad : {"bc1", "BC3", "dxt5", ""}) {
        EXPECT_FALSE(parse({"--imagery-compression", bad})) << bad;
    }
    EXPECT_FALSE(parse({"--imagery"}));
}

TEST(Options, FogIsOnOffOrADistance) {
    const ViewerOptions plain = parse({}).value();
    EXPECT_TRUE(plain.fogOn);
    EXPECT_LT(plain.fogStart, 0.0f);  // the default start
    EXPECT_FALSE(parse({"--fog", "off"}).value().fogOn);
    const ViewerOptions from = parse({"--fog", "2500"}).value();
    EXPECT_TRUE(from.fogOn);
    EXPECT_EQ(from.fogStart, 2500.0f);
    EXPECT_TRUE(parse({"--fog", "off", "--fog", "on"}).value().fogOn);
    for (const char* bad : {"-1", "nan", "inf", "1e39", "Off", "", "near"}) {
        EXPECT_FALSE(parse({"--fog", bad})) << bad;
    }
}

// --sun takes ISO 8601 local time with its offset; --sun-azimuth and --sun-elevation degrees.
TEST(Options, SunByDateOrDirection) {
    const ViewerOptions plain = parse({}).value();
    EXPECT_FALSE(plain.sunInstant || plain.sunAzimuth || plain.sunElevation);
    const ViewerOptions dated = parse({"--sun", "2026-06-21T09:00+02:00"}).value();
    ASSERT_TRUE(dated.sunInstant.has_value());
    EXPECT_EQ(dated.sunInstant->unixSeconds,
              parseIsoInstant("2026-06-21T07:00Z").value().unixSeconds);
    const ViewerOptions turned = parse({"--sun-azimuth", "-90", "--sun-elevation=3.5"}).value();
    EXPECT_EQ(turned.sunAzimuth, std::optional<double>(270.0));
    EXPECT_EQ(turned.sunElevation, std::optional<double>(3.5));
    EXPECT_EQ(parse({"--sun-elevation", "-90"}).value().sunElevation, std::optional<double>(-90.0));
    EXPECT_EQ(parse({"--sun-azimuth", "360"}).value().sunAzimuth, std::optional<double>(0.0));
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"--sun", "2026-06-21T09:00"},
         "--sun '2026-06-21T09:00': no time zone offset; expected local time and its offset, "
         "like 2026-06-21T09:00+02:00 (or Z for UTC)"},
        {{"--sun", "2026-02-30T09:00+01:00"},
         "--sun '2026-02-30T09:00+01:00': a field out of range; expected local time and its "
         "offset, like 2026-06-21T09:00+02:00 (or Z for UTC)"},
        {{"--sun", "noon"},
         "--sun 'noon': not a date and time; expected local time and its offset, like "
         "2026-06-21T09:00+02:00 (or Z for UTC)"},
        {{"--sun-elevation", "90.5"},
         "--sun-elevation '90.5': expected degrees above the horizon, -90 to 90"},
        {{"--sun-elevation", "nan"},
         "--sun-elevation 'nan': expected degrees above the horizon, -90 to 90"},
        {{"--sun-azimuth", "east"},
         "--sun-azimuth 'east': expected degrees clockwise from north, -360 to 360"},
        {{"--sun", "2026-06-21T09:00Z", "--sun-azimuth", "10"},
         "--sun places the Sun by the date; --sun-azimuth and --sun-elevation by direction: give "
         "one or the other"},
    };
    for (const auto& [args, expected] : cases) {
        const Result<ViewerOptions> r = parse(args);
        ASSERT_FALSE(r.ok()) << args[0] << " " << args[1];
        EXPECT_EQ(r.error(), expected);
    }
}

TEST(Options, ScreenshotDirMustBeAFolder) {
    EXPECT_EQ(parse({"--screenshot-dir", "/"}).value().screenshotDir, "/");
    const Result<ViewerOptions> missing = parse({"--screenshot-dir", "/no/such/folder"});
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error(), "--screenshot-dir /no/such/folder: not a folder");
    EXPECT_FALSE(parse({"--screenshot-dir", "/dev/null"}));
}

// --shaders names the folder the shaders are read from; none: "" (the executable's shaders/).
TEST(Options, ShadersNamesTheirFolder) {
    EXPECT_EQ(parse({}).value().shaderDir, "");
    EXPECT_EQ(parse({"--shaders", "/s"}).value().shaderDir, "/s");
    EXPECT_EQ(parse({"--shaders=/s"}).value().shaderDir, "/s");
    EXPECT_EQ(parse({"--shaders", ""}).error(), "--shaders: empty path");
    EXPECT_EQ(parse({"--shaders"}).error(), "--shaders: missing value");
}

TEST(Options, CacheDirAndCacheBeside) {
    const ViewerOptions none = parse({}).value();
    EXPECT_EQ(none.cacheDir, "");
    EXPECT_FALSE(none.cacheBeside);
    EXPECT_EQ(parse({"--cache-dir", "/c"}).value().cacheDir, "/c");
    EXPECT_EQ(parse({"--cache-dir=/c"}).value().cacheDir, "/c");
    EXPECT_TRUE(parse({"--cache-beside"}).value().cacheBeside);
    EXPECT_EQ(parse({"--cache-dir", ""}).error(), "--cache-dir: empty path");
    EXPECT_EQ(parse({"--cache-dir"}).error(), "--cache-dir: missing value");
    EXPECT_EQ(parse({"--cache-beside=yes"}).error(), "--cache-beside takes no value");
}

TEST(Options, PicturesFolderFollowsTheGivenThenTheEnvironment) {
    EXPECT_EQ(picturesFolder("/given"), "/given");
    const char* saved = std::getenv("XDG_PICTURES_DIR");
    const std::string before = saved ? saved : "";
    ::setenv("XDG_PICTURES_DIR", "/", 1);
    EXPECT_EQ(picturesFolder(""), "/");
    ::setenv("XDG_PICTURES_DIR", "/no/such/folder", 1);
    EXPECT_NE(picturesFolder(""), "/no/such/folder");  // not a folder: the next candidate
    if (saved) {
        ::setenv("XDG_PICTURES_DIR", before.c_str(), 1);
    } else {
        ::unsetenv("XDG_PICTURES_DIR");
    }
}

TEST(Options, PicturesFolderReadsUserDirs) {
    // user-dirs.dirs as xdg-user-dirs writes it, in $XDG_CONFIG_HOME, with $HOME expanded.
    char home[] = "/tmp/qt_pictures_XXXXXX";
    ASSERT_NE(::mkdtemp(home), nullptr);
    const std::string shots = std::string(home) + "/Shots";
    ASSERT_EQ(::mkdir(shots.c_str(), 0755), 0);
    std::ofstream(std::string(home) + "/user-dirs.dirs")
        << "# comment\nXDG_DESKTOP_DIR=\"$HOME/Desktop\"\nXDG_PICTURES_DIR=\"$HOME/Shots\"\n";
    ::unsetenv("XDG_PICTURES_DIR");
    ::setenv("HOME", home, 1);
    ::setenv("XDG_CONFIG_HOME", home, 1);
    EXPECT_EQ(picturesFolder(""), shots);
    ::rmdir(shots.c_str());
    EXPECT_EQ(picturesFolder(""), ".");  // no such folder, no ~/Pictures: the current folder
    std::remove((std::string(home) + "/user-dirs.dirs").c_str());
    ::rmdir(home);
}

TEST(Options, StreamAndItsPool) {
    const ViewerOptions plain = parse({}).value();
    EXPECT_FALSE(plain.stream);
    EXPECT_EQ(plain.streamPool, 0);
    EXPECT_TRUE(parse({"--stream"}).value().stream);
    EXPECT_FALSE(parse({"--stream=on"}));
    const ViewerOptions pool = parse({"--stream-pool", "12"}).value();
    EXPECT_TRUE(pool.stream);
    EXPECT_EQ(pool.streamPool, 12);
    EXPECT_FALSE(parse({"--stream-pool", "0"}));
    EXPECT_FALSE(parse({"--stream-pool", "65535"}));
}

// How level 0 reaches the GPU: auto unless asked, the three words only.
TEST(Options, Upload) {
    EXPECT_EQ(parse({}).value().upload, Level0Upload::Auto);
    EXPECT_EQ(parse({"--upload", "whole"}).value().upload, Level0Upload::Whole);
    EXPECT_EQ(parse({"--upload=on-demand"}).value().upload, Level0Upload::OnDemand);
    EXPECT_EQ(parse({"--upload", "whole", "--upload", "auto"}).value().upload, Level0Upload::Auto);
    EXPECT_FALSE(parse({"--upload", "lazy"}));
    EXPECT_FALSE(parse({"--upload"}));
}

// Level of detail starts on, at kAutoLodPixels, for maps of more than kAutoLodTriangles
// triangles (2 per grid square), and off for smaller ones; --lod overrides either way.
TEST(Options, LodIsOnByDefaultForMapsOfMoreThanFourMillionTriangles) {
    EXPECT_EQ(kAutoLodTriangles, 4000000);
    // 1415 x 1415 samples: 2 * 1414^2 = 3,998,792 triangles; 1416: 4,004,450.
    EXPECT_EQ(autoLodPixels(1415, 1415), 0.0f);
    EXPECT_EQ(autoLodPixels(1416, 1416), kAutoLodPixels);
    EXPECT_EQ(autoLodPixels(2, 2000001), 0.0f);  // 2 * 2,000,000: not more
    EXPECT_EQ(autoLodPixels(2, 2000002), kAutoLodPixels);
    EXPECT_EQ(autoLodPixels(1025, 1025), 0.0f);            // the default map and Puget Sound
    EXPECT_EQ(autoLodPixels(1201, 1201), 0.0f);            // an SRTM3 tile
    EXPECT_EQ(autoLodPixels(4320, 2161), kAutoLodPixels);  // ETOPO5, the world: 18.6 million
    EXPECT_EQ(autoLodPixels(16385, 16385), kAutoLodPixels);
    EXPECT_EQ(autoLodPixels(0, 0), 0.0f);
    const ViewerOptions automatic = parse({}).value();
    EXPECT_EQ(lodPixelsFor(automatic, 4320, 2161), kAutoLodPixels);
    EXPECT_EQ(lodPixelsFor(automatic, 1025, 1025), 0.0f);
    EXPECT_EQ(lodPixelsFor(parse({"--lod", "off"}).value(), 4320, 2161), 0.0f);
    EXPECT_EQ(lodPixelsFor(parse({"--lod", "3"}).value(), 1025, 1025), 3.0f);
}

TEST(Options, DefaultsAndEveryOption) {
    const ViewerOptions d = parse({}).value();
    EXPECT_TRUE(d.heightmapPath.empty());
    EXPECT_EQ(d.leafSize, 4);
    EXPECT_FALSE(d.lodPixels.has_value());  // auto: by the map's size
    EXPECT_FALSE(d.syncDraws.has_value());  // auto: the renderer decides
    EXPECT_FALSE(d.scripted());
    const Result<ViewerOptions> r = parse({"my map.hgt",
                                           "--spacing",
                                           "2.5",
                                           "--height-scale=0.1",
                                           "--height-offset",
                                           "-11000",
                                           "--leaf",
                                           "8",
                                           "--size",
                                           "1025x513",
                                           "--window",
                                           "640x480",
                                           "--eye",
                                           "1,2,3",
                                           "--target",
                                           "4,5,6",
                                           "--fov",
                                           "45",
                                           "--no-cull",
                                           "--no-occlusion",
                                           "--lod",
                                           "1.5",
                                           "--sync-draws",
                                           "off",
                                           "--back-faces",
                                           "draw",
                                           "--screenshot",
                                           "a.png",
                                           "--stats-json",
                                           "s.json",
                                           "--dump-leaves",
                                           "--cull-map",
                                           "c.png",
                                           "--bench",
                                           "b.csv",
                                           "--frames",
                                           "3"});
    ASSERT_TRUE(r.ok()) << r.error();
    const ViewerOptions& o = r.value();
    EXPECT_EQ(o.heightmapPath, "my map.hgt");
    EXPECT_EQ(*o.spacingX, 2.5f);
    EXPECT_EQ(*o.spacingZ, 2.5f);
    EXPECT_EQ(*o.heightScale, 0.1f);
    EXPECT_EQ(*o.heightOffset, -11000.0f);
    EXPECT_EQ(o.leafSize, 8);
    EXPECT_EQ(o.rawWidth, 1025);
    EXPECT_EQ(o.rawHeight, 513);
    EXPECT_EQ(o.windowWidth, 640);
    EXPECT_EQ(*o.eye, glm::vec3(1, 2, 3));
    EXPECT_EQ(*o.target, glm::vec3(4, 5, 6));
    EXPECT_EQ(o.fovDegrees, 45.0f);
    EXPECT_TRUE(o.noCull);
    EXPECT_TRUE(o.noOcclusion);
    EXPECT_EQ(o.lodPixels, 1.5f);
    EXPECT_EQ(o.syncDraws, std::optional<bool>(false));
    EXPECT_EQ(parse({"--sync-draws=on"}).value().syncDraws, std::optional<bool>(true));
    EXPECT_FALSE(parse({"--sync-draws", "on", "--sync-draws", "auto"}).value().syncDraws);
    EXPECT_TRUE(o.drawBackFaces);
    EXPECT_FALSE(parse({"--back-faces", "auto"}).value().drawBackFaces);
    EXPECT_FALSE(parse({}).value().drawBackFaces);
    EXPECT_TRUE(o.dumpLeaves);
    EXPECT_EQ(o.screenshotPath, "a.png");
    EXPECT_EQ(o.statsJsonPath, "s.json");
    EXPECT_EQ(o.cullMapPath, "c.png");
    EXPECT_EQ(o.benchCsvPath, "b.csv");
    EXPECT_EQ(o.frames, 3);
    EXPECT_TRUE(o.scripted());
    EXPECT_TRUE(parse({"--help"}).value().help);
    const ViewerOptions shot =
        parse({"--window-shot", "w.png", "--freeze-eye", "1,2,3", "--freeze-target", "4,5,6"})
            .value();
    EXPECT_EQ(shot.windowShotPath, "w.png");
    EXPECT_EQ(parse({"--soak", "100000"}).value().soakFrames, 100000);
    EXPECT_FALSE(parse({"--soak", "10"}).value().soakRssReportOnly);
    EXPECT_TRUE(parse({"--soak", "10", "--soak-rss-report-only"}).value().soakRssReportOnly);
    EXPECT_EQ(*shot.freezeEye, glm::vec3(1, 2, 3));
    EXPECT_EQ(*shot.freezeTarget, glm::vec3(4, 5, 6));
}

TEST(Options, TwoSpacingsExaggerationEncodingAndWater) {
    const Result<ViewerOptions> r = parseOptions({"m.tif", "--spacing", "30,25", "--exaggeration",
                                                  "2.5", "--encoding", "terrarium", "--water"});
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(*r.value().spacingX, 30.0f);
    EXPECT_EQ(*r.value().spacingZ, 25.0f);
    EXPECT_EQ(r.value().exaggeration, 2.5f);
    EXPECT_EQ(r.value().encoding, HeightEncoding::Terrarium);
    EXPECT_TRUE(r.value().water);
    const Result<ViewerOptions> d = parseOptions({"--encoding=terrain-rgb"});
    ASSERT_TRUE(d.ok()) << d.error();
    EXPECT_EQ(d.value().encoding, HeightEncoding::TerrainRgb);
    EXPECT_EQ(d.value().exaggeration, 1.0f);
    EXPECT_FALSE(d.value().water);
}

TEST(Options, BadValuesGiveOneLine) {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"--spacing", "0"}, "--spacing '0': expected a positive finite number, or two as X,Z"},
        {{"--spacing", "-1"}, "--spacing '-1': expected a positive finite number, or two as X,Z"},
        {{"--spacing", "nan"}, "--spacing 'nan': expected a positive finite number, or two as X,Z"},
        {{"--spacing", "inf"}, "--spacing 'inf': expected a positive finite number, or two as X,Z"},
        {{"--spacing", "1e39"},
         "--spacing '1e39': expected a positive finite number, or two as X,Z"},
        {{"--spacing", "2x"}, "--spacing '2x': expected a positive finite number, or two as X,Z"},
        {{"--spacing", "2,"}, "--spacing '2,': expected a positive finite number, or two as X,Z"},
        {{"--spacing", "2,0"}, "--spacing '2,0': expected a positive finite number, or two as X,Z"},
        {{"--spacing", "1,2,3"},
         "--spacing '1,2,3': expected a positive finite number, or two as X,Z"},
        {{"--exaggeration", "0"}, "--exaggeration '0': expected a positive finite number"},
        {{"--encoding", "rgb"}, "--encoding 'rgb': expected terrain-rgb or terrarium"},
        {{"--height-scale", "NaN"}, "--height-scale 'NaN': expected a finite number"},
        {{"--height-offset", "-inf"}, "--height-offset '-inf': expected a finite number"},
        {{"--leaf", "3"}, "--leaf '3': expected a power of two from 2 to 64"},
        {{"--leaf", "128"}, "--leaf '128': expected a power of two from 2 to 64"},
        {{"--leaf", "1"}, "--leaf '1': expected a power of two from 2 to 64"},
        {{"--leaf", "4.0"}, "--leaf '4.0': expected a power of two from 2 to 64"},
        {{"--fov", "1"}, "--fov '1': expected degrees between 1 and 179 (exclusive)"},
        {{"--fov", "179"}, "--fov '179': expected degrees between 1 and 179 (exclusive)"},
        {{"--fov", "-60"}, "--fov '-60': expected degrees between 1 and 179 (exclusive)"},
        {{"--lod", "-1"}, "--lod '-1': expected pixels from 0 to 64, off or auto"},
        {{"--lod", "65"}, "--lod '65': expected pixels from 0 to 64, off or auto"},
        {{"--sync-draws", "yes"}, "--sync-draws 'yes': expected auto, on or off"},
        {{"--sync-draws"}, "--sync-draws: missing value"},
        {{"--back-faces", "cull"}, "--back-faces 'cull': expected auto or draw"},
        {{"--lod", "nan"}, "--lod 'nan': expected pixels from 0 to 64, off or auto"},
        {{"--lod"}, "--lod: missing value"},
        {{"--size", "100"},
         "--size '100': expected WIDTHxHEIGHT with positive integers, like 1025x1025"},
        {{"--size", "0x5"},
         "--size '0x5': expected WIDTHxHEIGHT with positive integers, like 1025x1025"},
        {{"--size", "12x"},
         "--size '12x': expected WIDTHxHEIGHT with positive integers, like 1025x1025"},
        {{"--size", "x12"},
         "--size 'x12': expected WIDTHxHEIGHT with positive integers, like 1025x1025"},
        {{"--size", "-3x4"},
         "--size '-3x4': expected WIDTHxHEIGHT with positive integers, like 1025x1025"},
        {{"--eye", "1,2"}, "--eye '1,2': expected X,Y,Z with three numbers from -1e15 to 1e15"},
        {{"--eye", "1,2,3,4"},
         "--eye '1,2,3,4': expected X,Y,Z with three numbers from -1e15 to 1e15"},
        {{"--eye", "1,nan,3"},
         "--eye '1,nan,3': expected X,Y,Z with three numbers from -1e15 to 1e15"},
        {{"--eye", "1e16,2,3"},
         "--eye '1e16,2,3': expected X,Y,Z with three numbers from -1e15 to 1e15"},
        {{"--freeze-target", "1,-3e38,3"},
         "--freeze-target '1,-3e38,3': expected X,Y,Z with three numbers from -1e15 to 1e15"},
        {{"--eye", "1,2,3"}, "--eye and --target go together: give both or neither"},
        {{"--eye", "1,2,3", "--target", "1,2,3"},
         "--eye and --target are the same point; the camera needs a direction"},
        {{"--dump-leaves"}, "--dump-leaves needs --stats-json OUT.json"},
        {{"--frobnicate"}, "unknown option '--frobnicate' (see --help)"},
        {{"-x"}, "unknown option '-x' (see --help)"},
        {{"a.png", "b.png"}, "unexpected argument 'b.png': only one heightmap can be given"},
        {{"--spacing"}, "--spacing: missing value"},
        {{"--no-cull=1"}, "--no-cull takes no value"},
        {{"--soak", "0"}, "--soak '0': expected a positive whole number of frames"},
        {{"--soak", "1e5"}, "--soak '1e5': expected a positive whole number of frames"},
        {{"--soak-rss-report-only"}, "--soak-rss-report-only needs --soak N"},
        {{"--soak", "9", "--soak-rss-report-only=1"}, "--soak-rss-report-only takes no value"},
        {{"--window-shot"}, "--window-shot: missing value"},
        {{"--freeze-eye", "1,2,3"},
         "--freeze-eye and --freeze-target go together: give both or neither"},
        {{"--freeze-eye", "1,2,3", "--freeze-target", "1,2,3"},
         "--freeze-eye and --freeze-target are the same point; the frustum needs a direction"},
        {{"--\n"}, "unknown option '--\\x0a' (see --help)"},
        {{"--fov", "6\r0"}, "--fov '6\\x0d0': expected degrees between 1 and 179 (exclusive)"},
        {{"--window", "16384x16384"},
         "--window '16384x16384': expected WIDTHxHEIGHT from 1x1 to 16384x16384 and at most "
         "67108864 pixels (8192x8192), like 1280x720"},
        {{"--window", "8193x8192"},
         "--window '8193x8192': expected WIDTHxHEIGHT from 1x1 to 16384x16384 and at most 67108864 "
         "pixels (8192x8192), like 1280x720"},
        {{"--window", "16385x1"},
         "--window '16385x1': expected WIDTHxHEIGHT from 1x1 to 16384x16384 and at most 67108864 "
         "pixels (8192x8192), like 1280x720"},
        {{"--window", "0x10"},
         "--window '0x10': expected WIDTHxHEIGHT from 1x1 to 16384x16384 and at most 67108864 "
         "pixels (8192x8192), like 1280x720"},
        {{""}, "empty heightmap path"},
        {{"a.png", ""}, "empty heightmap path"},
        {{"a\nb.png", "c.png"}, "unexpected argument 'c.png': only one heightmap can be given"},
        {{"a.png", "b\n.png"}, "unexpected argument 'b\\x0a.png': only one heightmap can be given"},
        {{"--screenshot", ""}, "--screenshot: empty path"},
        {{"--screenshot="}, "--screenshot: empty path"},
        {{"--window-shot", ""}, "--window-shot: empty path"},
        {{"--stats-json", ""}, "--stats-json: empty path"},
        {{"--cull-map="}, "--cull-map: empty path"},
        {{"--bench", ""}, "--bench: empty path"},
        {{"--size", ""}, "--size '': expected WIDTHxHEIGHT with positive integers, like 1025x1025"},
        {{"--spacing="}, "--spacing '': expected a positive finite number, or two as X,Z"},
        {{"--objects", "-1"},
         "--objects '-1': expected a whole number of objects from 0 to 50000000"},
        {{"--objects", "1e12"},
         "--objects '1e12': expected a whole number of objects from 0 to 50000000"},
        {{"--objects", "50000001"},
         "--objects '50000001': expected a whole number of objects from 0 to 50000000"},
        {{"--objects", ""}, "--objects '': expected a whole number of objects from 0 to 50000000"},
        {{"--moving", "+5"},
         "--moving '+5': expected a whole number of moving objects from 0 to 50000000"},
        {{"--seed", "0x10"},
         "--seed '0x10': expected a whole number from 0 to 18446744073709551615"},
        {{"--steps", "216001"},
         "--steps '216001': expected a whole number of steps from 0 to 216000"},
        {{"--objects", "10", "--moving", "11"}, "--moving 11 is more than --objects 10"},
        {{"--dump-objects"}, "--dump-objects needs --stats-json OUT.json"},
        {{"--memory-budget", "-1"},
         "--memory-budget '-1': expected a whole number of MiB from 0 to 16777216"},
        {{"--memory-budget", "1.5"},
         "--memory-budget '1.5': expected a whole number of MiB from 0 to 16777216"},
        {{"--memory-budget", "16777217"},
         "--memory-budget '16777217': expected a whole number of MiB from 0 to 16777216"},
        {{"--memory-budget", ""},
         "--memory-budget '': expected a whole number of MiB from 0 to 16777216"},
    };
    for (const auto& [args, expected] : cases) {
        const Result<ViewerOptions> r = parse(args);
        ASSERT_FALSE(r.ok()) << args[0];
        EXPECT_EQ(r.error(), expected);
    }
}

TEST(Options, ObjectsParsedAndTheirMemoryChecked) {
    const Result<ViewerOptions> r =
        parse({"--objects", "50000000", "--moving", "100000", "--seed", "18446744073709551615",
               "--steps", "600", "--dump-objects", "--stats-json", "s.json"});
    if (physicalMemoryBytes() >= 50000000ull * kObjectBytes * 2) {
        ASSERT_TRUE(r.ok()) << r.error();
        EXPECT_EQ(r.value().objects, 50000000u);
        EXPECT_EQ(r.value().moving, 100000u);
        EXPECT_EQ(r.value().seed, UINT64_MAX);
        EXPECT_EQ(r.value().steps, 600);
        EXPECT_TRUE(r.value().dumpObjects);
    } else {  // refused on this machine, from the count alone
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(r.error().rfind("--objects 50000000 needs about 21362 MiB, more than half of "
                                  "this machine's memory (",
                                  0),
                  0u)
            << r.error();
    }
    EXPECT_TRUE(checkObjectMemory(1000000, 1ull << 30));  // 427 MiB of 1 GiB
    const Status over = checkObjectMemory(10000000, 1ull << 30);
    ASSERT_FALSE(over);
    EXPECT_EQ(over.error(),
              "--objects 10000000 needs about 4272 MiB, more than half of this machine's memory "
              "(1024 MiB)");
}

TEST(Options, MemoryBudgetParsedWithHalfOfMemoryByDefault) {
    const ViewerOptions d = parse({}).value();
    EXPECT_FALSE(d.memoryBudgetMb.has_value());
    EXPECT_EQ(memoryBudgetBytes(d, uint64_t(24) << 30), uint64_t(12) << 30);
    EXPECT_EQ(memoryBudgetBytes(d, UINT64_MAX), 0u);  // memory unknown: no budget
    const Result<ViewerOptions> r = parse({"--memory-budget", "3000"});
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(memoryBudgetBytes(r.value(), uint64_t(24) << 30), uint64_t(3000) << 20);
    const Result<ViewerOptions> none = parse({"--memory-budget=0"});
    ASSERT_TRUE(none.ok()) << none.error();
    EXPECT_EQ(memoryBudgetBytes(none.value(), uint64_t(24) << 30), 0u);
    EXPECT_EQ(memoryBudgetBytes(parse({"--memory-budget", "16777216"}).value(), 1), 1ull << 44);
}

TEST(Options, PickStateJsonAndMaxFps) {
    const ViewerOptions d = parse({}).value();
    EXPECT_FALSE(d.pick.has_value());
    EXPECT_TRUE(d.stateJsonPath.empty());
    EXPECT_EQ(d.maxFps, 0);
    const Result<ViewerOptions> r =
        parse({"--window", "640x480", "--stats-json", "s.json", "--pick", "639,0",
               "--state-json=st.json", "--max-fps", "1"});
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(*r.value().pick, (std::array<int, 2>{639, 0}));
    EXPECT_EQ(r.value().stateJsonPath, "st.json");
    EXPECT_EQ(r.value().maxFps, 1);
    EXPECT_FALSE(parse({"--state-json", "st.json"}).value().scripted());  // the viewer runs
    EXPECT_EQ(*parse({"--stats-json", "s.json", "--pick", "0,719"}).value().pick,
              (std::array<int, 2>{0, 719}));
}

TEST(Options, BadPicksAndFrameRatesGiveOneLine) {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"--pick", "10,10"}, "--pick needs --stats-json OUT.json"},
        {{"--stats-json", "s.json", "--pick", "1280,5"},
         "--pick 1280,5 is outside the 1280x720 window"},
        {{"--stats-json", "s.json", "--window", "64x32", "--pick", "5,32"},
         "--pick 5,32 is outside the 64x32 window"},
        {{"--stats-json", "s.json", "--pick", "-1,5"},
         "--pick '-1,5': expected PX,PY: a window pixel, like 640,360"},
        {{"--stats-json", "s.json", "--pick", "5"},
         "--pick '5': expected PX,PY: a window pixel, like 640,360"},
        {{"--stats-json", "s.json", "--pick", "1.5,2"},
         "--pick '1.5,2': expected PX,PY: a window pixel, like 640,360"},
        {{"--stats-json", "s.json", "--pick", "1,2,3"},
         "--pick '1,2,3': expected PX,PY: a window pixel, like 640,360"},
        {{"--pick"}, "--pick: missing value"},
        {{"--state-json", ""}, "--state-json: empty path"},
        {{"--max-fps", "0"}, "--max-fps '0': expected frames a second from 1 to 1000"},
        {{"--max-fps", "1001"}, "--max-fps '1001': expected frames a second from 1 to 1000"},
        {{"--max-fps", "2.5"}, "--max-fps '2.5': expected frames a second from 1 to 1000"},
    };
    for (const auto& [args, message] : cases) {
        const Result<ViewerOptions> r = parse(args);
        ASSERT_FALSE(r.ok()) << args[0];
        EXPECT_EQ(r.error(), message);
    }
}

TEST(Options, WindowUpToTheCap) {
    for (const char* size : {"8192x8192", "16384x4096", "1x16384", "16384x1"}) {
        const Result<ViewerOptions> r = parse({"--window", size});
        ASSERT_TRUE(r.ok()) << size << ": " << r.error();
        EXPECT_LE(int64_t(r.value().windowWidth) * r.value().windowHeight, kMaxWindowPixels);
    }
}

TEST(Options, UsageNamesEveryOption) {
    const std::string usage = usageText();
    for (const char* name :
         {"--spacing",     "--height-scale",  "--leaf",        "--size",         "--eye",
          "--target",      "--fov",           "--no-cull",     "--no-occlusion", "--lod",
          "--screenshot",  "--stats-json",    "--dump-leaves", "--cull-map",     "--bench",
          "--help",        "--pick",          "--state-json",  "--max-fps",      "--objects",
          "--moving",      "--seed",          "--steps",       "--dump-objects", "--memory-budget",
          "--cache-dir",   "--cache-beside",  "--cache-size",  "--frame-budget", "--sun",
          "--sun-azimuth", "--sun-elevation", "--shaders"}) {
        EXPECT_NE(usage.find(name), std::string::npos) << name;
    }
}

// The limits --help states are the code's own.
TEST(Options, UsageStatesTheLimitsTheCodeApplies) {
    const std::string usage = usageText();
    for (const std::string& figure :
         {std::to_string(kMaxSide) + " samples a side", std::to_string(kMaxSamples) + " in all",
          std::to_string(kMaxFileBytes) + " bytes",
          std::to_string(kQueuedTriangles) + " triangles"}) {
        EXPECT_NE(usage.find(figure), std::string::npos) << figure;
    }
}

}  // namespace
}  // namespace qt
