// Maps and imagery named by URL, served by a real nginx on 127.0.0.1 (http_server.h): a COG and
// a VRT mosaic of remote tiles load sample for sample as their local copies do; a bad server
// (404, refused connection, redirect loop, slow answers) and a hostile VRT give one line in
// bounded time; a remote raster over the memory budget is refused before its samples are read.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <cpl_string.h>
#include <gdal_priv.h>
#include <gdal_utils.h>
#include <ogr_spatialref.h>

#include "core/io/gdal_inputs.h"
#include "core/io/imagery.h"
#include "core/io/load.h"
#include "core/streaming/open_map.h"
#include "core/terrain/heightmap.h"
#include "http_server.h"
#include "test_files.h"

namespace qt {
namespace {

using test::HttpServer;
using test::TempDir;

// A Cloud-Optimised GeoTIFF of Float32 heights, width x height, in UTM 32N with 30 m samples,
// its corner at (east, north); heights vary with the sample so that no two tiles agree.
void writeCog(const std::string& path, int width, int height, double east, double north, int seed) {
    GDALAllRegister();
    GDALDriver* mem = GetGDALDriverManager()->GetDriverByName("MEM");
    const GDALDatasetUniquePtr source(mem->Create("", width, height, 1, GDT_Float32, nullptr));
    ASSERT_TRUE(source);
    double transform[6] = {east, 30.0, 0.0, north, 0.0, -30.0};
    source->SetGeoTransform(transform);
    OGRSpatialReference srs;
    srs.importFromEPSG(32632);
    source->SetSpatialRef(&srs);
    std::vector<float> heights(size_t(width) * size_t(height));
    for (int r = 0; r < height; ++r) {
        for (int c = 0; c < width; ++c) {
            heights[size_t(r) * size_t(width) + size_t(c)] =
                float(400 + (c * 37 + r * 101 + c * r * seed) % 1201) + 0.25f * float(seed);
        }
    }
    ASSERT_EQ(source->GetRasterBand(1)->RasterIO(GF_Write, 0, 0, width, height, heights.data(),
                                                 width, height, GDT_Float32, 0, 0, nullptr),
              CE_None);
    GDALDriver* cog = GetGDALDriverManager()->GetDriverByName("COG");
    ASSERT_NE(cog, nullptr);
    const GDALDatasetUniquePtr copy(
        cog->CreateCopy(path.c_str(), source.get(), FALSE, nullptr, nullptr, nullptr));
    ASSERT_TRUE(copy) << path;
}

// A VRT at vrtPath over the tiles, with paths relative to it (gdalbuildvrt's way).
void writeMosaic(const std::string& vrtPath, const std::vector<std::string>& tiles) {
    std::vector<const char*> names;
    for (const std::string& t : tiles) {
        names.push_back(t.c_str());
    }
    int failed = 0;
    GDALDatasetH vrt =
        GDALBuildVRT(vrtPath.c_str(), int(names.size()), nullptr, names.data(), nullptr, &failed);
    ASSERT_NE(vrt, nullptr);
    ASSERT_EQ(failed, 0);
    GDALClose(vrt);
}

void writeText(const std::string& path, const std::string& text) {
    std::ofstream(path) << text;
}

// Same size, codes, coding, georeference and nodata: the remote load is the local one.
void expectSameMap(const Heightmap& remote, const Heightmap& local) {
    ASSERT_EQ(remote.width, local.width);
    ASSERT_EQ(remote.height, local.height);
    EXPECT_EQ(remote.coding.step, local.coding.step);
    EXPECT_EQ(remote.coding.offset, local.coding.offset);
    EXPECT_TRUE(remote.metres && local.metres);
    EXPECT_EQ(remote.geo.crsWkt, local.geo.crsWkt);
    EXPECT_EQ(remote.geo.west, local.geo.west);
    EXPECT_EQ(remote.geo.north, local.geo.north);
    EXPECT_EQ(remote.geo.metresX, local.geo.metresX);
    EXPECT_EQ(remote.nodata.samples, local.nodata.samples);
    size_t differ = 0;
    for (int r = 0; r < local.height; ++r) {
        for (int c = 0; c < local.width; ++c) {
            differ += remote.codeAt(c, r) != local.codeAt(c, r) ? 1 : 0;
        }
    }
    EXPECT_EQ(differ, 0u);
}

double secondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(RemoteMap, ACogByUrlLoadsSampleForSampleAsItsLocalFileByByteRanges) {
    TempDir root;
    writeCog(root.path("m.tif"), 301, 257, 500000.0, 5300000.0, 3);
    HttpServer server(root.path(""));
    QT_REQUIRE_HTTP_SERVER(server);
    const Result<Heightmap> local = loadHeightmap(root.path("m.tif"));
    ASSERT_TRUE(local) << local.error();
    for (const std::string& url : {server.url("m.tif"), server.url("m.tif?signature=abc.png"),
                                   "/vsicurl/" + server.url("m.tif")}) {
        const Result<Heightmap> remote = loadHeightmap(url);
        ASSERT_TRUE(remote) << url << ": " << remote.error();
        expectSameMap(remote.value(), local.value());
    }
    // GDAL's reader asks for byte ranges, as it would of object storage.
    EXPECT_NE(server.accessLog().find("GET /m.tif 206 bytes="), std::string::npos)
        << server.accessLog();
}

TEST(RemoteMap, AVrtMosaicOfRemoteTilesResolvesItsSourcesAgainstItsUrl) {
    TempDir root;
    writeCog(root.path("a.tif"), 129, 129, 500000.0, 5300000.0, 1);
    writeCog(root.path("b.tif"), 129, 129, 500000.0 + 128 * 30.0, 5300000.0, 2);
    writeMosaic(root.path("mosaic.vrt"), {root.path("a.tif"), root.path("b.tif")});
    HttpServer server(root.path(""));
    QT_REQUIRE_HTTP_SERVER(server);
    const Result<Heightmap> local = loadHeightmap(root.path("mosaic.vrt"));
    ASSERT_TRUE(local) << local.error();
    ASSERT_EQ(local.value().width, 257);
    const Result<Heightmap> remote = loadHeightmap(server.url("mosaic.vrt"));
    ASSERT_TRUE(remote) << remote.error();
    expectSameMap(remote.value(), local.value());
    const std::string log = server.accessLog();
    EXPECT_NE(log.find("GET /a.tif 206"), std::string::npos) << log;
    EXPECT_NE(log.find("GET /b.tif 206"), std::string::npos) << log;
}

TEST(RemoteMap, AVrtReadOverTheNetworkMayNameNoLocalFile) {
    TempDir root;
    writeCog(root.path("a.tif"), 65, 65, 500000.0, 5300000.0, 1);
    // The same mosaic with its source named by an absolute local path, as a hostile server
    // would name /etc/shadow or /dev/zero: the local copy is fine, the remote one refused.
    writeMosaic(root.path("abs.vrt"), {root.path("a.tif")});
    std::ifstream in(root.path("abs.vrt"));
    std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string relative = "<SourceFilename relativeToVRT=\"1\">a.tif</SourceFilename>";
    const size_t at = xml.find(relative);
    ASSERT_NE(at, std::string::npos) << xml;
    xml.replace(at, relative.size(),
                "<SourceFilename relativeToVRT=\"0\">" + root.path("a.tif") + "</SourceFilename>");
    writeText(root.path("abs.vrt"), xml);
    // A source named by a URL without /vsicurl/ would go to GDAL's HTTP driver, which reads a
    // resource whole into memory.
    std::string http = xml;
    http.replace(http.find(root.path("a.tif")), root.path("a.tif").size(), "http://x/a.tif");
    writeText(root.path("http.vrt"), http);

    HttpServer server(root.path(""));
    QT_REQUIRE_HTTP_SERVER(server);
    EXPECT_TRUE(loadHeightmap(root.path("abs.vrt")));
    const Result<Heightmap> remote = loadHeightmap(server.url("abs.vrt"));
    ASSERT_FALSE(remote);
    EXPECT_NE(remote.error().find("is a local file, named by a VRT read over the network"),
              std::string::npos)
        << remote.error();
    EXPECT_EQ(server.accessLog().find("a.tif"), std::string::npos);
    const Result<Heightmap> viaHttp = loadHeightmap(server.url("http.vrt"));
    ASSERT_FALSE(viaHttp);
    EXPECT_NE(viaHttp.error().find("is a URL without /vsicurl/"), std::string::npos)
        << viaHttp.error();
}

TEST(RemoteMap, ABadServerGivesOneLineInBoundedTime) {
    TempDir root;
    writeCog(root.path("m.tif"), 65, 65, 500000.0, 5300000.0, 1);
    writeCog(root.path("down.tif"), 65, 65, 500000.0, 5300000.0, 1);
    writeMosaic(root.path("missing.vrt"), {root.path("m.tif")});
    HttpServer server(root.path(""));
    QT_REQUIRE_HTTP_SERVER(server);
    struct Case {
        std::string url;
        std::string says;
    };
    const std::vector<Case> cases = {
        {server.url("gone/m.tif"), "cannot be read from its server: HTTP 404"},
        {server.url("nothing.tif"), "cannot be read from its server: HTTP 404"},
        {server.url("loop/m.tif"), "cannot be read from its server: HTTP 302"},
        {server.url("m.png"), "a map named by URL is read through GDAL"},
        {server.url("m.tif.gz"), "a map named by URL is read through GDAL"},
    };
    for (const Case& c : cases) {
        const auto start = std::chrono::steady_clock::now();
        const Result<Heightmap> map = loadHeightmap(c.url);
        ASSERT_FALSE(map) << c.url;
        EXPECT_NE(map.error().find(c.says), std::string::npos) << map.error();
        EXPECT_EQ(map.error().find('\n'), std::string::npos) << map.error();
        EXPECT_LT(secondsSince(start), 10.0) << c.url;
    }
    // A VRT whose tile has gone from the server names the tile.
    ASSERT_EQ(std::remove(root.path("m.tif").c_str()), 0);
    const Result<Heightmap> mosaic = loadHeightmap(server.url("missing.vrt"));
    ASSERT_FALSE(mosaic);
    EXPECT_NE(mosaic.error().find("VRT source"), std::string::npos) << mosaic.error();
    EXPECT_NE(mosaic.error().find("m.tif cannot be read from its server"), std::string::npos)
        << mosaic.error();
    // A server that has stopped refuses the connection: the line says so at once.
    const std::string url = server.url("down.tif");
    server.stop();
    const auto start = std::chrono::steady_clock::now();
    const Result<Heightmap> down = loadHeightmap(url);
    ASSERT_FALSE(down);
    EXPECT_NE(down.error().find("cannot be read from its server: CURL error: Failed to connect"),
              std::string::npos)
        << down.error();
    EXPECT_LT(secondsSince(start), 10.0);
}

TEST(RemoteMap, ASlowServerStillGivesTheWholeMap) {
    TempDir root;
    writeCog(root.path("m.tif"), 129, 129, 500000.0, 5300000.0, 5);
    HttpServer server(root.path(""), 16384);
    QT_REQUIRE_HTTP_SERVER(server);
    const Result<Heightmap> local = loadHeightmap(root.path("m.tif"));
    ASSERT_TRUE(local) << local.error();
    const auto start = std::chrono::steady_clock::now();
    const Result<Heightmap> slow = loadHeightmap(server.url("slow/m.tif"));
    ASSERT_TRUE(slow) << slow.error();
    expectSameMap(slow.value(), local.value());
    // The answers came at 16 kB/s: the file's bytes took at least their time.
    struct stat st {};
    ASSERT_EQ(::stat(root.path("m.tif").c_str(), &st), 0);
    EXPECT_GT(secondsSince(start), 0.5 * double(st.st_size) / 16384.0);
}

TEST(RemoteMap, ARemoteRasterOverTheMemoryBudgetIsRefusedBeforeItsSamplesAreRead) {
    TempDir root;
    writeCog(root.path("m.tif"), 513, 513, 500000.0, 5300000.0, 1);
    HttpServer server(root.path(""));
    QT_REQUIRE_HTTP_SERVER(server);
    LoadOptions options;
    options.memory.limitBytes = 1 << 20;
    const Result<OpenedMap> over = openMap(server.url("m.tif"), options, {}, 4, false);
    ASSERT_FALSE(over);
    EXPECT_NE(over.error().find("memory budget"), std::string::npos) << over.error();
    EXPECT_NE(over.error().find("a map named by URL is read whole into memory"), std::string::npos)
        << over.error();
    EXPECT_NE(over.error().find("quadterrain-bake URL FOLDER"), std::string::npos) << over.error();
    const Result<OpenedMap> streamed = openMap(server.url("m.tif"), {}, {}, 4, true);
    ASSERT_FALSE(streamed);
    EXPECT_NE(streamed.error().find("--stream reads local files only"), std::string::npos)
        << streamed.error();
    // Only the header was read: far fewer bytes than the raster's 1 MB of samples.
    EXPECT_EQ(server.accessLog().find("bytes=65536-"), std::string::npos) << server.accessLog();
    const Result<OpenedMap> fits = openMap(server.url("m.tif"), {}, {}, 4, false);
    ASSERT_TRUE(fits) << fits.error();
    EXPECT_FALSE(fits.value().streamed);
}

// A hostile server's header claiming 10^6 x 10^6 samples (a VRT of a few bytes over one small
// tile) is refused from the header, in one line, before anything big is read or allocated.
TEST(RemoteMap, AHeaderClaimingAHugeRasterIsRefusedBeforeAnythingIsRead) {
    TempDir root;
    writeCog(root.path("a.tif"), 65, 65, 500000.0, 5300000.0, 1);
    writeText(root.path("huge.vrt"),
              "<VRTDataset rasterXSize=\"1000000\" rasterYSize=\"1000000\">"
              "<VRTRasterBand dataType=\"Float32\" band=\"1\"><SimpleSource>"
              "<SourceFilename relativeToVRT=\"1\">a.tif</SourceFilename><SourceBand>1</SourceBand>"
              "</SimpleSource></VRTRasterBand></VRTDataset>");
    HttpServer server(root.path(""));
    QT_REQUIRE_HTTP_SERVER(server);
    for (const bool stream : {false, true}) {
        const Result<OpenedMap> opened = openMap(server.url("huge.vrt"), {}, {}, 4, stream);
        ASSERT_FALSE(opened);
        EXPECT_NE(opened.error().find("1000000"), std::string::npos) << opened.error();
        EXPECT_EQ(opened.error().find('\n'), std::string::npos) << opened.error();
    }
    // The tile's header was all that was read of it: no range past its first 64 kB.
    EXPECT_EQ(server.accessLog().find("bytes=65536-"), std::string::npos) << server.accessLog();
}

TEST(RemoteMap, ImageryByUrlEqualsItsLocalFile) {
    TempDir root;
    writeCog(root.path("m.tif"), 65, 65, 500000.0, 5300000.0, 1);
    // An 8-bit, 3-band image over the same place.
    GDALAllRegister();
    GDALDriver* mem = GetGDALDriverManager()->GetDriverByName("MEM");
    const GDALDatasetUniquePtr image(mem->Create("", 130, 130, 3, GDT_Byte, nullptr));
    double transform[6] = {500000.0, 15.0, 0.0, 5300000.0, 0.0, -15.0};
    image->SetGeoTransform(transform);
    OGRSpatialReference srs;
    srs.importFromEPSG(32632);
    image->SetSpatialRef(&srs);
    std::vector<uint8_t> texels(130 * 130);
    for (int b = 1; b <= 3; ++b) {
        for (size_t i = 0; i < texels.size(); ++i) {
            texels[i] = uint8_t((i * size_t(b) * 7) % 251);
        }
        ASSERT_EQ(image->GetRasterBand(b)->RasterIO(GF_Write, 0, 0, 130, 130, texels.data(), 130,
                                                    130, GDT_Byte, 0, 0, nullptr),
                  CE_None);
    }
    const GDALDatasetUniquePtr cog(GetGDALDriverManager()->GetDriverByName("COG")->CreateCopy(
        root.path("image.tif").c_str(), image.get(), FALSE, nullptr, nullptr, nullptr));
    ASSERT_TRUE(cog);
    HttpServer server(root.path(""));
    QT_REQUIRE_HTTP_SERVER(server);
    const Result<Heightmap> map = loadHeightmap(root.path("m.tif"));
    ASSERT_TRUE(map) << map.error();
    const Result<Imagery> local =
        loadImagery(root.path("image.tif"), map.value().width, map.value().height, map.value().geo);
    ASSERT_TRUE(local) << local.error();
    const Result<Imagery> remote = loadImagery(server.url("image.tif"), map.value().width,
                                               map.value().height, map.value().geo);
    ASSERT_TRUE(remote) << remote.error();
    EXPECT_EQ(remote.value().width, local.value().width);
    EXPECT_EQ(remote.value().height, local.value().height);
    EXPECT_TRUE(remote.value().rgba == local.value().rgba);
    EXPECT_EQ(remote.value().info.source, server.url("image.tif"));
}

}  // namespace
}  // namespace qt
