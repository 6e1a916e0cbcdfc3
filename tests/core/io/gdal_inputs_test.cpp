// checkGdalInputs on files made here: regular files pass; a FIFO, device or folder as the map, as
// a VRT's source or raw band file, or as a sidecar GDAL would open is refused before anything
// opens it (none of these tests would return were a FIFO opened), and so is a VRT that loops.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <string>

#include "core/io/gdal_inputs.h"
#include "test_files.h"

namespace qt {
namespace {

using test::TempDir;

void writeText(const std::string& path, const std::string& text) {
    test::writeBytes(path, std::vector<uint8_t>(text.begin(), text.end()));
}

void makeFifo(const std::string& path) {
    ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0) << path;
}

// A VRT of one band whose simple source is `source`.
std::string simpleVrt(const std::string& source, bool relative) {
    return std::string(
               "<VRTDataset rasterXSize=\"4\" rasterYSize=\"4\"><VRTRasterBand "
               "dataType=\"Int16\" band=\"1\"><SimpleSource><SourceFilename "
               "relativeToVRT=\"") +
           (relative ? "1" : "0") + "\">" + source +
           "</SourceFilename><SourceBand>1</SourceBand></SimpleSource></VRTRasterBand>"
           "</VRTDataset>";
}

TEST(GdalInputs, RegularFilesPass) {
    TempDir dir;
    writeText(dir.path("m.tif"), "not read as a TIFF here");
    writeText(dir.path("m.tif.aux.xml"), "<PAMDataset/>");
    writeText(dir.path("m.vrt"), simpleVrt("m.tif", true));
    EXPECT_TRUE(checkGdalInputs(dir.path("m.tif")).ok());
    EXPECT_TRUE(checkGdalInputs(dir.path("m.vrt")).ok());
    // A mosaic naming one tile many times, and through both spellings of its path.
    writeText(dir.path("mosaic.vrt"),
              "<VRTDataset rasterXSize=\"4\" rasterYSize=\"4\">"
              "<VRTRasterBand dataType=\"Int16\" band=\"1\">"
              "<SimpleSource><SourceFilename relativeToVRT=\"1\">m.tif"
              "</SourceFilename></SimpleSource>"
              "<SimpleSource><SourceFilename relativeToVRT=\"0\">" +
                  dir.path("m.tif") +
                  "</SourceFilename></SimpleSource>"
                  "</VRTRasterBand></VRTDataset>");
    EXPECT_TRUE(checkGdalInputs(dir.path("mosaic.vrt")).ok());
}

TEST(GdalInputs, TheMapItself) {
    TempDir dir;
    EXPECT_EQ(checkGdalInputs(dir.path("gone.tif")).error(), "no such file");
    ASSERT_EQ(::mkdir(dir.path("folder.tif").c_str(), 0700), 0);
    EXPECT_EQ(checkGdalInputs(dir.path("folder.tif")).error(),
              "is a directory, not a heightmap file");
    makeFifo(dir.path("pipe.tif"));
    EXPECT_EQ(checkGdalInputs(dir.path("pipe.tif")).error(), "not a regular file");
    EXPECT_EQ(checkGdalInputs("/vsigzip/" + dir.path("pipe.tif")).error(), "not a regular file");
    EXPECT_EQ(checkGdalInputs("/dev/zero").error(), "not a regular file");
    EXPECT_EQ(checkGdalInputs("/vsistdin/").error(),
              "is read through GDAL's /vsistdin/, which quadterrain does not follow (files and "
              "network paths only)");
    // Port 9 (discard) has no server: the network path's stat gets curl's line (with its
    // timing after the prefix).
    EXPECT_EQ(
        checkGdalInputs("/vsicurl/http://127.0.0.1:9/m.tif")
            .error()
            .rfind("cannot be read from its server: CURL error: Failed to connect to 127.0.0.1 "
                   "port 9",
                   0),
        0u);
    EXPECT_EQ(checkGdalInputs("/vsizip//vsicurl/http://127.0.0.1:9/m.zip/m.tif").error(),
              "reads one GDAL virtual file system through another");
}

TEST(GdalInputs, SidecarsThatWouldBlock) {
    for (const char* sidecar :
         {"m.tif.aux.xml", "m.tif.ovr", "m.tif.msk", "m.prj", "m.tfw", "M.TFW", "m_rpc.txt"}) {
        TempDir dir;
        writeText(dir.path("m.tif"), "tiff");
        makeFifo(dir.path(sidecar));
        EXPECT_EQ(checkGdalInputs(dir.path("m.tif")).error(),
                  "sidecar " + dir.path(sidecar) + " is not a regular file (GDAL would open it)")
            << sidecar;
    }
    // quadterrain's own files are left to their readers; a FIFO of another map's name is not
    // this map's sidecar.
    TempDir dir;
    writeText(dir.path("m.tif"), "tiff");
    makeFifo(dir.path("m.tif.qtcodes"));
    makeFifo(dir.path("m.tif.qtcodes.qtree"));
    makeFifo(dir.path("mm.tif"));
    makeFifo(dir.path("other.tif.aux.xml"));
    EXPECT_TRUE(checkGdalInputs(dir.path("m.tif")).ok());
}

TEST(GdalInputs, VrtSources) {
    TempDir dir;
    makeFifo(dir.path("pipe.tif"));
    writeText(dir.path("relative.vrt"), simpleVrt("pipe.tif", true));
    EXPECT_EQ(checkGdalInputs(dir.path("relative.vrt")).error(),
              "VRT source " + dir.path("pipe.tif") + " is not a regular file");
    writeText(dir.path("absolute.vrt"), simpleVrt(dir.path("pipe.tif"), false));
    EXPECT_EQ(checkGdalInputs(dir.path("absolute.vrt")).error(),
              "VRT source " + dir.path("pipe.tif") + " is not a regular file");
    writeText(dir.path("vrt_scheme.vrt"),
              simpleVrt("vrt://" + dir.path("pipe.tif") + "?bands=1", false));
    EXPECT_EQ(checkGdalInputs(dir.path("vrt_scheme.vrt")).error(),
              "VRT source " + dir.path("pipe.tif") + " is not a regular file");
    // A raw band's file, and a VRT within a VRT.
    makeFifo(dir.path("pipe.raw"));
    writeText(dir.path("raw.vrt"),
              "<VRTDataset rasterXSize=\"4\" rasterYSize=\"4\"><VRTRasterBand dataType=\"Int16\" "
              "band=\"1\" subClass=\"VRTRawRasterBand\"><SourceFilename relativeToVRT=\"1\">"
              "pipe.raw</SourceFilename><ImageOffset>0</ImageOffset><PixelOffset>2</PixelOffset>"
              "<LineOffset>8</LineOffset></VRTRasterBand></VRTDataset>");
    EXPECT_EQ(checkGdalInputs(dir.path("raw.vrt")).error(),
              "VRT source " + dir.path("pipe.raw") + " is not a regular file");
    writeText(dir.path("outer.vrt"), simpleVrt("raw.vrt", true));
    EXPECT_EQ(checkGdalInputs(dir.path("outer.vrt")).error(),
              "VRT source " + dir.path("pipe.raw") + " is not a regular file");
    // A source that is missing, a folder, or beyond the files.
    writeText(dir.path("missing.vrt"), simpleVrt("gone.tif", true));
    EXPECT_EQ(checkGdalInputs(dir.path("missing.vrt")).error(),
              "VRT source " + dir.path("gone.tif") + " does not exist");
    ASSERT_EQ(::mkdir(dir.path("folder").c_str(), 0700), 0);
    writeText(dir.path("folder.vrt"), simpleVrt(dir.path("folder"), false));
    EXPECT_EQ(checkGdalInputs(dir.path("folder.vrt")).error(),
              "VRT source " + dir.path("folder") + " is a directory");
    writeText(dir.path("stdin.vrt"), simpleVrt("/vsistdin/", false));
    EXPECT_EQ(checkGdalInputs(dir.path("stdin.vrt")).error(),
              "VRT source /vsistdin/ is read through GDAL's /vsistdin/, which quadterrain does "
              "not follow (files and network paths only)");
    writeText(dir.path("broken.vrt"), "<VRTDataset><VRTRasterBand>");
    EXPECT_EQ(checkGdalInputs(dir.path("broken.vrt")).error(), "VRT is not well-formed XML");
}

TEST(GdalInputs, VrtLoops) {
    TempDir dir;
    writeText(dir.path("self.vrt"), simpleVrt("self.vrt", true));
    EXPECT_EQ(checkGdalInputs(dir.path("self.vrt")).error(),
              "VRT source " + dir.path("self.vrt") +
                  " is a VRT that names itself, directly or through others");
    writeText(dir.path("a.vrt"), simpleVrt("b.vrt", true));
    writeText(dir.path("b.vrt"), simpleVrt(dir.path("a.vrt"), false));
    EXPECT_EQ(checkGdalInputs(dir.path("a.vrt")).error(),
              "VRT source " + dir.path("a.vrt") +
                  " is a VRT that names itself, directly or through others");
    // VRTs nested deeper than kMaxVrtDepth, without a loop.
    for (int i = 0; i <= kMaxVrtDepth; ++i) {
        writeText(dir.path("deep" + std::to_string(i) + ".vrt"),
                  simpleVrt("deep" + std::to_string(i + 1) + ".vrt", true));
    }
    EXPECT_EQ(checkGdalInputs(dir.path("deep0.vrt")).error(),
              "VRTs name VRTs more than " + std::to_string(kMaxVrtDepth) + " deep");
}

}  // namespace
}  // namespace qt
