// The cursor bar's numbers as text (GL-free, unit-tested).
#include "app/readout_text.h"

#include <cmath>
#include <cstdio>

namespace qt {

std::string groupedNumber(double value, int decimals) {
    if (!std::isfinite(value)) {
        return std::isnan(value) ? "nan" : value > 0.0 ? "inf" : "-inf";
    }
    char text[400];  // %f of the largest double: 309 digits
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    std::string plain = text;
    const size_t start = plain[0] == '-' ? 1 : 0;
    size_t end = plain.find('.');
    if (end == std::string::npos) {
        end = plain.size();
    }
    std::string out = plain.substr(0, start);
    for (size_t i = start; i < end; ++i) {
        out += plain[i];
        const size_t left = end - i - 1;
        if (left > 0 && left % 3 == 0) {
            out += ',';
        }
    }
    return out + plain.substr(end);
}

std::string lengthText(double value, bool metres) {
    const double size = std::fabs(value);
    if (metres) {
        return size > 10000.0 ? groupedNumber(value / 1000.0, 2) + " km"
                              : groupedNumber(value, 1) + " m";
    }
    return groupedNumber(value, size < 1.0 ? 4 : size < 100.0 ? 2 : 1) + " map units";
}

std::string lonLatText(double lon, double lat) {
    char text[80];
    std::snprintf(text, sizeof text, "%.5f\u00b0 %c, %.5f\u00b0 %c", std::fabs(lat),
                  lat < 0.0 ? 'S' : 'N', std::fabs(lon), lon < 0.0 ? 'W' : 'E');
    return text;
}

std::string crsText(const GeoPoint& p, bool geographic) {
    if (geographic) {
        return groupedNumber(p.crsX, 6) + ", " + groupedNumber(p.crsY, 6);
    }
    return groupedNumber(p.crsX, 2) + " E, " + groupedNumber(p.crsY, 2) + " N";
}

std::string measureText(const GroundDistance& d) {
    const double slant = std::hypot(d.level, d.height);
    std::string text =
        "measure " + lengthText(slant, d.metres) + " (level " + lengthText(d.level, d.metres);
    if (d.geodesic) {
        text += " on the WGS 84 ellipsoid";
        const double error = d.flatError();
        if (std::fabs(error) > 0.001) {
            char percent[32];
            std::snprintf(percent, sizeof percent, "%+.1f%%", 100.0 * error);
            text += std::string(", flat map: ") + percent;
        }
    } else if (d.metres) {
        text += " on the map plane";
    }
    const std::string height = lengthText(d.height, d.metres);
    return text + "; height " + (d.height >= 0.0 ? "+" : "") + height + ")";
}

}  // namespace qt
