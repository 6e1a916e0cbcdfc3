// The Sun's place in the sky for an instant and a place on the Earth, by the equations of NOAA's
// solar calculator (after J. Meeus, "Astronomical Algorithms", 2nd ed., 1998, chapters 7, 13,
// 22, 25 and 28): accurate to about 0.01 degrees between the years 1800 and 2100.
#pragma once

#include <cstdint>
#include <string>

#include "core/base/result.h"

namespace qt {

// Where the light comes from: azimuth in degrees clockwise from north, [0, 360); elevation in
// degrees above the horizon, [-90, 90].
struct SunDirection {
    double azimuth = 0.0;
    double elevation = 0.0;
};

// The Sun's equatorial place and the equation of time (Meeus chapters 22, 25 and 28).
struct SunEquatorial {
    double apparentLongitude = 0.0;  // degrees
    double obliquity = 0.0;          // corrected for nutation, degrees
    double rightAscension = 0.0;     // degrees, [0, 360)
    double declination = 0.0;        // degrees
    double equationOfTime = 0.0;     // minutes, apparent less mean solar time
};

// The Julian day of a proleptic Gregorian date and UTC time (Meeus chapter 7), for any year.
double julianDay(int year, int month, int day, int hour, int minute, double second);

// The Sun's equatorial place at a Julian day (UT taken for TD: 70 s is 0.0008 degrees).
SunEquatorial sunEquatorial(double julianDay);

// The horizontal place of a body from its local hour angle and declination at a latitude, all in
// degrees (Meeus chapter 13), azimuth measured from north.
SunDirection horizontalFromHourAngle(double hourAngle, double declination, double latitude);

// The atmospheric refraction NOAA's calculator adds to a geometric elevation, in degrees.
double refraction(double elevation);

// The Sun seen from longitude, latitude (degrees, east and north positive) at a Julian day (UTC):
// the apparent elevation includes refraction when `refract` is set.
SunDirection sunPosition(double julianDay, double longitude, double latitude, bool refract = true);

// A UTC instant parsed from ISO 8601 local time with its offset, "2026-06-21T09:00+02:00",
// seconds optional, "Z" for UTC; a missing offset is an error, as is any field out of range.
struct UtcInstant {
    int64_t unixSeconds = 0;
    double julianDay() const { return double(unixSeconds) / 86400.0 + 2440587.5; }
};
Result<UtcInstant> parseIsoInstant(const std::string& text);

}  // namespace qt
