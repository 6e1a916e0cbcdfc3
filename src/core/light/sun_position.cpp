// NOAA's solar position equations (the "General Solar Position Calculations" of NOAA's solar
// calculator), which are J. Meeus, "Astronomical Algorithms", 2nd ed., 1998: the Julian day
// (7.1), the Sun's low-accuracy apparent place (25.2-25.8), the mean obliquity (22.2), the
// equation of time (28.3) and the horizontal coordinates (13.5, 13.6).
#include "core/light/sun_position.h"

#include <cmath>

namespace qt {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kRad = kPi / 180.0;

double wrap360(double degrees) {
    const double w = std::fmod(degrees, 360.0);
    return w < 0.0 ? w + 360.0 : w;
}

// Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil).
int64_t daysFromCivil(int64_t y, int m, int d) {
    y -= m <= 2 ? 1 : 0;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const int64_t yoe = y - era * 400;
    const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

bool leapYear(int y) {
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int daysInMonth(int y, int m) {
    static const int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && leapYear(y) ? 29 : kDays[m - 1];
}

// Reads exactly `count` decimal digits at text[at], advancing at.
bool digits(const std::string& text, size_t& at, int count, int& out) {
    out = 0;
    for (int i = 0; i < count; ++i, ++at) {
        if (at >= text.size() || text[at] < '0' || text[at] > '9')
            return false;
        out = out * 10 + (text[at] - '0');
    }
    return true;
}

bool expect(const std::string& text, size_t& at, char c) {
    if (at >= text.size() || text[at] != c)
        return false;
    ++at;
    return true;
}

}  // namespace

double julianDay(int year, int month, int day, int hour, int minute, double second) {
    const double days = double(daysFromCivil(year, month, day));
    return days + 2440587.5 + (hour * 3600.0 + minute * 60.0 + second) / 86400.0;
}

SunEquatorial sunEquatorial(double jd) {
    const double t = (jd - 2451545.0) / 36525.0;  // Julian centuries from J2000.0
    const double l0 = wrap360(280.46646 + t * (36000.76983 + t * 0.0003032));
    const double m = 357.52911 + t * (35999.05029 - 0.0001537 * t);
    const double e = 0.016708634 - t * (0.000042037 + 0.0000001267 * t);
    const double mr = m * kRad;
    const double c = std::sin(mr) * (1.914602 - t * (0.004817 + 0.000014 * t)) +
                     std::sin(2.0 * mr) * (0.019993 - 0.000101 * t) + std::sin(3.0 * mr) * 0.000289;
    const double trueLongitude = l0 + c;
    const double omega = (125.04 - 1934.136 * t) * kRad;
    SunEquatorial s;
    s.apparentLongitude = trueLongitude - 0.00569 - 0.00478 * std::sin(omega);
    const double meanObliquity =
        23.0 + (26.0 + (21.448 - t * (46.815 + t * (0.00059 - t * 0.001813))) / 60.0) / 60.0;
    s.obliquity = meanObliquity + 0.00256 * std::cos(omega);
    const double lambda = s.apparentLongitude * kRad;
    const double eps = s.obliquity * kRad;
    s.rightAscension =
        wrap360(std::atan2(std::cos(eps) * std::sin(lambda), std::cos(lambda)) / kRad);
    s.declination = std::asin(std::sin(eps) * std::sin(lambda)) / kRad;
    const double y = std::tan(eps / 2.0) * std::tan(eps / 2.0);
    const double l0r = l0 * kRad;
    const double eq = y * std::sin(2.0 * l0r) - 2.0 * e * std::sin(mr) +
                      4.0 * e * y * std::sin(mr) * std::cos(2.0 * l0r) -
                      0.5 * y * y * std::sin(4.0 * l0r) - 1.25 * e * e * std::sin(2.0 * mr);
    s.equationOfTime = 4.0 * eq / kRad;  // 4 minutes of time per degree
    return s;
}

SunDirection horizontalFromHourAngle(double hourAngle, double declination, double latitude) {
    const double h = hourAngle * kRad;
    const double d = declination * kRad;
    const double p = latitude * kRad;
    // Meeus 13.5 gives the azimuth from the south, westward; adding 180 degrees turns it to
    // north, clockwise (eastward).
    const double fromSouth =
        std::atan2(std::sin(h), std::cos(h) * std::sin(p) - std::tan(d) * std::cos(p));
    const double sinAltitude = std::sin(p) * std::sin(d) + std::cos(p) * std::cos(d) * std::cos(h);
    SunDirection s;
    s.azimuth = wrap360(fromSouth / kRad + 180.0);
    s.elevation = std::asin(std::fmax(-1.0, std::fmin(1.0, sinAltitude))) / kRad;
    return s;
}

double refraction(double elevation) {
    if (elevation > 85.0)
        return 0.0;
    const double te = std::tan(elevation * kRad);
    double arcseconds;
    if (elevation > 5.0) {
        arcseconds = 58.1 / te - 0.07 / (te * te * te) + 0.000086 / std::pow(te, 5.0);
    } else if (elevation > -0.575) {
        arcseconds =
            1735.0 +
            elevation * (-518.2 + elevation * (103.4 + elevation * (-12.79 + elevation * 0.711)));
    } else {
        arcseconds = -20.774 / te;
    }
    return arcseconds / 3600.0;
}

SunDirection sunPosition(double jd, double longitude, double latitude, bool refract) {
    const SunEquatorial s = sunEquatorial(jd);
    // Minutes since 0h UTC of the day, then true solar time and the hour angle (NOAA).
    const double dayFraction = jd + 0.5 - std::floor(jd + 0.5);
    const double trueSolarMinutes = dayFraction * 1440.0 + s.equationOfTime + 4.0 * longitude;
    const double hourAngle = trueSolarMinutes / 4.0 - 180.0;
    SunDirection d = horizontalFromHourAngle(hourAngle, s.declination, latitude);
    if (refract)
        d.elevation = std::fmin(90.0, d.elevation + refraction(d.elevation));
    return d;
}

Result<UtcInstant> parseIsoInstant(const std::string& text) {
    const auto bad = [](const char* why) {
        return Result<UtcInstant>::failure(std::string(why) +
                                           "; expected local time and its offset, like "
                                           "2026-06-21T09:00+02:00 (or Z for UTC)");
    };
    size_t at = 0;
    int year, month, day, hour, minute, second = 0;
    if (!digits(text, at, 4, year) || !expect(text, at, '-') || !digits(text, at, 2, month) ||
        !expect(text, at, '-') || !digits(text, at, 2, day) || !expect(text, at, 'T') ||
        !digits(text, at, 2, hour) || !expect(text, at, ':') || !digits(text, at, 2, minute)) {
        return bad("not a date and time");
    }
    if (at < text.size() && text[at] == ':' && (++at, !digits(text, at, 2, second))) {
        return bad("not a date and time");
    }
    if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 ||
        minute > 59 || second > 59) {
        return bad("a field out of range");
    }
    int offsetMinutes = 0;
    if (at >= text.size())
        return bad("no time zone offset");
    if (text[at] == 'Z') {
        ++at;
    } else if (text[at] == '+' || text[at] == '-') {
        const int sign = text[at] == '-' ? -1 : 1;
        ++at;
        int oh, om;
        if (!digits(text, at, 2, oh) || !expect(text, at, ':') || !digits(text, at, 2, om) ||
            oh > 14 || om > 59) {
            return bad("a malformed time zone offset");
        }
        offsetMinutes = sign * (oh * 60 + om);
    } else {
        return bad("no time zone offset");
    }
    if (at != text.size())
        return bad("trailing characters");
    UtcInstant u;
    u.unixSeconds = daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second -
                    int64_t(offsetMinutes) * 60;
    return u;
}

}  // namespace qt
