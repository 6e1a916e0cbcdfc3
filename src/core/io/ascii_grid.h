// ESRI ASCII grids checked as text before GDAL reads their samples. GDAL's AAIGrid driver reads
// each token with atof or atoi, so "12abc" becomes 12, "x" 0 and an integer grid's 99999999999
// wraps, and it never says so: here every header value and sample must be a number GDAL reads
// whole, and there must be exactly as many samples as the header gives.
#pragma once

#include <cstdint>
#include <string>

#include "core/base/result.h"

namespace qt {

// Bytes of text that hold width x height samples at the least: a digit and a separator each.
uint64_t asciiGridLeastBytes(int width, int height);

// Reads the grid at gdalPath (through GDAL's file layer: a path, /vsigzip/ or /vsimem/) in
// chunks and checks it: header lines "NAME VALUE" of the names GDAL reads, each value a number
// (ncols and nrows whole); then width x height samples, each a number as CPLAtofM reads it
// ('.' or ',' for the point) within float's range, or nan, inf or null; whole numbers within 32
// bits only when GDAL reads the grid as integers (`integers`: no '.', ',', 'e' or 'E' in it).
// The line starts "ESRI ASCII grid: " and names the row and column at fault (from 1).
Status checkAsciiGrid(const std::string& gdalPath, int width, int height, bool integers);

}  // namespace qt
